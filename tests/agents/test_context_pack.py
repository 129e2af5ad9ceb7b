"""contextPack: never over budget (counted with the same tokenizer), whole sentences only, the top hit first,
neighbours with the link that brought them, and what was left out."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.server import RunningServer
from vaultgraph.domain import Note, Owner, Scope
from vaultgraph.models.local_embedding import default_tokenizer_path
from vaultgraph.services.context_pack import SEPARATOR, PackBuilder, PackRole
from vaultgraph.text.tokens import TokenCounter, sentences

COUNTER = TokenCounter(default_tokenizer_path())
SAVE = """mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }"""
PACK = """
query($q: String!, $budget: Int!) { contextPack(query: $q, budgetTokens: $budget) {
  budgetTokens usedTokens tokenizer threshold text
  items { item { id title } role content tokens truncated reason score via { fromId linkType direction } }
  omitted { item { id } role reason }
} }
"""

WORDS = st.sampled_from(["the", "key", "server", "token", "graph", "note", "agent", "budget", "link", "vault"])
SENTENCE = st.builds(lambda words, end: " ".join(words).capitalize() + end,
                     st.lists(WORDS, min_size=1, max_size=12), st.sampled_from([".", "!", "?"]))
TEXT = st.lists(SENTENCE, min_size=1, max_size=12).map(" ".join)


def note(n: int, body: str) -> Note:
    now = datetime.now(UTC)
    return Note(id=f"note_{n}", tenant_id="t", owner=Owner(Scope.SHARED), slug=f"n{n}", title=f"Note {n}", body=body,
                body_sha256="", frontmatter={}, tags=(), kind="note", note_date=None, pinned=False, archived_at=None,
                created_by_agent_id=None, indexed=True, created_at=now, updated_at=now)


@pytest.mark.text
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(TEXT, min_size=1, max_size=8), budget=st.integers(min_value=16, max_value=400))
def test_a_pack_never_exceeds_its_budget_nor_cuts_a_sentence(texts: list[str], budget: int) -> None:
    builder = PackBuilder(COUNTER, budget)
    for n, text in enumerate(texts):
        builder.add(note(n, text), PackRole.HIT if n < 3 else PackRole.NEIGHBOUR, text, f"reason {n}")
    whole = SEPARATOR.join(item.rendered for item in builder.items)
    assert COUNTER.count(whole) <= budget
    for item in builder.items:
        original = sentences(texts[int(item.item.id.removeprefix("note_"))])
        kept = sentences(item.content)
        assert kept == original[: len(kept)]  # a prefix of whole sentences
        assert item.truncated == (len(kept) < len(original))
    assert len(builder.items) + len(builder.omitted) == len(texts)
    first = note(0, texts[0])
    alone = PackBuilder(COUNTER, budget)
    alone.add(first, PackRole.HIT, sentences(texts[0])[0], "reason 0")
    if alone.items:  # the top hit's first sentence fits on its own, so the pack starts with it
        assert builder.items and builder.items[0].item.id == "note_0"


@pytest.mark.api
@pytest.mark.graph
async def test_context_pack_over_graphql(server: RunningServer) -> None:
    hub_body = ("Bearer tokens authenticate every request. The server hashes each API key. "
                "Keys can be revoked at any time. See [[Key rotation]] and [[Audit log]].")
    hub = (await server.data(SAVE, {"input": {"title": "Authentication with bearer tokens", "body": hub_body}}))
    rotation = await server.data(SAVE, {"input": {"title": "Key rotation", "body": (
        "Rotate every key each quarter. Old keys stop working after a grace period of a week.")}})
    await server.data(SAVE, {"input": {"title": "Audit log", "body": "Every admission is recorded with its key id."}})
    await server.data(SAVE, {"input": {"title": "Gardening", "body": "Tomatoes like sun and regular water."}})
    hub_id = hub["saveNote"]["note"]["id"]

    large = (await server.data(PACK, {"q": "bearer token authentication", "budget": 2000}))["contextPack"]
    assert large["items"][0]["item"]["id"] == hub_id and large["items"][0]["role"] == "HIT"
    assert large["items"][0]["content"] == hub_body and large["items"][0]["truncated"] is False
    assert "relevance" in large["items"][0]["reason"] and large["items"][0]["score"] >= 0.3
    assert large["threshold"] == 0.3 and large["tokenizer"] == COUNTER.name
    neighbours = {i["item"]["id"]: i for i in large["items"] if i["role"] == "NEIGHBOUR"}
    rotation_id = rotation["saveNote"]["note"]["id"]
    via = neighbours[rotation_id]["via"]
    assert (via["fromId"], via["direction"]) == (hub_id, "OUT") and "links to" in neighbours[rotation_id]["reason"]
    assert all(i["item"]["title"] != "Gardening" for i in large["items"])
    assert large["usedTokens"] == COUNTER.count(large["text"]) <= 2000

    for budget in (16, 30, 45, 70, 120):
        pack = (await server.data(PACK, {"q": "bearer token authentication", "budget": budget}))["contextPack"]
        assert COUNTER.count(pack["text"]) == pack["usedTokens"] <= budget
        for item in pack["items"]:
            assert item["content"] == "" or item["content"][-1] in ".!?"
        listed = {i["item"]["id"] for i in pack["items"]} | {o["item"]["id"] for o in pack["omitted"]}
        assert listed == {i["item"]["id"] for i in large["items"]} | {o["item"]["id"] for o in large["omitted"]}
    tight = (await server.data(PACK, {"q": "bearer token authentication", "budget": 45}))["contextPack"]
    assert tight["omitted"] and all(o["reason"] for o in tight["omitted"])

    refused = await server.graphql(PACK, {"q": "bearer", "budget": 5})
    assert refused["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
