"""Daily notes: `dailyNote(day:)` reads or lazily creates `daily/YYYY-MM-DD`; `captureNote(day:)` appends to it."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

DAILY = "query($day: Date!) { dailyNote(day: $day) { id slug title kind noteDate body scope } }"
CAPTURE = "mutation($text: String!, $day: Date) { captureNote(text: $text, day: $day) { id slug body } }"
DAILIES = '{ notes(kind: "daily") { totalCount edges { node { slug } } } }'


async def test_daily_note_is_created_once_from_the_template_then_read(server: RunningServer) -> None:
    # Eight first calls at once: one note, every call answers it.
    answers = await asyncio.gather(*(server.data(DAILY, {"day": "2026-03-04"}) for _ in range(8)))
    notes = [a["dailyNote"] for a in answers]
    assert len({n["id"] for n in notes}) == 1
    assert notes[0] == {"id": notes[0]["id"], "slug": "daily/2026-03-04", "title": "2026-03-04", "kind": "daily",
                        "noteDate": "2026-03-04", "body": "# 2026-03-04\n", "scope": "SHARED"}
    listed = (await server.data(DAILIES))["notes"]
    assert listed["totalCount"] == 1
    # An agent sees the shared day and uses it; another day it makes in its own space.
    alice = {"X-Vaultgraph-Agent": "alice"}
    assert (await server.data(DAILY, {"day": "2026-03-04"}, alice))["dailyNote"]["id"] == notes[0]["id"]
    own = (await server.data(DAILY, {"day": "2026-03-05"}, alice))["dailyNote"]
    assert own["scope"] == "PERSONAL"
    assert (await server.data(DAILIES))["notes"]["totalCount"] == 2


async def test_capture_appends_to_another_days_note(server: RunningServer) -> None:
    texts = [f"thought {i} about [[Plan]] #idea" for i in range(4)]
    captured = await asyncio.gather(*(server.data(CAPTURE, {"text": t, "day": "2025-12-24"}) for t in texts))
    assert len({c["captureNote"]["id"] for c in captured}) == 1
    note = (await server.data(DAILY, {"day": "2025-12-24"}))["dailyNote"]
    assert note["body"].startswith("# 2025-12-24\n")
    assert all(f"{t}\n" in note["body"] for t in texts), note["body"]  # no capture lost to a race
    links = await server.data('query($id: ID!) { note(id: $id) { tags outgoing { edges { node { ref } } } } }',
                              {"id": note["id"]})
    assert links["note"]["tags"] == ["idea"]
    assert [e["node"]["ref"] for e in links["note"]["outgoing"]["edges"]] == ["Plan"]
    today = (await server.data('mutation { captureNote(text: "now") { slug } }'))["captureNote"]
    assert today["slug"].startswith("daily/20")


@pytest.mark.parametrize("day", ["1899-12-31", "2201-01-01", "0001-01-01"])
async def test_a_day_outside_1900_to_2200_is_refused_and_writes_nothing(server: RunningServer, day: str) -> None:
    for query, variables in ((DAILY, {"day": day}), (CAPTURE, {"text": "x", "day": day})):
        body = await server.graphql(query, variables)
        assert body["data"] is None
        assert body["errors"][0]["extensions"] == {"code": "INVALID_INPUT", "field": "day"}
    assert (await server.data(DAILIES))["notes"]["totalCount"] == 0
