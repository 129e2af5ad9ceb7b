"""Meetings: `ingestMeeting` makes one note of kind meeting per date and title, with one ATTENDED edge per
attendee that binds exactly (email, or the exact name of a person note) or waits on a ghost of the name."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

INGEST = """
mutation($input: MeetingInput!) { ingestMeeting(input: $input) {
  id slug title kind noteDate body
  outgoing(types: ["ATTENDED"]) { edges { node { type ref key origin isGhost to { id } } } } } }"""
SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }"
ATTENDEES = """query($id: ID!) { note(id: $id) { outgoing(types: ["ATTENDED"]) { edges { node {
  ref isGhost to { id } } } } } }"""
BACKLINKS = """query($id: ID!) { note(id: $id) { backlinks(types: ["ATTENDED"]) { totalCount edges { node {
  from { id } } } } } }"""


async def _attendees(server: RunningServer, note_id: str) -> dict[str, str | None]:
    """ref → the id of the note it binds to (None: a ghost)."""
    data = await server.data(ATTENDEES, {"id": note_id})
    edges = [e["node"] for e in data["note"]["outgoing"]["edges"]]
    return {e["ref"]: (e["to"] or {}).get("id") for e in edges}


def _meeting(title: str, day: str, *people: dict[str, Any], body: str = "") -> dict[str, Any]:
    return {"input": {"title": title, "date": day, "attendees": list(people), "body": body}}


async def _person(server: RunningServer, title: str, props: str = "") -> str:
    body = f"---\nkind: person\n{props}---\n" if props else "---\nkind: person\n---\n"
    note_id: str = (await server.data(SAVE, {"input": {"title": title, "body": body}}))["saveNote"]["note"]["id"]
    return note_id


async def test_attendees_bind_exactly_or_wait_on_a_ghost_and_bind_later(server: RunningServer) -> None:
    ada = await _person(server, "Ada Lovelace")
    grace = await _person(server, "G. Hopper", "email: grace@navy.mil\n")
    await server.data(SAVE, {"input": {"title": "Alan Turing", "body": "an ordinary note, not a person"}})
    meeting = (await server.data(INGEST, _meeting(
        "Weekly sync", "2026-11-30", {"name": "ada lovelace"}, {"name": "Grace", "email": "Grace@Navy.mil"},
        {"name": "Ada"}, {"name": "Alan Turing"}, {"name": "Charles Babbage"}, body="We met. [[Plan]]",
    )))["ingestMeeting"]
    assert (meeting["slug"], meeting["kind"], meeting["noteDate"]) == ("meetings/2026-11-30-weekly-sync", "meeting",
                                                                        "2026-11-30")
    assert meeting["body"].startswith("---\n") and "We met. [[Plan]]" in meeting["body"]
    edges = {e["node"]["ref"]: e["node"] for e in meeting["outgoing"]["edges"]}
    assert {ref: (e["to"] or {}).get("id") for ref, e in edges.items()} == {
        "ada lovelace": ada, "Grace": grace,  # exact name; email
        "Ada": None,  # a partial name never binds
        "Alan Turing": None,  # a note of that name that is not a person
        "Charles Babbage": None,
    }
    assert edges["Charles Babbage"]["key"] == "charles-babbage" and edges["Charles Babbage"]["isGhost"] is True
    assert {e["type"] for e in edges.values()} == {"ATTENDED"} and edges["Grace"]["origin"] == "USER"

    # A second meeting with Babbage; then his person note appears and binds both, the partial "Ada" still nothing.
    other = (await server.data(INGEST, _meeting("Retro", "2026-12-01", {"name": "Charles Babbage"})))["ingestMeeting"]
    babbage = await _person(server, "Charles Babbage")
    assert (await _attendees(server, meeting["id"]))["Charles Babbage"] == babbage
    assert await _attendees(server, other["id"]) == {"Charles Babbage": babbage}
    back = (await server.data(BACKLINKS, {"id": babbage}))["note"]["backlinks"]
    assert back["totalCount"] == 2
    # The ordinary note becoming a person binds its meetings too.
    turing = (await server.data('{ note(slug: "alan-turing") { id } }'))["note"]["id"]
    await server.data('mutation($id: ID!) { updateNote(id: $id, input: {kind: "person"}) { kind } }', {"id": turing})
    after = await _attendees(server, meeting["id"])
    assert (after["Alan Turing"], after["Ada"]) == (turing, None)


async def test_ingesting_again_updates_the_one_note_and_its_attendees(server: RunningServer) -> None:
    ada = await _person(server, "Ada Lovelace")
    first = (await server.data(INGEST, _meeting("Plan / Review", "2026-06-09", {"name": "Ada Lovelace"},
                                                {"name": "Bob"}, body="v1")))["ingestMeeting"]
    assert first["slug"] == "meetings/2026-06-09-plan-review"
    again = (await server.data(INGEST, _meeting("Plan / Review", "2026-06-09", {"name": "Ada Lovelace"},
                                                {"name": "Cy"}, {"name": "ada lovelace"},
                                                body="v2")))["ingestMeeting"]
    assert again["id"] == first["id"] and "v2" in again["body"] and "v1" not in again["body"]
    assert await _attendees(server, first["id"]) == {"Ada Lovelace": ada, "Cy": None}  # Bob gone, Ada once
    listed = await server.data('{ notes(kind: "meeting") { totalCount } }')
    assert listed["notes"]["totalCount"] == 1
    # The ghost Bob's edge left has gone with it: no ghost lists a backlink from the meeting.
    ghosts = await server.data("{ ghosts { ref } }")
    assert "bob" not in {g["ref"].casefold() for g in ghosts["ghosts"]}
    # The attendees are a front-matter property too: a property query finds the meeting by one of them.
    found = await server.data('{ notes(where: {property: "attendees", op: "eq", value: "Cy"}) { totalCount } }')
    assert found["notes"]["totalCount"] == 1


@pytest.mark.parametrize(("variables", "field"), [
    (_meeting(" ", "2026-01-01"), "title"),
    (_meeting("M", "1899-12-31"), "date"),
    (_meeting("M", "2026-01-01", {"name": "ok"}, {"name": " "}), "attendees[1].name"),
    (_meeting("M", "2026-01-01", {"name": "---"}), "attendees[0].name"),
    (_meeting("M", "2026-01-01", {"name": "Ada", "email": "not-an-email"}), "attendees[0].email"),
    (_meeting("M", "2026-01-01", *({"name": f"p{i}"} for i in range(101))), "attendees"),
    (_meeting("M", "2026-01-01", body="---\n: [\n---\n"), "body"),
])
async def test_bad_meetings_name_the_field_and_write_nothing(server: RunningServer, variables: dict[str, Any],
                                                             field: str) -> None:
    body = await server.graphql(INGEST, variables)
    assert body["data"] is None, body
    assert body["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
    assert body["errors"][0]["extensions"]["field"] == field
    assert (await server.data("{ notes { totalCount } }"))["notes"]["totalCount"] == 0
