"""`note(slug)` with its link connections, and a page of notes with their counts, read in one transaction, over
real HTTP: the answers are the ones the same selection gets through `node(id:)` (whose connections load the usual
way, one DataLoader batch each), whatever the arguments, aliases, fragments and variables."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id slug } } }"

CONNECTIONS = """
  title
  backlinks(first: $first) { totalCount edges { cursor node { id type ref context from { id title } } }
                             pageInfo { hasNextPage endCursor } }
  countOnly: backlinks(types: $types) { totalCount }
  outgoing(first: 2, after: $after) { edges { node { ref isGhost to { ... on Note { slug } } } }
                                      pageInfo { hasNextPage } }
  ... on Note { more: outgoing(types: "WIKILINK") { totalCount nodes { ref } } }
  ...Extra
"""

FRAGMENT = "fragment Extra on Note { backlinks(first: $first) { pageInfo { endCursor } } }"

BY_SLUG = ("query($slug: String!, $first: Int, $types: [String!], $after: String) { note(slug: $slug) {"
           + CONNECTIONS + "} }\n" + FRAGMENT)
BY_ID = ("query($id: ID!, $first: Int, $types: [String!], $after: String) { node(id: $id) { ... on Note {"
         + CONNECTIONS + "} } }\n" + FRAGMENT)


async def _seed(server: RunningServer) -> dict[str, str]:
    ids = {}
    for title in ("Hub", "Other"):
        ids[title] = (await server.data(SAVE, {"input": {"title": title, "body": "plain"}}))["saveNote"]["note"]["id"]
    for i in range(6):
        body = f"see [[Hub]], [[Other]], [[Nowhere {i}]] and [[n{i - 1}]]" if i else "see [[Hub]] and [[Gone]]"
        note = (await server.data(SAVE, {"input": {"title": f"n{i}", "body": body}}))["saveNote"]["note"]
        ids[f"n{i}"] = note["id"]
    return ids


async def _counted(server: RunningServer, query: str, variables: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The transactions one request runs, and its data. The counter is the server's (`Graph.transactions`), which
    the save hooks that run after a save and the workers' steps also move (a step gives way to requests, so it
    lands between them): the request is asked until one run of it is alone, or nine times more, and the fewest
    transactions count."""
    graph = server.app.state.graph
    counts = []
    for _ in range(10):
        before = graph.transactions
        answer = await server.data(query, variables)
        counts.append(graph.transactions - before)
        if counts[-1] <= 1:
            break
        await asyncio.sleep(0.5)
    return min(counts), answer


async def test_a_note_and_its_connections_in_one_transaction_answer_as_the_usual_way(server: RunningServer) -> None:
    ids = await _seed(server)
    cases: list[dict[str, Any]] = [
        {"first": None, "types": None, "after": None},
        {"first": 2, "types": ["wikilink"], "after": None},
        {"first": 1, "types": [], "after": None},
    ]
    for slug, title in (("hub", "Hub"), ("n3", "n3"), ("n0", "n0")):
        for variables in cases:
            used, answer = await _counted(server, BY_SLUG, {"slug": slug, **variables})
            by_slug = answer["note"]
            by_id = (await server.data(BY_ID, {"id": ids[title], **variables}))["node"]
            assert by_slug == by_id
            assert used == 1, used
    hub = (await server.data(BY_SLUG, {"slug": "hub", "first": 2}))["note"]
    assert hub["backlinks"]["totalCount"] == 6 and len(hub["backlinks"]["edges"]) == 2
    assert hub["backlinks"]["pageInfo"]["hasNextPage"] is True
    cursor = hub["backlinks"]["pageInfo"]["endCursor"]
    second = (await server.data(
        'query($c: String) { note(slug: "hub") { backlinks(first: 2, after: $c) { edges { node { id } } } } }',
        {"c": cursor}))["note"]["backlinks"]["edges"]
    usual = (await server.data(
        'query($id: ID!, $c: String) { node(id: $id) { ... on Note { backlinks(first: 2, after: $c) { '
        'edges { node { id } } } } } }', {"id": ids["Hub"], "c": cursor}))["node"]["backlinks"]["edges"]
    assert second == usual and len(second) == 2


async def test_errors_stay_where_they_were(server: RunningServer) -> None:
    ids = await _seed(server)
    missing = await server.graphql('{ note(slug: "nobody") { backlinks { totalCount } } }')
    assert missing["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    for selection in ('title backlinks(first: 0) { totalCount edges { cursor } } outgoing { totalCount }',
                      'backlinks(after: "nope") { edges { cursor } }', 'outgoing(types: ["no such"]) { totalCount }'):
        by_slug = await server.graphql(f'{{ note(slug: "hub") {{ {selection} }} }}')
        usual = await server.graphql(f'{{ note: node(id: "{ids["Hub"]}") {{ ... on Note {{ {selection} }} }} }}')
        assert by_slug["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
        assert by_slug["data"] == usual["data"]
        assert [(e["message"], e.get("path")) for e in by_slug["errors"]] == \
            [(e["message"], e.get("path")) for e in usual["errors"]]


async def test_a_page_of_notes_with_counts_is_one_transaction(server: RunningServer) -> None:
    ids = await _seed(server)
    query = """{ notes(first: 5) { totalCount pageInfo { hasNextPage }
        edges { node { id title backlinks { totalCount } outgoing(first: 1) { totalCount edges { node { ref } } } } }
        nodes { id b: backlinks { totalCount } } } }"""
    used, answer = await _counted(server, query, {})
    page = answer["notes"]
    assert used == 1, used
    assert page["totalCount"] == len(ids) and page["pageInfo"]["hasNextPage"] is True
    for edge, node in zip(page["edges"], page["nodes"], strict=True):
        usual = (await server.data(
            'query($id: ID!) { node(id: $id) { ... on Note { id title backlinks { totalCount } '
            'outgoing(first: 1) { totalCount edges { node { ref } } } } } }', {"id": edge["node"]["id"]}))["node"]
        assert edge["node"] == usual
        assert node == {"id": usual["id"], "b": usual["backlinks"]}
