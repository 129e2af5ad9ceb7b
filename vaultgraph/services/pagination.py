"""Opaque cursors and page-size rules shared by every list."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Any

from vaultgraph.errors import InvalidInput

DEFAULT_PAGE_SIZE = 20
NOT_A_CURSOR = "not a cursor this API returned"


def encode_cursor(*key: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key), separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str, arity: int, field: str = "after") -> list[Any]:
    """The keyset a cursor stands for (every key a string, as every list makes them); a cursor a client made up
    answers INVALID_INPUT, never reaches a query."""
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, ValueError, UnicodeError) as exc:
        raise InvalidInput(field, NOT_A_CURSOR) from exc
    if not isinstance(key, list) or len(key) != arity or not all(isinstance(part, str) for part in key):
        raise InvalidInput(field, NOT_A_CURSOR)
    return key


def timestamp_cursor(cursor: str | None, field: str = "after") -> tuple[str | None, str | None]:
    """(timestamp, id) of a cursor of a list ordered by a time (notes, links), or (None, None) for no cursor; the
    timestamp is checked (and written out again) so that Cypher's `datetime()` never sees a made-up one."""
    if not cursor:
        return None, None
    stamp, item_id = decode_cursor(cursor, 2, field)
    try:
        return datetime.fromisoformat(stamp).isoformat(), item_id
    except ValueError as exc:
        raise InvalidInput(field, NOT_A_CURSOR) from exc


def page_size(first: int | None, maximum: int, field: str = "first") -> int:
    if first is None:
        return min(DEFAULT_PAGE_SIZE, maximum)
    if first < 1:
        raise InvalidInput(field, "must be at least 1")
    if first > maximum:
        raise InvalidInput(field, f"at most {maximum} items a page; ask for the next page with `after`")
    return first
