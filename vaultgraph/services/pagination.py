"""Opaque cursors and page-size rules shared by every list."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from vaultgraph.errors import InvalidInput

DEFAULT_PAGE_SIZE = 20


def encode_cursor(*key: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key), separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str, arity: int, field: str = "after") -> list[Any]:
    """The keyset a cursor stands for; a cursor a client made up answers INVALID_INPUT."""
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput(field, "not a cursor this API returned") from exc
    if not isinstance(key, list) or len(key) != arity:
        raise InvalidInput(field, "not a cursor this API returned")
    return key


def page_size(first: int | None, maximum: int, field: str = "first") -> int:
    if first is None:
        return min(DEFAULT_PAGE_SIZE, maximum)
    if first < 1:
        raise InvalidInput(field, "must be at least 1")
    if first > maximum:
        raise InvalidInput(field, f"at most {maximum} items a page; ask for the next page with `after`")
    return first
