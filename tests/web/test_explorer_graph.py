"""The graph pane: items drawn by sigma (checked on the live graphology graph through window.__vaultgraph),
ghosts never drawn, click to focus, expand by one hop, and a manual link from the detail form becoming an edge."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.web.conftest import ExplorerPage, make_note

pytestmark = [pytest.mark.web, pytest.mark.api, pytest.mark.graph]


async def test_the_graph_draws_items_and_resolved_links_but_never_ghosts(explorer: ExplorerPage) -> None:
    server = explorer.server
    hub = await make_note(server, "Hub", "Links to [[Spoke one]], [[Spoke two]] and [[Not written yet]].")
    one = await make_note(server, "Spoke one", "Back to [[Hub]].")
    two = await make_note(server, "Spoke two", "Points at [[Another ghost]].")
    await explorer.open()

    await explorer.wait_hook("vg => vg.graph.order === 3")
    nodes = set(await explorer.hook("vg => vg.graph.nodes()"))
    assert nodes == {hub, one, two}  # no node for either ghost
    edges = await explorer.hook("vg => vg.graph.mapEdges((e, a, s, t) => [s, t, a.linkType])")
    assert sorted(edges) == sorted([[hub, one, "WIKILINK"], [hub, two, "WIKILINK"], [one, hub, "WIKILINK"]])
    # sigma has processed every node into display data and the canvas is in the page.
    drawn = await explorer.hook("vg => vg.graph.nodes().filter(n => vg.sigma.getNodeDisplayData(n)).length")
    assert drawn == 3
    assert await explorer.page.locator("#graph-canvas canvas").count() > 0
    await expect(explorer.page.locator("#graph-legend")).to_contain_text("wikilink")
    await expect(explorer.page.locator("#graph-status")).to_contain_text("3 nodes · 3 links")
    await explorer.shot("graph")
    assert explorer.errors == []


async def test_clicking_a_node_focuses_it_and_opens_its_detail(explorer: ExplorerPage) -> None:
    server = explorer.server
    target = await make_note(server, "Target", "The one to click.")
    await make_note(server, "Neighbour", "Next to [[Target]].")
    await make_note(server, "Far away", "Unrelated.")
    await explorer.open()
    await explorer.wait_hook("vg => vg.graph.order === 3")
    await explorer.page.wait_for_timeout(300)  # let the camera settle after the first layout

    point = await explorer.hook("(vg, id) => vg.sigma.graphToViewport(vg.graph.getNodeAttributes(id))", target)
    box = await explorer.page.locator("#graph-canvas").bounding_box()
    assert box is not None
    await explorer.page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])
    await expect(explorer.page.locator("#detail-pane h2")).to_have_text("Target")
    assert await explorer.hook("vg => vg.store.selectedId") == target
    # Focus fades what is not the node or its neighbours.
    faded = await explorer.hook(
        "vg => vg.graph.nodes().filter(n => vg.sigma.getNodeDisplayData(n).color === '#d7dbe3')")
    far = await explorer.hook("vg => [...vg.store.items.values()].find(i => i.title === 'Far away').id")
    assert faded == [far]
    await explorer.shot("focused")
    assert explorer.errors == []


async def test_expanding_a_node_adds_its_one_hop_neighbourhood(explorer: ExplorerPage) -> None:
    server = explorer.server
    seed = await make_note(server, "Seed", "Start here.")
    await explorer.open()
    await explorer.wait_hook("vg => vg.graph.order === 1")
    # Written after the page loaded: the graph does not have it until the seed is expanded.
    newcomer = await make_note(server, "Newcomer", "Grew from [[Seed]].")
    await explorer.row("Seed").click()
    await explorer.page.locator("#detail-expand").click()
    await explorer.wait_hook("(vg, id) => vg.graph.hasNode(id)", newcomer)
    assert await explorer.hook("(vg, [s, t]) => vg.graph.hasDirectedEdge(s, t)", [newcomer, seed])
    await expect(explorer.page.locator("#detail-expand")).to_have_text("Expanded (+1)")
    await explorer.shot("expanded")
    assert explorer.errors == []


async def test_a_manual_link_from_the_detail_form_becomes_an_edge(explorer: ExplorerPage) -> None:
    server = explorer.server
    alpha = await make_note(server, "Alpha", "First.")
    beta = await make_note(server, "Beta", "Second.")
    await explorer.open()
    await explorer.wait_hook("vg => vg.graph.order === 2")
    assert await explorer.hook("vg => vg.graph.size") == 0

    await explorer.row("Alpha").click()
    await expect(explorer.page.locator("#detail-pane h2")).to_have_text("Alpha")
    await explorer.page.select_option("#link-type", "DEPENDS_ON")
    await explorer.page.fill("#link-target", "Beta")
    await explorer.page.fill("#link-context", "needs the second first")
    await explorer.page.click("#link-submit")

    await explorer.wait_hook("(vg, [s, t]) => vg.graph.hasDirectedEdge(s, t)", [alpha, beta])
    assert await explorer.hook("vg => vg.graph.mapEdges((e, a) => a.linkType)") == ["DEPENDS_ON"]
    outgoing = explorer.page.locator("#detail-pane [data-links=out] .link-row")
    await expect(outgoing).to_contain_text("depends on")
    await expect(outgoing).to_contain_text("Beta")
    await expect(outgoing).to_contain_text("needs the second first")
    await expect(explorer.page.locator("#graph-legend")).to_contain_text("depends on")
    await explorer.shot("linked")

    data = await server.data('query($id: ID!) { node(id: $id) { ... on Item { backlinks { nodes { type origin '
                             'from { id } } } } } }', {"id": beta})
    assert data["node"]["backlinks"]["nodes"] == [{"type": "DEPENDS_ON", "origin": "USER", "from": {"id": alpha}}]

    # A target that names nothing makes a ghost: listed in the detail, not drawn.
    await explorer.page.fill("#link-target", "Gamma someday")
    await explorer.page.click("#link-submit")
    await expect(explorer.page.locator("#detail-pane [data-links=out] .ghost")).to_be_visible()
    assert await explorer.hook("vg => [vg.graph.order, vg.graph.size]") == [2, 1]
    assert explorer.errors == []
