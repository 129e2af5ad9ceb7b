"""The explorer's first minutes: it loads clean, lists what the API holds, filters it, and opens an item's detail
with its links and backlinks."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.web.conftest import ExplorerPage, make_document, make_note

pytestmark = [pytest.mark.web, pytest.mark.api, pytest.mark.graph]


async def test_a_new_install_loads_without_console_errors_and_says_what_to_do(explorer: ExplorerPage) -> None:
    response = await explorer.page.goto(explorer.server.url + "/")
    assert response is not None and response.status == 200
    await explorer.page.wait_for_function("document.body.dataset.ready === 'true'")
    assert await explorer.page.title() == "vaultgraph explorer"
    await expect(explorer.page.locator("#list-empty-new")).to_contain_text("Your vault is empty")
    await expect(explorer.page.locator("#graph-empty")).to_be_visible()
    assert await explorer.hook("vg => vg.graph.order") == 0
    await explorer.shot("empty")
    assert explorer.errors == []


async def test_a_narrow_window_stacks_the_panes_without_sideways_scrolling(explorer: ExplorerPage) -> None:
    await make_note(explorer.server, "Overview", "Start at the [[Setup Guide]].")
    await explorer.page.set_viewport_size({"width": 420, "height": 860})
    await explorer.open()
    await expect(explorer.row("Overview")).to_be_visible()
    overflow = await explorer.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    await explorer.shot("narrow-list")
    await explorer.row("Overview").click()
    await expect(explorer.page.locator("#detail-pane h2")).to_have_text("Overview")
    await explorer.shot("narrow-detail")
    assert explorer.errors == []


async def test_documents_and_notes_made_through_the_api_are_listed_and_filtered(explorer: ExplorerPage) -> None:
    server = explorer.server
    await make_document(server, "guides/setup.md", "# Setup Guide\nInstall it.")
    await make_document(server, "data/people.csv", "name,team\nana,alpha\n")
    await make_document(server, "teams/alpha/plan.md", "# Alpha plan\nShip it.", scope="TEAM", teamId="alpha")
    await make_note(server, "Overview", "Start at the [[Setup Guide]].")
    await explorer.open()

    for title in ["Setup Guide", "people.csv", "Alpha plan", "Overview"]:
        await expect(explorer.row(title)).to_be_visible()
    await expect(explorer.page.locator("#list-header")).to_contain_text("4 items")
    chips = explorer.page.locator("#type-chips")
    await expect(chips.locator("[data-type=note]")).to_contain_text("1")
    await expect(chips.locator("[data-type=markdown]")).to_contain_text("2")
    await explorer.shot("listed")

    await chips.locator("[data-type=markdown]").click()
    await expect(explorer.page.locator("#item-list li.item-row")).to_have_count(2)
    await expect(explorer.row("Overview")).to_have_count(0)
    await chips.locator("[data-type=all]").click()
    await expect(explorer.page.locator("#item-list li.item-row")).to_have_count(4)

    await explorer.page.select_option("#filter-team", "alpha")
    await expect(explorer.page.locator("#item-list li.item-row")).to_have_count(1)
    await expect(explorer.row("Alpha plan")).to_contain_text("team alpha")
    # The graph follows the same filters: only the team's document stays drawn.
    visible = await explorer.hook(
        "vg => vg.graph.filterNodes(n => vg.sigma.getNodeDisplayData(n)?.visibility !== 'hidden').length")
    assert visible == 1
    await explorer.page.select_option("#filter-team", "")
    await explorer.page.select_option("#filter-scope", "TEAM")
    await expect(explorer.page.locator("#item-list li.item-row")).to_have_count(1)
    assert explorer.errors == []


async def test_an_item_opens_in_the_detail_panel_with_backlinks_and_their_context(explorer: ExplorerPage) -> None:
    server = explorer.server
    await make_note(server, "Setup Guide", "Install it with make run.")
    await make_note(server, "Overview", "Read the [[Setup Guide]] before you start anything.")
    await make_note(server, "Loose ends", "Someday [[Nowhere Yet]] will exist. #todo")
    await explorer.open()

    await explorer.row("Setup Guide").click()
    detail = explorer.page.locator("#detail-pane")
    await expect(detail.locator("h2")).to_have_text("Setup Guide")
    backlinks = detail.locator("[data-links=in]")
    await expect(backlinks.locator("h3")).to_contain_text("1")
    await expect(backlinks.locator(".link-row")).to_contain_text("Overview")
    await expect(backlinks.locator(".link-context")).to_contain_text("before you start")
    assert await explorer.hook("vg => vg.store.selectedId") == await explorer.hook(
        "vg => [...vg.store.items.values()].find(i => i.title === 'Setup Guide').id")
    assert "item=" in explorer.page.url  # the selection is in the URL, so a reload reopens it
    await explorer.shot("backlinks")

    # Following the backlink opens its source, whose outgoing link points back.
    await backlinks.get_by_role("button", name="Overview").click()
    await expect(detail.locator("h2")).to_have_text("Overview")
    await expect(detail.locator("[data-links=out] .link-row")).to_contain_text("Setup Guide")

    # A ghost shows in its note's outgoing links, marked unresolved.
    await explorer.row("Loose ends").click()
    await expect(detail.locator("h2")).to_have_text("Loose ends")
    await expect(detail.locator("[data-links=out] .ghost")).to_contain_text("[[")
    await expect(detail.locator(".tags")).to_contain_text("#todo")

    await explorer.page.reload()
    await explorer.page.wait_for_function("document.body.dataset.ready === 'true'")
    await expect(detail.locator("h2")).to_have_text("Loose ends")
    await explorer.page.keyboard.press("Escape")
    await expect(detail).to_be_hidden()
    assert explorer.errors == []
