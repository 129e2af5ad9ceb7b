// @ts-check
/** The note editor and the capture box: markdown saved through saveNote, `[[` completing note titles, captures
 * appended to today's daily note, and API errors shown as messages. */
import assert from "node:assert/strict";

import {
  expectCount, expectExactText, expectHidden, expectText, expectValue, expectVisible, scenario,
} from "./support.mjs";

const NOTE_BY_SLUG = "query($s: String!) { note(slug: $s) { id title body outgoing { nodes { type to { id title } } } } }";

scenario("the editor saves through saveNote and completes titles after brackets", {}, async (ex) => {
  const alpha = await ex.makeNote("Project Alpha", "The first project.");
  await ex.makeNote("Project Beta", "The second project.");
  await ex.makeNote("Groceries", "Milk.");
  await ex.open();
  const page = ex.page;

  await page.click("#new-note");
  await expectVisible(page.locator("#editor-pane"));
  await page.fill("#editor-title", "Weekly plan");
  await page.click("#editor-text");
  await page.keyboard.type("# This week\n\nWork on [[proj");
  const popup = page.locator("#autocomplete");
  await expectVisible(popup);
  await expectCount(popup.locator(".ac-option"), 2); // both projects, not the groceries
  await expectText(popup.locator(".ac-option").first(), "Project Alpha");
  await ex.shot("autocomplete");
  await page.keyboard.press("Enter");
  await expectHidden(popup);
  await page.keyboard.type(" first, then #planning.");
  assert.equal(await page.inputValue("#editor-text"), "# This week\n\nWork on [[Project Alpha]] first, then #planning.");
  await expectExactText(page.locator("#editor-preview a.wikilink"), "Project Alpha");

  await page.keyboard.press("Control+s");
  await expectText(page.locator("#editor-status"), "Created");
  await expectText(page.locator("#editor-status"), "1 link added");
  const note = (await ex.data(NOTE_BY_SLUG, { s: "weekly-plan" })).note;
  assert.equal(note.body, "# This week\n\nWork on [[Project Alpha]] first, then #planning.");
  assert.deepEqual(note.outgoing.nodes, [{ type: "WIKILINK", to: { id: alpha, title: "Project Alpha" } }]);
  // The new note and its link join the list and the graph without a reload.
  await expectVisible(ex.row("Weekly plan"));
  await ex.waitHook((vg, [s, t]) => vg.graph.hasDirectedEdge(s, t), [note.id, alpha]);
  await ex.shot("saved");

  // Editing again updates the same note (guarded by its body hash).
  await page.click("#editor-text");
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n- [ ] call [[Project Be");
  await expectCount(popup.locator(".ac-option"), 1);
  await page.keyboard.press("Tab");
  await page.click("#editor-save");
  await expectText(page.locator("#editor-status"), "Saved");
  const again = (await ex.data(NOTE_BY_SLUG, { s: "weekly-plan" })).note;
  assert.equal(again.id, note.id);
  assert.ok(again.body.endsWith("- [ ] call [[Project Beta]]"), again.body);
  assert.deepEqual(new Set(again.outgoing.nodes.map((/** @type {any} */ link) => link.to.title)),
    new Set(["Project Alpha", "Project Beta"]));
  await ex.shot("saved-again");
});

scenario("an existing note opens in the editor from its detail", { full: true }, async (ex) => {
  await ex.makeNote("Reading list", "- [[Dune]]\n");
  await ex.open();
  await ex.row("Reading list").click();
  await ex.page.click("#detail-edit");
  await expectValue(ex.page.locator("#editor-title"), "Reading list");
  assert.equal(await ex.page.inputValue("#editor-text"), "- [[Dune]]\n");
  await expectText(ex.page.locator("#editor-status"), "reading-list");
  await ex.shot("editing");
});

scenario("a markdown document opens in the editor and saves its file through updateDocument", { full: true }, async (ex) => {
  const id = await ex.makeDocument("guides/setup.md", "# Setup\n\nInstall the tools first.\n");
  await ex.makeNote("Tools", "What we use.");
  await ex.open();
  const page = ex.page;
  await ex.row("Setup").click();
  await page.click("#detail-edit");
  await expectVisible(page.locator("#editor-pane"));
  await expectValue(page.locator("#editor-title"), "Setup");
  await expectValue(page.locator("#editor-text"), "# Setup\n\nInstall the tools first.\n");
  await expectText(page.locator("#editor-status"), "guides/setup.md");
  assert.equal(await page.locator("#editor-kind").isVisible(), false, "a document has a docType, not a note kind");

  await page.fill("#editor-text", "# Setup\n\nInstall the [[Tools]] first, then run them.\n");
  await expectExactText(page.locator("#editor-preview a.wikilink"), "Tools");
  await page.keyboard.press("Control+s");
  await expectText(page.locator("#editor-status"), "Saved guides/setup.md");
  const stored = (await ex.data("query($id: ID!) { document(id: $id) { title content enrichment { stage } } }", { id })).document;
  assert.equal(stored.content, "# Setup\n\nInstall the [[Tools]] first, then run them.\n");
  assert.equal(stored.title, "Setup");
  await ex.shot("document-saved");

  // Someone else rewrites the file while it is open here: the next save is refused (CONFLICT), nothing of theirs is
  // overwritten, and the text typed here stays in the editor.
  const theirs = "# Setup\n\nInstall the [[Tools]] first, then run them. Edited elsewhere.\n";
  await ex.data("mutation($id: ID!, $c: String) { updateDocument(id: $id, input: {content: $c}) { id } }", { id, c: theirs });
  await page.fill("#editor-text", "# Setup\n\nMine, typed on a stale copy.\n");
  await page.keyboard.press("Control+s");
  await expectText(page.locator("#editor-status"), "the file changed since it was opened");
  await expectValue(page.locator("#editor-text"), "# Setup\n\nMine, typed on a stale copy.\n");
  assert.equal((await ex.data("query($id: ID!) { document(id: $id) { content } }", { id })).document.content, theirs);

  // The reading view shows the new text, not the one it read before the edit.
  await page.click("button[data-view=graph]");
  await expectText(page.locator("#reading-view"), "then run them");
  await expectExactText(page.locator("#reading-view a.wikilink"), "Tools");
});

scenario("capture appends timestamped lines to today's daily note", { full: true }, async (ex) => {
  await ex.makeNote("Overview", "The map.");
  await ex.open();
  const page = ex.page;
  const slug = `daily/${new Date().toISOString().slice(0, 10)}`; // today in UTC, as the server dates it

  await page.fill("#capture-input", "Call the owner of the [[Overview]]");
  await page.keyboard.press("Enter");
  await expectText(page.locator(".toast-success"), "Captured to");
  await expectValue(page.locator("#capture-input"), "");
  // A success toast lives 4 s, less than a loaded machine may take for the second capture: dismiss the first, so the
  // toast seen next is the second capture's own.
  await page.click(".toast-success .toast-close");
  await expectCount(page.locator(".toast-success"), 0);
  await page.fill("#capture-input", "Second thought #idea");
  await page.click("#capture-submit");
  await expectText(page.locator(".toast-success"), "Captured to");

  const note = (await ex.data(NOTE_BY_SLUG, { s: slug })).note;
  const lines = note.body.split("\n").filter((/** @type {string} */ line) => line.startsWith("- "));
  assert.equal(lines.length, 2, note.body);
  assert.ok(lines[0].endsWith("Call the owner of the [[Overview]]"), lines[0]);
  assert.ok(lines[1].endsWith("Second thought #idea"), lines[1]);
  assert.deepEqual(note.outgoing.nodes.map((/** @type {any} */ link) => link.to.title), ["Overview"]);
  // Today's note shows up as a daily note, linked in the graph.
  await expectText(page.locator("#type-chips [data-type=daily]"), "1");
  await ex.waitHook((vg, id) => vg.graph.hasNode(id) && vg.graph.outDegree(id) === 1, note.id);
  await ex.shot("captured");
});

scenario("errors from the API are shown with their code", { full: true }, async (ex) => {
  await ex.makeNote("Taken", "Already here.");
  await ex.open();
  const page = ex.page;
  await page.click("#new-note");
  await page.fill("#editor-title", "Taken");
  await page.fill("#editor-text", "A second note with the same slug.");
  await page.click("#editor-save");
  const toast = page.locator(".toast-error");
  await expectVisible(toast);
  await expectExactText(toast.locator(".toast-code"), "CONFLICT");
  await expectText(toast, "Saving the note");
  await expectExactText(page.locator("#editor-status"), "Not saved");
  await ex.shot("error");
  // An expected API error is a message to the person, not a console error (support.mjs checks there is none).
});
