"""Bases-style property queries: `notes(where:, orderBy:)` over front matter and note fields, over real HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id slug } } }"
QUERY = """
query($where: NoteWhere, $order: [NoteOrder!], $first: Int, $after: String) {
  notes(where: $where, orderBy: $order, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { node { slug } } }
}"""


def _note(title: str, props: str, body: str = "") -> dict[str, Any]:
    return {"title": title, "body": f"---\n{props}\n---\n{body}" if props else body}


async def _slugs(server: RunningServer, where: dict[str, Any] | None = None,
                 order: list[dict[str, Any]] | None = None, **more: Any) -> list[str]:
    data = await server.data(QUERY, {"where": where, "order": order, **more})
    return [edge["node"]["slug"] for edge in data["notes"]["edges"]]


async def _error(server: RunningServer, where: Any = None, order: Any = None) -> dict[str, Any]:
    body = await server.graphql(QUERY, {"where": where, "order": order})
    assert body["data"] is None, body
    error: dict[str, Any] = body["errors"][0]
    return error


@pytest.fixture
async def vault(server: RunningServer) -> RunningServer:
    for note in (
        _note("Alpha", "status: done\npriority: 3\ndue: 2026-01-10\nauthors: [ada, bob]\nkind: project", "#work"),
        _note("Beta", "status: open\npriority: 1.5\ndue: 2026-03-01\nauthors: [bob]\nkind: project"),
        _note("Gamma", "status: open\npriority: 7\nkind: meeting\ndate: 2026-02-02", "#work #later"),
        _note("Delta", "", "no properties at all"),
    ):
        await server.data(SAVE, {"input": note})
    return server


async def test_equality_in_ranges_exists_and_lists(vault: RunningServer) -> None:
    s = vault
    assert sorted(await _slugs(s, {"property": "status", "op": "eq", "value": "open"})) == ["beta", "gamma"]
    assert sorted(await _slugs(s, {"property": "status", "op": "in", "value": ["done", "x"]})) == ["alpha"]
    assert sorted(await _slugs(s, {"property": "status", "op": "ne", "value": "open"})) == ["alpha", "delta"]
    # Numbers compare as numbers (1.5 < 3 < 7, an int and a float alike); ISO dates in front matter as text.
    assert sorted(await _slugs(s, {"and": [{"property": "priority", "op": "gte", "value": 1.5},
                                           {"property": "priority", "op": "lt", "value": 7}]})) == ["alpha", "beta"]
    assert await _slugs(s, {"property": "due", "op": "gt", "value": "2026-02-01"}) == ["beta"]
    assert sorted(await _slugs(s, {"property": "due", "op": "missing"})) == ["delta", "gamma"]
    assert sorted(await _slugs(s, {"property": "authors", "op": "exists"})) == ["alpha", "beta"]
    assert sorted(await _slugs(s, {"property": "authors", "op": "eq", "value": "bob"})) == ["alpha", "beta"]
    assert await _slugs(s, {"property": "authors", "op": "in", "value": ["ada"]}) == ["alpha"]
    # Note fields: kind (set by the front matter), tag, the note's date, and groups of them.
    assert await _slugs(s, {"field": "KIND", "op": "eq", "value": "meeting"}) == ["gamma"]
    assert sorted(await _slugs(s, {"field": "TAG", "op": "eq", "value": "work"})) == ["alpha", "gamma"]
    assert await _slugs(s, {"field": "NOTE_DATE", "op": "gte", "value": "2026-02-01"}) == ["gamma"]
    assert sorted(await _slugs(s, {"or": [{"field": "TAG", "op": "eq", "value": "later"},
                                          {"not": {"property": "status", "op": "exists"}}]})) == ["delta", "gamma"]
    assert await _slugs(s, {"field": "PINNED", "op": "eq", "value": True}) == []


async def test_sort_by_any_property_with_nulls_last_and_pages(vault: RunningServer) -> None:
    s = vault
    assert await _slugs(s, order=[{"property": "priority"}]) == ["beta", "alpha", "gamma", "delta"]
    assert await _slugs(s, order=[{"property": "priority", "direction": "DESC"}]) == [
        "gamma", "alpha", "beta", "delta"]
    assert await _slugs(s, order=[{"property": "status"}, {"field": "TITLE", "direction": "DESC"}]) == [
        "alpha", "gamma", "beta", "delta"]
    first = (await s.data(QUERY, {"order": [{"property": "priority"}], "first": 3}))["notes"]
    assert first["totalCount"] == 4 and first["pageInfo"]["hasNextPage"] is True
    rest = await _slugs(s, order=[{"property": "priority"}], first=3, after=first["pageInfo"]["endCursor"])
    assert [e["node"]["slug"] for e in first["edges"]] + rest == ["beta", "alpha", "gamma", "delta"]


async def test_a_property_name_is_data_and_properties_follow_the_body(vault: RunningServer) -> None:
    s = vault
    hostile = "x`] DETACH DELETE n //"
    assert await _slugs(s, {"property": hostile, "op": "exists"}) == []
    assert len(await _slugs(s, {"property": "status", "op": "exists"})) == 3  # nothing was touched
    odd = (await s.data(SAVE, {"input": _note("Odd", f'"{hostile}": 1\n"a.b c": true')}))["saveNote"]["note"]
    assert await _slugs(s, {"property": hostile, "op": "eq", "value": 1}) == ["odd"]
    assert await _slugs(s, {"property": "a.b c", "op": "eq", "value": True}) == ["odd"]
    # A property the body no longer has is gone from queries too; one that changed shape is found by its new one.
    await s.data(SAVE, {"input": {"id": odd["id"], **_note("Odd", '"a.b c": [1, 2.5]')}})
    assert await _slugs(s, {"property": hostile, "op": "exists"}) == []
    assert await _slugs(s, {"property": "a.b c", "op": "eq", "value": 2.5}) == ["odd"]
    assert await _slugs(s, {"property": "a.b c", "op": "eq", "value": True}) == []


async def test_queries_see_only_the_callers_scopes(server: RunningServer) -> None:
    alice = {"X-Vaultgraph-Agent": "alice"}
    await server.data(SAVE, {"input": {**_note("Mine", "status: open"), "scope": "PERSONAL", "agentId": "alice"}},
                      alice)
    await server.data(SAVE, {"input": _note("Ours", "status: open")})
    where = {"property": "status", "op": "eq", "value": "open"}
    bob = await server.data(QUERY, {"where": where}, {"X-Vaultgraph-Agent": "bob"})
    assert [e["node"]["slug"] for e in bob["notes"]["edges"]] == ["ours"]
    assert sorted(e["node"]["slug"] for e in (await server.data(QUERY, {"where": where}, alice))["notes"]["edges"]) \
        == ["mine", "ours"]


async def test_bad_queries_name_the_part_at_fault(server: RunningServer) -> None:
    def code_field(error: dict[str, Any]) -> tuple[str, str]:
        return error["extensions"]["code"], error["extensions"]["field"]

    leaf = {"property": "p", "op": "eq", "value": 1}
    unknown = await _error(server, {"and": [leaf, {"property": "p", "op": "like", "value": "x"}]})
    assert code_field(unknown) == ("INVALID_INPUT", "where.and[1].op") and "eq" in unknown["message"]
    deep: dict[str, Any] = leaf
    for _ in range(5):
        deep = {"not": deep}
    assert code_field(await _error(server, deep)) == ("INVALID_INPUT", "where")
    assert code_field(await _error(server, {"or": [leaf] * 21})) == ("INVALID_INPUT", "where")
    assert code_field(await _error(server, {"property": "p", "op": "in", "value": "x"})) == (
        "INVALID_INPUT", "where.value")
    assert code_field(await _error(server, {"field": "TAG", "op": "gt", "value": "a"})) == (
        "INVALID_INPUT", "where.op")
    assert code_field(await _error(server, {"field": "NOTE_DATE", "op": "gt", "value": "soon"})) == (
        "INVALID_INPUT", "where.value")
    assert code_field(await _error(server, {"property": "p", "field": "KIND", "op": "exists"})) == (
        "INVALID_INPUT", "where")
    assert code_field(await _error(server, {"property": "p", "op": "eq"})) == ("INVALID_INPUT", "where.value")
    assert code_field(await _error(server, order=[{"field": "TAG"}])) == ("INVALID_INPUT", "orderBy[0].field")
    listed = await server.graphql("{ notes(first: 1) { edges { cursor } } }")
    assert "errors" not in listed
    # Five levels are allowed, and twenty conditions.
    assert await _slugs(server, {"not": {"not": {"not": {"not": leaf}}}}) == []
    assert await _slugs(server, {"or": [leaf] * 20}) == []
