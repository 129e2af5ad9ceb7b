"""Search, live enrichment and upload in the explorer. These parts follow the API as it grows: each test checks the
server's schema first, tests the working feature when it is there, and otherwise checks the explorer says it is
not available (disabled, with a note) instead of failing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import expect

from tests.support.server import RunningServer, run_server
from tests.web.conftest import ExplorerPage, make_document, make_note, schema_has
from vaultgraph.config import Settings

pytestmark = [pytest.mark.web, pytest.mark.api, pytest.mark.graph]

TERMINAL = ("DONE", "SKIPPED", "FAILED")


@pytest.fixture
async def server(settings: Settings, tenant: str) -> AsyncIterator[RunningServer]:
    """The real server with its enrichment workers on, for this test's tenant only (the shared Neo4j holds other
    tests' unfinished documents)."""
    configured = settings.model_copy(update={"dev_tenant": tenant, "port": 0, "enrichment_workers": True,
                                             "enrichment_tenants": [tenant]})
    async with run_server(configured) as running:
        yield running


async def test_search_lists_hybrid_hits_with_their_score_breakdown(explorer: ExplorerPage) -> None:
    server = explorer.server
    await make_note(server, "Authentication flow", "How login tokens are issued, refreshed and revoked.")
    await make_note(server, "Gardening", "Tomatoes need sun and water.")
    await explorer.open()
    page = explorer.page
    if not await schema_has(server, "Query", "search"):
        await expect(page.locator("#search-input")).to_be_disabled()
        await expect(page.locator("#search-note")).to_contain_text("no Query.search yet")
        pytest.skip("this server has no Query.search yet: the bar is disabled with a note (checked)")

    await page.fill("#search-input", "login tokens")
    await page.keyboard.press("Enter")
    first = page.locator("#item-list li.hit-row").first
    await expect(first).to_contain_text("Authentication flow")
    await expect(first.locator(".score.total")).to_be_visible()
    await expect(first.locator(".score.kw")).to_be_visible()
    await expect(first.locator(".snippet mark").first).to_be_visible()
    await expect(page.locator("#search-results")).to_contain_text("for “login tokens”")
    await explorer.shot("hits")
    await first.locator("button").click()
    await expect(page.locator("#detail-pane h2")).to_have_text("Authentication flow")

    await page.locator("#search-input").press("Escape")
    await expect(page.locator("#item-list li.item-row:not(.hit-row)")).to_have_count(2)
    assert explorer.errors == []


async def test_a_graph_mode_hit_highlights_the_links_it_came_by(explorer: ExplorerPage) -> None:
    server = explorer.server
    if not await schema_has(server, "Query", "search"):
        pytest.skip("this server has no Query.search yet")
    k8s = await make_note(server, "Kubernetes deployment", "Rolling updates with kubectl, one pod at a time.")
    ops = await make_note(server, "Ops handbook", "Start with [[Kubernetes deployment]].")
    await explorer.open()
    page = explorer.page
    await page.select_option("#search-mode", "GRAPH")
    # Above 0.6 only the keyword-and-vector hit is an entry point; the handbook comes in by its link.
    await page.select_option("#search-min", "0.7")
    await page.fill("#search-input", "kubectl rolling updates")
    await page.keyboard.press("Enter")
    reached = page.locator("#item-list li.hit-row", has_text="Ops handbook")
    await expect(reached.locator(".via")).to_contain_text("Kubernetes deployment")
    await reached.locator("button").click()
    await explorer.wait_hook("vg => vg.graphPane.pathEdges && vg.graphPane.pathEdges.size === 1")
    edge = await explorer.hook("(vg, [s, t]) => vg.graph.edges(s, t)[0]", [ops, k8s])
    assert await explorer.hook("(vg, e) => vg.sigma.getEdgeDisplayData(e).color", edge) == "#ff6a3d"
    await expect(page.locator("#graph-status")).to_contain_text("Path of a graph hit")
    await explorer.shot("path")
    assert explorer.errors == []


async def test_stage_badges_follow_enrichment_events_without_a_reload(explorer: ExplorerPage) -> None:
    server = explorer.server
    await explorer.open()
    page = explorer.page
    if not await schema_has(server, "Subscription", "enrichmentEvents"):
        await expect(page.locator("#progress")).to_contain_text("not available on this server yet")
        pytest.skip("this server has no Subscription.enrichmentEvents yet: the bar says so (checked)")

    await page.evaluate("window.__sameDocument = true")
    await page.wait_for_function("document.getElementById('socket-state').dataset.state === 'open'")
    doc = await make_document(server, "notes/live.md", "# Live badge\nWatch the badge move through the stages.")
    badge = page.locator(f'#item-list [data-stage-for="{doc}"]')
    await expect(badge).to_be_visible(timeout=20_000)
    await explorer.shot("badge-arrived")
    await page.wait_for_function(
        "([id, stages]) => stages.includes("
        "document.querySelector(`#item-list [data-stage-for=\"${id}\"]`)?.dataset.stage)",
        arg=[doc, list(TERMINAL)], timeout=90_000)
    assert await page.evaluate("window.__sameDocument") is True  # updated live, never reloaded
    await expect(page.locator("#progress")).to_contain_text("done")
    await explorer.shot("badge-final")
    assert explorer.errors == []


async def test_an_uploaded_file_reaches_done_through_the_subscription(explorer: ExplorerPage) -> None:
    server = explorer.server
    await explorer.open()
    page = explorer.page
    await page.click("#upload-button")
    dialog = page.locator("#upload-dialog")
    await expect(dialog).to_be_visible()
    await page.select_option("#upload-target", "SHARED")
    await expect(page.locator("#upload-owner")).to_be_hidden()
    await page.select_option("#upload-target", "TEAM")
    await expect(page.locator("#upload-owner")).to_be_visible()
    await page.fill("#upload-owner", "research")
    await page.set_input_files("#upload-input", files=[
        {"name": "upload-one.md", "mimeType": "text/markdown", "buffer": b"# Uploaded one\nFirst file, about tides."},
        {"name": "upload-two.txt", "mimeType": "text/plain", "buffer": b"Second file."},
    ])
    await expect(page.locator("#upload-files li")).to_have_count(2)
    await explorer.shot("upload-dialog")
    rescan = page.locator("#rescan-button")
    if await schema_has(server, "Mutation", "rescanWorkspace"):
        await expect(rescan).to_be_enabled()
    else:
        await expect(rescan).to_be_disabled()
    if not await schema_has(server, "Mutation", "uploadDocuments"):
        await expect(page.locator("#upload-note")).to_contain_text("not available on this server yet")
        await expect(page.locator("#upload-submit")).to_be_disabled()
        pytest.skip("this server has no uploadDocuments yet: the dialog is disabled with a note (checked)")

    await page.evaluate("window.__sameDocument = true")
    await page.wait_for_function("document.getElementById('socket-state').dataset.state === 'open'")
    await page.click("#upload-submit")
    await expect(dialog).to_be_hidden(timeout=60_000)
    await expect(explorer.row("Uploaded one")).to_be_visible()
    await expect(explorer.row("upload-two")).to_be_visible()
    stored = (await server.data('{ documents(teamId: "research") { nodes { id path teamId } } }'))["documents"]
    by_path = {n["path"]: n for n in stored["nodes"]}
    assert set(by_path) == {"upload-one.md", "upload-two.txt"}  # the chosen team's folder of the workspace
    doc = by_path["upload-one.md"]["id"]
    badge = page.locator(f'#item-list [data-stage-for="{doc}"]')
    await expect(badge).to_be_visible()
    await explorer.shot("upload-badge")
    await page.wait_for_function(
        "id => document.querySelector(`#item-list [data-stage-for=\"${id}\"]`)?.dataset.stage === 'DONE'",
        arg=doc, timeout=180_000)
    assert await page.evaluate("window.__sameDocument") is True  # followed live, never reloaded
    await explorer.shot("upload-done")
    assert explorer.errors == []


async def test_a_link_suggestion_is_accepted_from_the_detail_panel(explorer: ExplorerPage) -> None:
    server = explorer.server
    espresso = await make_note(server, "Espresso brewing", "Grind fine; nine bar of pressure; a 25 second shot.")
    extraction = await make_note(server, "Coffee extraction", "Espresso extraction depends on grind size and pressure.")
    await make_note(server, "Bicycle repair", "Patch the inner tube, then check the tyre.")
    await explorer.open()
    page = explorer.page
    await explorer.row("Espresso brewing").click()
    suggestions = page.locator("#suggestions")
    if not (await schema_has(server, "Note", "suggestions")
            and await schema_has(server, "Mutation", "acceptSuggestion")):
        await expect(suggestions).to_contain_text("not available on this server yet")
        pytest.skip("this server has no link suggestions yet: the panel says so (checked)")

    row = suggestions.locator(".suggestion-row", has_text="Coffee extraction")
    await expect(row).to_be_visible()
    await expect(row).to_contain_text("similarity")
    await explorer.shot("suggestions")
    await row.get_by_role("button", name="Accept").click()
    await expect(page.locator("#detail-pane [data-links=out] .link-row")).to_contain_text("Coffee extraction")
    await explorer.wait_hook("(vg, [s, t]) => vg.graph.hasDirectedEdge(s, t)", [espresso, extraction])
    assert explorer.errors == []
