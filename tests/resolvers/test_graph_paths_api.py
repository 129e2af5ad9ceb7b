"""The explorer's local graph and shortest path over real HTTP (issue 26): `graph(center:)` follows a direction and
link types as `traverse` does, and `shortestPath` finds one shortest path in one query, bounded, through what the
caller may see, never through a ghost, archived or deleted item."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }"
LINK = "mutation($i: LinkInput!) { createLink(input: $i) { id } }"
PATH = """query($from: ID!, $to: ID!, $max: Int! = 5, $dir: Direction! = BOTH, $types: [String!]) {
  shortestPath(from: $from, to: $to, maxHops: $max, direction: $dir, linkTypes: $types) {
    length nodes { id title } links { id type from { id } to { id } }
  }
}"""
LOCAL = """query($c: ID!, $hops: Int!, $dir: Direction!, $types: [String!]) {
  graph(center: $c, hops: $hops, direction: $dir, linkTypes: $types) { nodes { title } }
}"""


async def note(server: RunningServer, title: str, body: str = "", **extra: Any) -> str:
    data = await server.data(SAVE, {"input": {"title": title, "body": body, **extra}})
    return str(data["saveNote"]["note"]["id"])


async def chain(server: RunningServer) -> dict[str, str]:
    """A -> B -> C -> D by wikilinks, and a DEPENDS_ON shortcut A -> D made by hand."""
    ids = {"D": await note(server, "D")}
    ids["C"] = await note(server, "C", "to [[D]]")
    ids["B"] = await note(server, "B", "to [[C]]")
    ids["A"] = await note(server, "A", "to [[B]]")
    return ids


def titles(path: dict[str, Any]) -> list[str]:
    return [n["title"] for n in path["nodes"]]


async def test_shortest_path_takes_the_fewest_links_and_says_how_each_points(server: RunningServer) -> None:
    ids = await chain(server)
    found = (await server.data(PATH, {"from": ids["A"], "to": ids["D"]}))["shortestPath"]
    assert titles(found) == ["A", "B", "C", "D"] and found["length"] == 3
    assert [(link["from"]["id"], link["to"]["id"]) for link in found["links"]] == [
        (ids["A"], ids["B"]), (ids["B"], ids["C"]), (ids["C"], ids["D"])]
    # Backwards along the same links: BOTH finds it, OUT does not.
    back = (await server.data(PATH, {"from": ids["D"], "to": ids["A"]}))["shortestPath"]
    assert titles(back) == ["D", "C", "B", "A"]
    assert (await server.data(PATH, {"from": ids["D"], "to": ids["A"], "dir": "OUT"}))["shortestPath"] is None
    # Too short a bound: no path, not an error.
    assert (await server.data(PATH, {"from": ids["A"], "to": ids["D"], "max": 2}))["shortestPath"] is None

    shortcut = await server.data(LINK, {"i": {"from": ids["A"], "to": ids["D"], "type": "DEPENDS_ON"}})
    direct = (await server.data(PATH, {"from": ids["A"], "to": ids["D"]}))["shortestPath"]
    assert titles(direct) == ["A", "D"] and direct["links"][0]["id"] == shortcut["createLink"]["id"]
    # Only wikilinks: the long way again.
    only = (await server.data(PATH, {"from": ids["A"], "to": ids["D"], "types": ["WIKILINK"]}))["shortestPath"]
    assert titles(only) == ["A", "B", "C", "D"]
    same = (await server.data(PATH, {"from": ids["B"], "to": ids["B"]}))["shortestPath"]
    assert same == {"length": 0, "nodes": [{"id": ids["B"], "title": "B"}], "links": []}


async def test_shortest_path_never_goes_through_a_ghost_or_an_archived_note(server: RunningServer) -> None:
    left = await note(server, "Left", "to [[Nowhere]]")
    right = await note(server, "Right", "to [[Nowhere]]")  # both point at one ghost: no path through it
    assert (await server.data(PATH, {"from": left, "to": right}))["shortestPath"] is None
    middle = await note(server, "Middle", "between [[Left]] and [[Right]]")
    assert titles((await server.data(PATH, {"from": left, "to": right}))["shortestPath"]) == ["Left", "Middle", "Right"]
    await server.data("mutation($id: ID!) { archiveNote(id: $id) { id } }", {"id": middle})
    assert (await server.data(PATH, {"from": left, "to": right}))["shortestPath"] is None


async def test_shortest_path_refuses_bad_input_and_unknown_ends(server: RunningServer) -> None:
    ids = await chain(server)
    for variables, field, code in [
        ({"from": ids["A"], "to": ids["D"], "max": 6}, "maxHops", "INVALID_INPUT"),
        ({"from": ids["A"], "to": ids["D"], "max": 0}, "maxHops", "INVALID_INPUT"),
        ({"from": ids["A"], "to": ids["D"], "types": ["not a type"]}, "linkTypes", "INVALID_INPUT"),
        ({"from": "note_missing", "to": ids["D"]}, "from", "NOT_FOUND"),
        ({"from": ids["A"], "to": "note_missing"}, "to", "NOT_FOUND"),
    ]:
        body = await server.graphql(PATH, variables)
        assert (body["data"] or {}).get("shortestPath") is None, body  # a nullable field: null, with the error
        [error] = body["errors"]
        assert (error["extensions"]["code"], error["extensions"].get("field")) == (code, field), body


async def test_shortest_path_stays_in_the_callers_tenant(server: RunningServer, tenant: str) -> None:
    ids = await chain(server)
    other = {"X-Vaultgraph-Tenant": f"{tenant}-other"}
    body = await server.graphql(PATH, {"from": ids["A"], "to": ids["D"]}, other)
    assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND", body


async def test_local_graph_follows_direction_and_link_types(server: RunningServer) -> None:
    ids = await chain(server)
    await server.data(LINK, {"i": {"from": ids["B"], "to": ids["D"], "type": "DEPENDS_ON"}})

    async def local(center: str, hops: int, direction: str, types: list[str] | None = None) -> list[str]:
        data = await server.data(LOCAL, {"c": ids[center], "hops": hops, "dir": direction, "types": types})
        return sorted(n["title"] for n in data["graph"]["nodes"])

    assert await local("B", 1, "BOTH") == ["A", "B", "C", "D"]
    assert await local("B", 1, "OUT") == ["B", "C", "D"]
    assert await local("B", 1, "IN") == ["A", "B"]
    assert await local("B", 1, "OUT", ["WIKILINK"]) == ["B", "C"]
    assert await local("A", 2, "OUT", ["WIKILINK"]) == ["A", "B", "C"]
    body = await server.graphql(LOCAL, {"c": ids["A"], "hops": 1, "dir": "OUT", "types": ["bad type"]})
    assert body["errors"][0]["extensions"] == {"code": "INVALID_INPUT", "field": "linkTypes"}, body
