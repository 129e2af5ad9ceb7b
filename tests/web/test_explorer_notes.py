"""The note editor and the capture box: markdown saved through saveNote, `[[` completing note titles, captures
appended to today's daily note, and API errors shown as messages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from playwright.async_api import expect

from tests.web.conftest import ExplorerPage, make_note

pytestmark = [pytest.mark.web, pytest.mark.api, pytest.mark.graph]

NOTE_BY_SLUG = "query($s: String!) { note(slug: $s) { id title body outgoing { nodes { type to { id title } } } } }"


async def test_the_editor_saves_through_save_note_and_completes_titles_after_brackets(explorer: ExplorerPage) -> None:
    server = explorer.server
    alpha = await make_note(server, "Project Alpha", "The first project.")
    await make_note(server, "Project Beta", "The second project.")
    await make_note(server, "Groceries", "Milk.")
    await explorer.open()
    page = explorer.page

    await page.click("#new-note")
    await expect(page.locator("#editor-pane")).to_be_visible()
    await page.fill("#editor-title", "Weekly plan")
    await page.click("#editor-text")
    await page.keyboard.type("# This week\n\nWork on [[proj")
    popup = page.locator("#autocomplete")
    await expect(popup).to_be_visible()
    await expect(popup.locator(".ac-option")).to_have_count(2)  # both projects, not the groceries
    await expect(popup.locator(".ac-option").first).to_contain_text("Project Alpha")
    await explorer.shot("autocomplete")
    await page.keyboard.press("Enter")
    await expect(popup).to_be_hidden()
    await page.keyboard.type(" first, then #planning.")
    assert await page.input_value("#editor-text") == "# This week\n\nWork on [[Project Alpha]] first, then #planning."
    await expect(page.locator("#editor-preview a.wikilink")).to_have_text("Project Alpha")

    await page.keyboard.press("Control+s")
    await expect(page.locator("#editor-status")).to_contain_text("Created")
    await expect(page.locator("#editor-status")).to_contain_text("1 link added")
    note = (await server.data(NOTE_BY_SLUG, {"s": "weekly-plan"}))["note"]
    assert note["body"] == "# This week\n\nWork on [[Project Alpha]] first, then #planning."
    assert note["outgoing"]["nodes"] == [{"type": "WIKILINK", "to": {"id": alpha, "title": "Project Alpha"}}]
    # The new note and its link join the list and the graph without a reload.
    await expect(explorer.row("Weekly plan")).to_be_visible()
    await explorer.wait_hook("(vg, [s, t]) => vg.graph.hasDirectedEdge(s, t)", [note["id"], alpha])
    await explorer.shot("saved")

    # Editing again updates the same note (guarded by its body hash).
    await page.click("#editor-text")
    await page.keyboard.press("Control+End")
    await page.keyboard.type("\n- [ ] call [[Project Be")
    await expect(popup.locator(".ac-option")).to_have_count(1)
    await page.keyboard.press("Tab")
    await page.click("#editor-save")
    await expect(page.locator("#editor-status")).to_contain_text("Saved")
    again = (await server.data(NOTE_BY_SLUG, {"s": "weekly-plan"}))["note"]
    assert again["id"] == note["id"]
    assert again["body"].endswith("- [ ] call [[Project Beta]]")
    assert {link["to"]["title"] for link in again["outgoing"]["nodes"]} == {"Project Alpha", "Project Beta"}
    assert explorer.errors == []


async def test_an_existing_note_opens_in_the_editor_from_its_detail(explorer: ExplorerPage) -> None:
    await make_note(explorer.server, "Reading list", "- [[Dune]]\n")
    await explorer.open()
    await explorer.row("Reading list").click()
    await explorer.page.click("#detail-edit")
    await expect(explorer.page.locator("#editor-title")).to_have_value("Reading list")
    assert await explorer.page.input_value("#editor-text") == "- [[Dune]]\n"
    await expect(explorer.page.locator("#editor-status")).to_contain_text("reading-list")
    assert explorer.errors == []


async def test_capture_appends_timestamped_lines_to_todays_daily_note(explorer: ExplorerPage) -> None:
    server = explorer.server
    await make_note(server, "Overview", "The map.")
    await explorer.open()
    page = explorer.page
    slug = f"daily/{datetime.now(UTC).date().isoformat()}"

    await page.fill("#capture-input", "Call the owner of the [[Overview]]")
    await page.keyboard.press("Enter")
    await expect(page.locator(".toast-success")).to_contain_text("Captured to")
    await expect(page.locator("#capture-input")).to_have_value("")
    await page.fill("#capture-input", "Second thought #idea")
    await page.click("#capture-submit")
    await expect(page.locator(".toast-success", has_text="Captured to")).to_have_count(2)

    note = (await server.data(NOTE_BY_SLUG, {"s": slug}))["note"]
    lines = [line for line in note["body"].splitlines() if line.startswith("- ")]
    assert len(lines) == 2
    assert lines[0].endswith("Call the owner of the [[Overview]]")
    assert lines[1].endswith("Second thought #idea")
    assert [link["to"]["title"] for link in note["outgoing"]["nodes"]] == ["Overview"]
    # Today's note shows up as a daily note, linked in the graph.
    await expect(page.locator("#type-chips [data-type=daily]")).to_contain_text("1")
    await explorer.wait_hook("(vg, id) => vg.graph.hasNode(id) && vg.graph.outDegree(id) === 1", note["id"])
    await explorer.shot("captured")
    assert explorer.errors == []


async def test_errors_from_the_api_are_shown_with_their_code(explorer: ExplorerPage) -> None:
    await make_note(explorer.server, "Taken", "Already here.")
    await explorer.open()
    page = explorer.page
    await page.click("#new-note")
    await page.fill("#editor-title", "Taken")
    await page.fill("#editor-text", "A second note with the same slug.")
    await page.click("#editor-save")
    toast = page.locator(".toast-error")
    await expect(toast).to_be_visible()
    await expect(toast.locator(".toast-code")).to_have_text("CONFLICT")
    await expect(toast).to_contain_text("Saving the note")
    await expect(page.locator("#editor-status")).to_have_text("Not saved")
    await explorer.shot("error")
    # An expected API error is a message to the person, not a console error.
    assert explorer.errors == []
