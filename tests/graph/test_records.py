"""graph/records.py's conversions that take shortcuts must answer as the plain way does."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from vaultgraph.domain import LinkOrigin, Owner, Scope
from vaultgraph.graph.records import link_from_record, owner_from_node, to_datetime

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


def test_a_links_origin_reads_as_stored_and_user_when_absent() -> None:
    rel = {"id": "lnk_1", "type": "RELATED", "sourceId": "note_a", "targetId": None, "ref": "b",
           "createdAt": 1_765_000_000_000_000}
    assert link_from_record(rel).origin is LinkOrigin.USER
    assert link_from_record({**rel, "origin": ""}).origin is LinkOrigin.USER
    for origin in LinkOrigin:
        assert link_from_record({**rel, "origin": origin.value}).origin is origin
    with pytest.raises(ValueError):  # an origin the domain does not know
        link_from_record({**rel, "origin": "martian"})
