"""graph/records.py's conversions and the page cursor, where they take shortcuts, must answer as the plain way does."""

from __future__ import annotations

import base64
import random
from datetime import UTC, datetime, timedelta

import pytest

from vaultgraph.domain import LinkOrigin, Owner, Scope
from vaultgraph.graph.records import link_from_record, owner_from_node, to_datetime
from vaultgraph.services.pagination import decode_cursor, encode_cursor

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def test_a_projections_microseconds_read_as_the_exact_instant() -> None:
    """Below 2**32 seconds the float shortcut is taken; every value must still be the microsecond it stored, and
    the values around and past the bound, and before the epoch, too."""
    bound = 2**32 * 1_000_000
    rng = random.Random(25)
    values = [0, 1, 999_999, 1_765_000_000_123_457, bound - 1, bound, bound + 1, -1, -1_000_001,
              253_402_300_799_999_999, *(rng.randrange(0, bound) for _ in range(20_000))]
    for value in values:
        expected = _EPOCH + timedelta(microseconds=value)
        got = to_datetime(value)
        assert got == expected and got.tzinfo is expected.tzinfo, value


def test_owners_are_shared_and_still_checked() -> None:
    node = {"scope": "personal", "agentId": "a1", "teamId": None}
    assert owner_from_node(node) == Owner(Scope.PERSONAL, "a1", None)
    assert owner_from_node(dict(node)) is owner_from_node(node)  # one per place: an Owner is immutable
    with pytest.raises(ValueError):  # a scope the domain does not know
        owner_from_node({"scope": "everyone"})
    # Values of other types read as they are, as before the owners were shared: an unhashable one is made, not
    # shared, and equal keys of different types (True and 1) are different owners.
    assert owner_from_node({"scope": "personal", "agentId": ["a"]}).agent_id == ["a"]
    assert owner_from_node({"scope": "personal", "agentId": True}).agent_id is True
    assert type(owner_from_node({"scope": "personal", "agentId": 1}).agent_id) is int


def test_a_links_origin_reads_as_stored_and_user_when_absent() -> None:
    rel = {"id": "lnk_1", "type": "RELATED", "sourceId": "note_a", "targetId": None, "ref": "b",
           "createdAt": 1_765_000_000_000_000}
    assert link_from_record(rel).origin is LinkOrigin.USER
    for empty in ("", [], {}):  # as `LinkOrigin(origin or "user")` always read them
        assert link_from_record({**rel, "origin": empty}).origin is LinkOrigin.USER
    for origin in LinkOrigin:
        assert link_from_record({**rel, "origin": origin.value}).origin is origin
    for unknown in ("martian", ["user"]):  # refused as before, with the same error
        with pytest.raises(ValueError):
            link_from_record({**rel, "origin": unknown})


def test_cursors_read_back_whatever_their_keys() -> None:
    """orjson writes the cursor; a key it refuses (a lone surrogate) is written by the stdlib, as before."""
    for key in (("2026-12-06T08:51:36.307000+00:00", "lnk_1"), ("naïve/ü ☃ 😀.md", "doc_1"), ("a\ud800b", "x"),
                ("\x7f\x00\n", "y"), ("at", "3")):
        assert decode_cursor(encode_cursor(*key), 2) == list(key)
    # an ASCII keyset's cursor is the very string the stdlib's encoder made
    assert encode_cursor("at", "3") == base64.urlsafe_b64encode(b'["at","3"]').decode()
