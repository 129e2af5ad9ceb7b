"""The MCP `vault_search` and `write_note` tools through the SDK's client: the same rules as GraphQL."""

from __future__ import annotations

import pytest

from tests.agents.mcp_client import call, mcp_session, refused
from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

SEARCH = 'query($types: [String!]) { search(query: "sourdough", types: $types) { item { ... on Note { id } } } }'


async def test_an_unknown_search_type_is_refused_on_both_surfaces(server: RunningServer) -> None:
    async with mcp_session(server.url) as session:
        recipe = await call(session, "write_note", title="Sourdough", body="Feed the sourdough starter.",
                            kind="recipe")
        assert recipe["created"] is True
        message = await refused(session, "vault_search", query="sourdough", types="Note,recipes")
        assert "INVALID_INPUT: types: unknown type 'recipes'" in message
        for types in ("Note", "recipe", "meeting", "markdown"):  # a label, a kind in use, standard kinds and types
            found = await call(session, "vault_search", query="sourdough", types=types)
            assert [hit["id"] for hit in found["results"]] == ([recipe["id"]] if types in ("Note", "recipe") else [])
    answer = await server.graphql(SEARCH, {"types": ["recipes"]})
    assert answer["errors"][0]["extensions"] == {"code": "INVALID_INPUT", "field": "types"}
    assert message.endswith(answer["errors"][0]["message"])
    found = await server.data(SEARCH, {"types": ["recipe"]})
    assert found["search"] == [{"item": {"id": recipe["id"]}}]


async def test_write_note_renames_with_the_links_to_it(server: RunningServer) -> None:
    async with mcp_session(server.url) as session:
        target = await call(session, "write_note", title="Old Name", body="x", kind="moc")
        source = await call(session, "write_note", title="Source", body="See [[Old Name|it]].")
        renamed = await call(session, "write_note", id=target["id"], title="New Name", body="x")
        assert renamed["rewrittenNotes"] == [source["id"]]
        read = await call(session, "read_item", id=source["id"])
        assert read["text"] == "See [[New Name|it]]."
    kind = await server.data('query($id: ID!) { note(id: $id) { kind } }', {"id": target["id"]})
    assert kind["note"]["kind"] == "moc"  # write_note without kind keeps it
