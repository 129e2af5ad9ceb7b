"""Relay cursor connections in full, over GraphQL against Neo4j: `last`/`before` page backward on documents, notes
and link connections, `hasPreviousPage` and `startCursor` say where a page stands, and the arguments the spec
leaves to the server are refused with INVALID_INPUT naming them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

DOCUMENTS = """query($first: Int, $after: String, $last: Int, $before: String) {
  documents(first: $first, after: $after, last: $last, before: $before) {
    totalCount edges { cursor node { path } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }"""
NOTES = """query($first: Int, $last: Int, $before: String) {
  notes(first: $first, last: $last, before: $before) {
    edges { cursor node { slug } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }"""
OUTGOING = """query($id: ID!, $first: Int, $last: Int, $before: String) { note(id: $id) {
  outgoing(first: $first, last: $last, before: $before) {
    totalCount edges { cursor node { ref } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }"""
SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }"

def _names(connection: dict[str, Any], field: str) -> list[str]:
    return [edge["node"][field] for edge in connection["edges"]]

def _info(connection: dict[str, Any]) -> tuple[bool, bool]:
    return connection["pageInfo"]["hasPreviousPage"], connection["pageInfo"]["hasNextPage"]

async def test_documents_page_back_with_last_and_before_across_a_page_boundary(server: RunningServer) -> None:
    for name in ("c", "e", "a", "d", "b"):
        await server.data("mutation($p: String!) { createDocument(input: {path: $p, content: \"x\"}) { id } }",
                          {"p": f"{name}.txt"})
    forward = (await server.data(DOCUMENTS, {"first": 2}))["documents"]
    assert _names(forward, "path") == ["a.txt", "b.txt"]
    assert _info(forward) == (False, True)
    assert forward["pageInfo"]["startCursor"] == forward["edges"][0]["cursor"]
    assert forward["pageInfo"]["endCursor"] == forward["edges"][-1]["cursor"]

    tail = (await server.data(DOCUMENTS, {"last": 2}))["documents"]
    assert _names(tail, "path") == ["d.txt", "e.txt"]  # the list's order, not reversed
    assert _info(tail) == (True, False) and tail["totalCount"] == 5
    middle = (await server.data(DOCUMENTS, {"last": 2, "before": tail["pageInfo"]["startCursor"]}))["documents"]
    assert _names(middle, "path") == ["b.txt", "c.txt"]
    assert _info(middle) == (True, False)
    head = (await server.data(DOCUMENTS, {"last": 2, "before": middle["pageInfo"]["startCursor"]}))["documents"]
    assert _names(head, "path") == ["a.txt"]
    assert _info(head) == (False, False)

    # Both cursors bound the list either way: after b, before e, the first two and then the last one.
    bounded = {"after": forward["pageInfo"]["endCursor"], "before": tail["edges"][-1]["cursor"]}
    between = (await server.data(DOCUMENTS, {"first": 2, **bounded}))["documents"]
    assert _names(between, "path") == ["c.txt", "d.txt"] and _info(between) == (False, False)
    nearest = (await server.data(DOCUMENTS, {"last": 1, **bounded}))["documents"]
    assert _names(nearest, "path") == ["d.txt"] and _info(nearest) == (True, False)

async def test_notes_and_link_connections_page_backward(server: RunningServer) -> None:
    for title in ("One", "Two", "Three"):
        await server.data(SAVE, {"input": {"title": title, "body": title}})
    newest_first = _names((await server.data(NOTES, {"first": 10}))["notes"], "slug")
    assert newest_first[0] == "three" and sorted(newest_first) == ["one", "three", "two"]
    oldest = (await server.data(NOTES, {"last": 2}))["notes"]
    assert _names(oldest, "slug") == newest_first[1:] and _info(oldest) == (True, False)
    rest = (await server.data(NOTES, {"last": 2, "before": oldest["pageInfo"]["startCursor"]}))["notes"]
    assert _names(rest, "slug") == newest_first[:1] and _info(rest) == (False, False)

    hub = (await server.data(SAVE, {"input": {"title": "Hub", "body": "[[Alpha]] [[Beta]] [[Gamma]] [[Delta]]"}}))
    note_id = hub["saveNote"]["note"]["id"]
    in_order = _names((await server.data(OUTGOING, {"id": note_id, "first": 10}))["note"]["outgoing"], "ref")
    assert sorted(in_order) == ["Alpha", "Beta", "Delta", "Gamma"]
    tail = (await server.data(OUTGOING, {"id": note_id, "last": 3}))["note"]["outgoing"]
    assert _names(tail, "ref") == in_order[1:] and _info(tail) == (True, False) and tail["totalCount"] == 4
    head = (await server.data(OUTGOING, {"id": note_id, "last": 3, "before": tail["pageInfo"]["startCursor"]}))
    assert _names(head["note"]["outgoing"], "ref") == in_order[:1]
    assert _info(head["note"]["outgoing"]) == (False, False)

async def _refusal(server: RunningServer, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    body = await server.graphql(query, variables)
    [error] = body["errors"]
    return dict(error)

@pytest.mark.parametrize("query", [DOCUMENTS, NOTES, OUTGOING], ids=["documents", "notes", "outgoing"])
async def test_first_with_last_and_made_up_cursors_are_invalid_input(server: RunningServer, query: str) -> None:
    note_id = (await server.data(SAVE, {"input": {"title": "Only", "body": "[[Elsewhere]]"}}))["saveNote"]["note"]["id"]
    both = await _refusal(server, query, {"id": note_id, "first": 1, "last": 1})
    assert both["extensions"] == {"code": "INVALID_INPUT", "field": "last"}
    assert "not both" in both["message"]
    forged = await _refusal(server, query, {"id": note_id, "last": 1, "before": "bm90LWEtY3Vyc29y"})
    assert forged["extensions"] == {"code": "INVALID_INPUT", "field": "before"}
    too_many = await _refusal(server, query, {"id": note_id, "last": 1000})
    assert too_many["extensions"] == {"code": "INVALID_INPUT", "field": "last"}
    assert too_many["message"] == "last: at most 100 items a page; ask for the previous page with `before`"
    none = await _refusal(server, query, {"id": note_id, "last": 0})
    assert none["extensions"] == {"code": "INVALID_INPUT", "field": "last"}


async def test_last_weighs_in_the_operation_cost_as_first_does(server: RunningServer) -> None:
    for size in ("first", "last"):
        nested = f"{{ documents({size}: 100) {{ nodes {{ backlinks({size}: 100) {{ totalCount }} }} }} }}"
        error = await _refusal(server, nested, {})
        assert error["extensions"]["code"] == "LIMIT_EXCEEDED" and error["extensions"]["cost"] == 100 + 100 * 100
