"""The MCP endpoint driven by the SDK's own client over HTTP: tools, writes marked as the agent's, tenancy."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from tests.agents.mcp_client import call, mcp_session, refused
from tests.support.security import bearer
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.graph.session import Graph
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.api, pytest.mark.graph]

TOOLS = {"vault_search", "read_item", "backlinks", "traverse", "write_note", "link_items", "capture", "context_pack",
         # the Octipus tool set's (tests/agents/test_mcp_seed_tools.py)
         "list_notes", "query_notes", "suggest_links", "archive_note", "link_knowledge", "export_canvas", "sync_vault"}
AGENT = {"X-Vaultgraph-Agent": "scout"}
NOTE = """query($id: ID!) { note(id: $id) { id title createdByAgentId } }"""
LINK = """query($id: ID!) { node(id: $id) { ... on Link { id origin type } } }"""


@pytest.fixture
async def keyed_server(settings: Settings) -> AsyncIterator[RunningServer]:
    keyed = settings.model_copy(update={"dev_mode": False, "port": 0, "api_key_cache_seconds": 0.0})
    async with run_server(keyed) as running:
        yield running


async def test_tools_are_listed_with_descriptions_and_schemas(server: RunningServer) -> None:
    async with mcp_session(server.url) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40
        for name, prop in tool.input_schema["properties"].items():
            assert prop.get("description"), (tool.name, name)
    assert tools["vault_search"].input_schema["required"] == ["query"]
    assert set(tools["vault_search"].input_schema["properties"]) == {"query", "scope", "types", "maxResults",
                                                                          "mode"}


async def test_an_agent_writes_links_and_reads_through_every_tool(server: RunningServer) -> None:
    async with mcp_session(server.url, AGENT) as session:
        target = await call(session, "write_note", title="Authentication flow",
                            body="Clients send a bearer token. The server checks the key against its hash.")
        source = await call(session, "write_note", title="Login runbook",
                            body="When logins fail, read [[Authentication flow]] first.")
        assert target["createdByAgentId"] == "scout" and target["created"] is True

        found = await call(session, "vault_search", query="bearer token authentication", maxResults=3)
        assert found["results"][0]["id"] == target["id"]
        assert len(found["results"]) <= 3
        only_docs = await call(session, "vault_search", query="bearer token", types="Document")
        assert only_docs["results"] == []

        read = await call(session, "read_item", id=target["id"])
        assert read["text"].startswith("Clients send a bearer token.")

        back = await call(session, "backlinks", id=target["id"])
        assert [b["from"]["id"] for b in back["backlinks"]] == [source["id"]]
        reached = await call(session, "traverse", id=source["id"], direction="out")
        assert [r["id"] for r in reached["items"]] == [target["id"]]

        third = await call(session, "write_note", title="Key rotation", body="Rotate keys every quarter.")
        link = await call(session, "link_items", source=third["id"], target=target["id"], type="supports_claim",
                          context="Rotation limits what a leaked key can do.")
        assert link["origin"] == "AGENT"  # as GraphQL's LinkOrigin spells it

        captured = await call(session, "capture", text="check the key cache")
        assert captured["kind"] == "daily"
        read_daily = await call(session, "read_item", id=captured["id"])
        assert "check the key cache" in read_daily["text"]

        pack = await call(session, "context_pack", query="bearer token authentication", budgetTokens=200)
        assert pack["items"][0]["id"] == target["id"] and pack["usedTokens"] <= 200

        missing = await refused(session, "read_item", id="note_doesnotexist")
        assert "NOT_FOUND" in missing

    note = (await server.data(NOTE, {"id": source["id"]}))["note"]
    assert note["createdByAgentId"] == "scout"
    edge = (await server.data(LINK, {"id": link["id"]}))["node"]
    assert edge == {"id": link["id"], "origin": "AGENT", "type": "SUPPORTS_CLAIM"}


async def test_api_keys_keep_tenants_apart(keyed_server: RunningServer, graph: Graph, tenant: str) -> None:
    keys = ApiKeyService(graph)
    mine = bearer((await keys.create(tenant, agent="ann")).secret)
    theirs = bearer((await keys.create(f"{tenant}b", all_scopes=True)).secret)
    bob = bearer((await keys.create(tenant, agent="bob")).secret)
    async with mcp_session(keyed_server.url, mine) as session:
        written = await call(session, "write_note", title="Secret plan", body="The launch is on Friday.")
        diary = await call(session, "write_note", title="Ann's diary", body="Only Ann reads this.", scope="personal")
    assert written["createdByAgentId"] == "ann" and diary["scope"] == "PERSONAL"
    async with mcp_session(keyed_server.url, bob) as session:
        assert (await call(session, "read_item", id=written["id"]))["title"] == "Secret plan"  # shared in the tenant
        assert "NOT_FOUND" in await refused(session, "read_item", id=diary["id"])  # another agent's personal note
    async with mcp_session(keyed_server.url, theirs) as session:
        assert "NOT_FOUND" in await refused(session, "read_item", id=written["id"])
        assert "NOT_FOUND" in await refused(session, "backlinks", id=written["id"])
        assert (await call(session, "vault_search", query="launch Friday plan"))["results"] == []
        assert "NOT_FOUND" in await refused(session, "link_items", source=written["id"], ref="anything")
    data = await keyed_server.data(NOTE, {"id": written["id"]}, mine)
    assert data["note"]["createdByAgentId"] == "ann"


async def test_no_key_no_mcp(keyed_server: RunningServer) -> None:
    async with httpx.AsyncClient(base_url=keyed_server.url) as client:
        response = await client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                     headers={"Accept": "application/json, text/event-stream"})
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        bad = await client.post("/mcp", json={}, headers={"Authorization": "Bearer vg_nope"})
        assert bad.status_code == 401
