"""`saveNotes`: up to 100 notes through the save pipeline in one call, each input answered as saveNote would answer
it: a refused input is reported in its result and changes nothing, the others are saved."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE_MANY = """mutation($inputs: [NoteInput!]!) { saveNotes(inputs: $inputs) { saved failed results {
  index error { code message field }
  saved { created changed indexed linksAdded note { id slug title body
    outgoing { edges { node { isGhost to { id } } } } } } } } }"""
SAVE_ONE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id bodySha256 } } }"
COUNT = "{ notes(includeArchived: true) { totalCount } }"


async def _save_many(server: RunningServer, inputs: list[dict[str, Any]]) -> dict[str, Any]:
    payload: dict[str, Any] = (await server.data(SAVE_MANY, {"inputs": inputs}))["saveNotes"]
    return payload


async def _count(server: RunningServer) -> int:
    total: int = (await server.data(COUNT))["notes"]["totalCount"]
    return total


async def test_a_batch_saves_in_order_and_reports_each_refusal(server: RunningServer) -> None:
    payload = await _save_many(server, [
        {"title": "Alpha", "body": "Alpha links to [[Beta]] and [[Nobody]]."},
        {"title": "  ", "body": "no title"},
        {"title": "Beta", "body": "Beta links back to [[Alpha]]. #batch"},
        {"title": "Alpha", "body": "the same slug again"},
        {"title": "Gamma", "kind": "x" * 41},
    ])
    results = payload["results"]
    assert [r["index"] for r in results] == [0, 1, 2, 3, 4]
    assert (payload["saved"], payload["failed"]) == (2, 3)
    alpha, beta = results[0]["saved"], results[2]["saved"]
    assert (alpha["created"], alpha["indexed"], beta["created"], beta["indexed"]) == (True, True, True, True)
    # Beta came later in the batch and still bound Alpha's ghost, as one save after another would.
    read = await server.data('query($id: ID!) { note(id: $id) { outgoing { edges { node { isGhost to { id } } } } } }',
                             {"id": alpha["note"]["id"]})
    targets = sorted((e["node"]["to"] or {}).get("id") or "ghost" for e in read["note"]["outgoing"]["edges"])
    assert targets == sorted([beta["note"]["id"], "ghost"])
    assert [e["node"]["to"]["id"] for e in beta["note"]["outgoing"]["edges"]] == [alpha["note"]["id"]]
    assert results[1]["saved"] is None and results[1]["error"]["code"] == "INVALID_INPUT"
    assert results[1]["error"]["field"] == "title"
    assert results[3]["error"]["code"] == "CONFLICT" and "alpha" in results[3]["error"]["message"]
    assert results[4]["error"] == {"code": "INVALID_INPUT", "field": "kind",
                                   "message": results[4]["error"]["message"]}
    assert await _count(server) == 2  # the refused inputs wrote nothing
    hits = await server.data('{ search(query: "Beta links back", mode: VECTOR) { item { id } } }')
    assert beta["note"]["id"] in [h["item"]["id"] for h in hits["search"]]


async def test_each_input_gets_the_error_save_note_gives(server: RunningServer) -> None:
    stored = (await server.data(SAVE_ONE, {"input": {"title": "Kept", "body": "v1"}}))["saveNote"]["note"]
    bad = [
        {"id": "note_missing", "title": "Ghost", "body": "x"},
        {"id": stored["id"], "title": "Kept", "body": "v2", "ifBodySha256": "0" * 64},
        {"id": stored["id"], "title": "Kept"},
        {"title": "Kept", "body": "a second note of that slug"},
    ]
    singles = []
    for input in bad:
        [error] = (await server.graphql(SAVE_ONE, {"input": input}))["errors"]
        singles.append((error["extensions"]["code"], error["message"]))
    batch = await _save_many(server, bad)
    assert [(r["error"]["code"], r["error"]["message"]) for r in batch["results"]] == singles
    assert [code for code, _ in singles] == ["NOT_FOUND", "CONFLICT", "INVALID_INPUT", "CONFLICT"]
    assert batch["saved"] == 0 and await _count(server) == 1
    kept = await server.data('query($id: ID!) { note(id: $id) { body } }', {"id": stored["id"]})
    assert kept["note"]["body"] == "v1"


async def test_more_than_a_hundred_inputs_are_refused_whole(server: RunningServer) -> None:
    inputs = [{"title": f"Note {n}", "body": f"body {n}"} for n in range(101)]
    answer = await server.graphql(SAVE_MANY, {"inputs": inputs})
    [error] = answer["errors"]
    assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "field": "inputs", "limit": 100}
    assert "100" in error["message"]
    assert await _count(server) == 0
    full = await _save_many(server, inputs[:100])
    assert (full["saved"], full["failed"]) == (100, 0) and await _count(server) == 100
