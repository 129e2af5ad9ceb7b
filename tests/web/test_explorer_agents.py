"""Writes made by agents are visible as such in the explorer: a note an agent wrote says so in the detail panel,
and a link an agent made is marked in the link lists and drawn dotted in the graph (named in the legend)."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.web.conftest import ExplorerPage, make_note

pytestmark = [pytest.mark.web, pytest.mark.api, pytest.mark.graph]

AGENT = {"X-Vaultgraph-Agent": "scout"}
SAVE = "mutation($i: NoteInput!) { saveNote(input: $i) { note { id createdByAgentId } } }"
LINK = "mutation($i: LinkInput!) { createLink(input: $i) { id origin } }"


async def test_an_agents_note_and_link_are_marked_in_the_detail_panel_and_the_graph(explorer: ExplorerPage) -> None:
    server = explorer.server
    plan = await make_note(server, "Human plan", "Written by a person.")
    # The agent writes through the API with its own principal, like an MCP client's write_note and link_items.
    saved = (await server.data(SAVE, {"i": {"title": "Scout findings", "body": "Read [[Human plan]] closely."}},
                               AGENT))["saveNote"]["note"]
    assert saved["createdByAgentId"] == "scout"
    link = (await server.data(LINK, {"i": {"from": saved["id"], "to": plan, "type": "RELATED"}}, AGENT))["createLink"]
    assert link["origin"] == "AGENT"

    await explorer.open()
    await explorer.wait_hook("vg => vg.graph.order === 2 && vg.graph.size === 2")
    # The graph: the agent's link is dotted and says where it came from; the wikilink is not.
    edges = await explorer.hook("vg => vg.graph.mapEdges((e, a) => [e, a.origin, a.dash, a.gap])")
    by_id = {edge[0]: edge[1:] for edge in edges}
    assert by_id[link["id"]] == ["AGENT", 1.5, 3]
    assert [attrs[0] for key, attrs in by_id.items() if key != link["id"]] == ["WIKILINK"]
    await expect(explorer.page.locator("#graph-legend [data-legend=agent]")).to_have_text("made by an agent")

    await explorer.row("Scout findings").click()
    detail = explorer.page.locator("#detail-pane")
    await expect(detail.locator("h2")).to_have_text("Scout findings")
    await expect(detail.locator("#detail-written-by")).to_have_text("written by agent scout")
    agent_row = detail.locator(f"[data-links=out] .link-row[data-link-id='{link['id']}']")
    await expect(agent_row).to_have_class("link-row agent-row")
    await expect(agent_row.locator(".badge-agent")).to_have_text("agent")
    wikilink_row = detail.locator("[data-links=out] .link-row[data-origin=WIKILINK]")
    await expect(wikilink_row).to_have_count(1)
    await expect(wikilink_row.locator(".badge-agent")).to_have_count(0)
    await explorer.shot("agent-note")

    await explorer.row("Human plan").click()
    await expect(detail.locator("h2")).to_have_text("Human plan")
    await expect(detail.locator("#detail-written-by")).to_have_count(0)  # a person wrote this one
    await expect(detail.locator("[data-links=in] .link-row[data-origin=AGENT] .badge-agent")).to_have_text("agent")
    await expect(detail.locator("[data-links=in] .link-row")).to_have_count(2)
    await explorer.shot("human-note-backlinks")
    assert explorer.errors == []
