"""The Octipus notes and knowledge tools over MCP, through the SDK's client: list_notes, query_notes,
suggest_links, archive_note, link_knowledge, export_canvas, sync_vault and vault_search in graph mode. Each is the
service GraphQL calls, scoped by the caller (development mode: X-Vaultgraph-Agent)."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from tests.agents.mcp_client import call, mcp_session, refused
from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

ALICE = {"X-Vaultgraph-Agent": "alice"}
BOB = {"X-Vaultgraph-Agent": "bob"}
TOOLS = ("list_notes", "query_notes", "suggest_links", "archive_note", "link_knowledge", "export_canvas",
         "sync_vault", "vault_search")


def code(message: str) -> str:
    """The error code of a refused call ("[Error executing tool t: ]CODE: message")."""
    found = re.search(r"\b([A-Z][A-Z_]+): ", message)
    assert found, message
    return found.group(1)


async def test_every_tool_has_a_json_schema(server: RunningServer) -> None:
    async with mcp_session(server.url) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    for name in TOOLS:
        schema = listed[name].input_schema
        assert schema["type"] == "object" and listed[name].description, name
        assert all(prop.get("description") for prop in schema["properties"].values()), (name, schema)
    assert "where" in listed["query_notes"].input_schema["properties"]
    assert "graph" in str(listed["vault_search"].input_schema["properties"]["mode"])


async def test_list_and_query_notes_are_scoped_by_the_caller(server: RunningServer) -> None:
    async with mcp_session(server.url, ALICE) as alice, mcp_session(server.url, BOB) as bob:
        mine = await call(alice, "write_note", title="Alice plan", body="---\nstatus: open\npriority: 2\n---\n",
                          scope="personal")
        ours = await call(bob, "write_note", title="Shared plan", body="---\nstatus: open\npriority: 5\n---\n#plan")
        await call(bob, "write_note", title="Done plan", body="---\nstatus: done\n---\n")
        where = {"property": "status", "op": "eq", "value": "open"}
        seen = await call(alice, "query_notes", where=where, orderBy=[{"property": "priority", "direction": "DESC"}])
        assert [n["id"] for n in seen["notes"]] == [ours["id"], mine["id"]] and seen["totalCount"] == 2
        theirs = await call(bob, "query_notes", where=where)
        assert [n["id"] for n in theirs["notes"]] == [ours["id"]]
        listed = await call(bob, "list_notes", tag="plan")
        assert [n["id"] for n in listed["notes"]] == [ours["id"]] and listed["next"] is None
        paged = await call(alice, "list_notes", first=2)
        assert paged["totalCount"] == 3 and len(paged["notes"]) == 2 and paged["next"]
        rest = await call(alice, "list_notes", first=2, after=paged["next"])
        assert len(rest["notes"]) == 1
        bad = await refused(alice, "query_notes", where={"property": "status", "op": "like", "value": "o"})
        assert code(bad) == "INVALID_INPUT" and "like" in bad
        deep = await refused(alice, "query_notes", where={"or": [where] * 21})
        assert code(deep) == "INVALID_INPUT" and "20 conditions" in deep
        # archive_note: gone from lists, back with includeArchived; bob cannot archive alice's note.
        archived = await call(alice, "archive_note", id=mine["id"])
        assert archived["archived"] is True
        assert mine["id"] not in [n["id"] for n in (await call(alice, "list_notes"))["notes"]]
        assert mine["id"] in [n["id"] for n in (await call(alice, "list_notes", includeArchived=True))["notes"]]
        assert code(await refused(bob, "archive_note", id=mine["id"])) == "NOT_FOUND"
        assert (await call(alice, "archive_note", id=mine["id"], archived=False))["archived"] is False


async def test_link_knowledge_makes_agent_edges_and_ghosts_and_canvas_shows_them(server: RunningServer) -> None:
    async with mcp_session(server.url, ALICE) as alice:
        a = await call(alice, "write_note", title="Cache design", body="LRU or LFU.")
        b = await call(alice, "write_note", title="Eviction", body="Evict the coldest.")
        typed = await call(alice, "link_knowledge", source=a["id"], type="depends_on", target=b["id"],
                           context="eviction is part of the design")
        assert (typed["type"], typed["toId"], typed["origin"], typed["createdByAgentId"]) == (
            "DEPENDS_ON", b["id"], "AGENT", "alice")
        ghost = await call(alice, "link_knowledge", source=a["id"], type="REFERENCES", ref="Cache Benchmarks")
        assert (ghost["toId"], ghost["key"], ghost["origin"]) == (None, "cache-benchmarks", "AGENT")
        later = await call(alice, "write_note", title="Cache Benchmarks", body="p99 numbers.")
        canvas = await call(alice, "export_canvas", id=a["id"])
        assert {node["id"] for node in canvas["nodes"]} == {a["id"], b["id"], later["id"]}  # the ghost bound
        assert {(e["fromNode"], e["toNode"], e["label"]) for e in canvas["edges"]} == {
            (a["id"], b["id"], "DEPENDS_ON"), (a["id"], later["id"], "REFERENCES")}
        bad_type = await refused(alice, "link_knowledge", source=a["id"], type="bad type!", ref="x")
        assert code(bad_type) == "INVALID_INPUT"
        assert code(await refused(alice, "export_canvas", id="note_missing")) == "NOT_FOUND"
        private = await call(alice, "write_note", title="Private", body="x", scope="personal")
    async with mcp_session(server.url, BOB) as bob:  # alice's personal note: bob can neither link it nor draw it
        assert code(await refused(bob, "link_knowledge", source=private["id"], ref="Cache design")) == "NOT_FOUND"
        assert code(await refused(bob, "export_canvas", id=private["id"])) == "NOT_FOUND"


async def test_search_graph_mode_returns_linked_items_beside_the_hits(server: RunningServer) -> None:
    async with mcp_session(server.url) as session:
        target = await call(session, "write_note", title="Battery storage", body="Lithium cell chemistry.")
        hit = await call(session, "write_note", title="Solar inverter sizing",
                         body="Size the inverter; see [[Battery storage]].")
        found = await call(session, "vault_search", query="inverter sizing", mode="graph", maxResults=1)
        assert [r["id"] for r in found["results"]] == [hit["id"]]
        [linked] = found["linked"]
        assert (linked["id"], linked["linkType"], linked["fromId"], linked["toId"]) == (
            target["id"], "WIKILINK", hit["id"], target["id"])
        plain = await call(session, "vault_search", query="inverter sizing", maxResults=1)
        assert "linked" not in plain and [r["id"] for r in plain["results"]] == [hit["id"]]


async def test_suggest_links_computes_and_saves_nothing(server: RunningServer) -> None:
    async with mcp_session(server.url) as session:
        note = await call(session, "write_note", title="Solar panels on the roof",
                          body="We mount solar panels on the south roof.")
        similar = await call(session, "write_note", title="Photovoltaic installation",
                             body="Installing photovoltaic modules on a rooftop.")
        found = await call(session, "suggest_links", id=note["id"], limit=5)
        first = found["suggestions"][0]
        assert first["id"] == similar["id"] and 0.3 <= first["similarity"] <= 1 and first["passage"]
        back = await call(session, "backlinks", id=similar["id"])
        assert back["backlinks"] == []  # computed, never persisted
        assert "INVALID_INPUT" in await refused(session, "suggest_links", id=note["id"], limit=0)


async def test_sync_vault_exports_and_imports_through_the_save_pipeline(server: RunningServer,
                                                                        workspace_root: Path) -> None:
    root = workspace_root / "vaults" / uuid.uuid4().hex
    root.mkdir(parents=True)
    async with mcp_session(server.url) as session:
        await call(session, "write_note", title="Exported", body="To the vault, with [[Imported]].")
        written = await call(session, "sync_vault", path=str(root), direction="export")
        assert [Path(p).name for p in written["written"]] == ["Exported.md"]
        (root / "Imported.md").write_text("Came from the vault.\n")
        read = await call(session, "sync_vault", path=str(root))
        assert read["created"] == ["Imported.md"] and read["unchanged"] == ["Exported.md"], read
        linked = await call(session, "backlinks", id=(await call(session, "list_notes", first=1))["notes"][0]["id"])
        assert [b["from"]["title"] for b in linked["backlinks"]] == ["Exported"]
        outside = await refused(session, "sync_vault", path="/etc")
        assert code(outside) == "FORBIDDEN"
        relative = await refused(session, "sync_vault", path="vault")
        assert code(relative) == "INVALID_INPUT"


async def test_capture_takes_another_day(server: RunningServer) -> None:
    async with mcp_session(server.url) as session:
        captured = await call(session, "capture", text="remember [[Plan]]", day="2026-02-03")
        assert captured["slug"] == "daily/2026-02-03" and captured["kind"] == "daily"
        assert code(await refused(session, "capture", text="x", day="1899-12-31")) == "INVALID_INPUT"
        assert code(await refused(session, "capture", text="x", day="someday")) == "INVALID_INPUT"
    day = await server.data('{ dailyNote(day: "2026-02-03") { id body } }')
    assert day["dailyNote"]["id"] == captured["id"] and "remember [[Plan]]" in day["dailyNote"]["body"]
