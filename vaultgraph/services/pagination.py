"""Opaque cursors and page-size rules shared by every list."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import orjson

from vaultgraph.domain import Page
from vaultgraph.errors import InvalidInput

T = TypeVar("T")

DEFAULT_PAGE_SIZE = 20
NOT_A_CURSOR = "not a cursor this API returned"


def encode_cursor(*key: Any) -> str:
    # orjson: a page makes one cursor per edge, and the stdlib's encoder was most of each (a non-ASCII key now
    # reads as UTF-8 where it was escaped: the same keyset for `decode_cursor`, which takes either). A string orjson
    # refuses (a lone surrogate, not UTF-8) is escaped by the stdlib, as before.
    try:
        text = orjson.dumps(list(key))
    except orjson.JSONEncodeError:
        text = json.dumps(list(key), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(text).decode()


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


def page_size_problem(size: int, maximum: int, field: str = "first") -> str | None:
    """What is wrong with a page size, or None; one text for the services and the schema's size rule."""
    if size < 1:
        return "must be at least 1"
    if size > maximum:
        onward = "ask for the previous page with `before`" if field == "last" else "ask for the next page with `after`"
        return f"at most {maximum} items a page; {onward}"
    return None


def page_size(first: int | None, maximum: int, field: str = "first") -> int:
    if first is None:
        return min(DEFAULT_PAGE_SIZE, maximum)
    problem = page_size_problem(first, maximum, field)
    if problem is not None:
        raise InvalidInput(field, problem)
    return first


Key = tuple[str | None, str | None]
Decode = Callable[[str | None, str], Key]


def keyset_cursor(cursor: str | None, field: str = "after") -> Key:
    """(sort key, id) of a cursor of a list ordered by a string key (documents: path), or (None, None)."""
    if not cursor:
        return None, None
    key, item_id = decode_cursor(cursor, 2, field)
    return key, item_id


@dataclass(frozen=True, slots=True)
class Window:
    """The slice of a keyset-ordered list a connection asks for, as the Relay cursor connections spec reads its
    arguments: the items after `after` and before `before`, then the first `limit` of them (`first`, paging
    forward) or the last `limit` (`last`, paging backward, read in reverse order and turned round here)."""

    limit: int
    backward: bool
    after: Key = (None, None)
    before: Key = (None, None)

    def params(self, key: str) -> dict[str, Any]:
        """The page statements' parameters: `after<key>`, `afterId`, `before<key>`, `beforeId` and `limit` (one row
        more than the page shows, to tell whether more items lie that way)."""
        return {f"after{key}": self.after[0], "afterId": self.after[1], f"before{key}": self.before[0],
                "beforeId": self.before[1], "limit": self.limit + 1}

    def page(self, rows: Sequence[T], cursor: Callable[[T], str], total: int = 0) -> Page[T]:
        """The page of `rows` (as the statement read them, up to `limit` + 1), in the list's order. Paging backward
        `hasPreviousPage` says whether more items come before it; paging forward `hasNextPage` says whether more
        come after. The other one is false: the spec lets a server leave it so when it costs another read."""
        more = len(rows) > self.limit
        shown = list(rows[:self.limit])
        if self.backward:
            shown.reverse()
        return Page(items=[(cursor(row), row) for row in shown], has_next_page=more and not self.backward,
                    has_previous_page=more and self.backward, total_count=total)


def window(first: int | None, after: str | None, last: int | None, before: str | None, maximum: int,
           decode: Decode) -> Window:
    """A connection's window; INVALID_INPUT naming the argument for `first` with `last`, a size out of bounds
    or a cursor this API did not return."""
    if first is not None and last is not None:
        raise InvalidInput("last", "give `first` (paging forward) or `last` (paging backward), not both")
    backward = last is not None
    limit = page_size(last, maximum, "last") if backward else page_size(first, maximum)
    return Window(limit, backward, decode(after, "after"), decode(before, "before"))
