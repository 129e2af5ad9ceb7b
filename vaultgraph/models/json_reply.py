"""Reading the JSON a chat model was asked for, forgiving the wrappers models put around it."""

from __future__ import annotations

import json
import re

from vaultgraph.models.errors import ModelResponseInvalid

# Reasoning models served through OpenAI-compatible APIs (DeepSeek-R1, Qwen3 via Ollama) prefix their answer
# with their thinking.
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```\s*$", re.DOTALL)


def parse_json_reply(content: str, *, model: str) -> object:
    """The JSON value in a chat answer: bare, fenced in ```json, or after a line of prose.

    Raises ModelResponseInvalid, without quoting the answer (it may repeat document text).
    """
    text = _THINKING.sub("", content).strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        return json.loads(text)
    except ValueError as first_error:
        value = _outermost_json(text)
        if value is not None:
            return value[0]
        raise ModelResponseInvalid(
            f"The chat model '{model}' did not answer with JSON ({len(content)} characters, "
            f"{first_error.__class__.__name__} at position {_position(first_error)}). "
            "A model that follows instructions better, or a lower temperature, usually fixes this.",
            operation="chat",
            model=model,
            retryable=True,
        ) from first_error


def _outermost_json(text: str) -> tuple[object] | None:
    """The first array or object in `text` that parses, as a 1-tuple (so that a JSON null is not 'absent')."""
    decoder = json.JSONDecoder()
    for index, char in enumerate(text):
        if char in "[{":
            try:
                value, _ = decoder.raw_decode(text, index)
            except ValueError:
                continue
            return (value,)
    return None


def _position(error: ValueError) -> int | str:
    return error.pos if isinstance(error, json.JSONDecodeError) else "?"
