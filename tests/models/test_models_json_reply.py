"""Reading the JSON a chat model was asked for, whatever it wrapped around it."""

from __future__ import annotations

import pytest

from vaultgraph.models import ModelResponseInvalid, parse_json_reply

pytestmark = pytest.mark.workers

BATCH = [{"idx": 1, "summary": "A note about graphs."}, {"idx": 2, "summary": "Another."}]
BATCH_TEXT = '[{"idx": 1, "summary": "A note about graphs."}, {"idx": 2, "summary": "Another."}]'


@pytest.mark.parametrize(
    "content",
    [
        BATCH_TEXT,
        f"  {BATCH_TEXT}\n",
        f"```json\n{BATCH_TEXT}\n```",
        f"```\n{BATCH_TEXT}\n```",
        f"Here are the summaries:\n\n{BATCH_TEXT}\n\nLet me know if you need more.",
        f"<think>The user wants [brackets] and {{braces}}.</think>\n{BATCH_TEXT}",
    ],
)
def test_batch_shape_is_found(content: str) -> None:
    assert parse_json_reply(content, model="m") == BATCH


def test_objects_and_scalars_parse() -> None:
    assert parse_json_reply('{"type": "SKIP"}', model="m") == {"type": "SKIP"}
    assert parse_json_reply('"SKIP"', model="m") == "SKIP"
    assert parse_json_reply("null", model="m") is None


@pytest.mark.parametrize("content", ["", "SKIP", "[{'idx': 1}]", '[{"idx": 1, "summary": "cut'])
def test_no_json_is_invalid_and_not_quoted(content: str) -> None:
    with pytest.raises(ModelResponseInvalid, match="did not answer with JSON") as caught:
        parse_json_reply(content, model="llama3")
    assert "llama3" in str(caught.value)
    if content:
        assert content not in str(caught.value)
