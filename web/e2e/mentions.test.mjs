// @ts-check
/** Unlinked mentions in the detail pane (issue 26.4): the notes that write this note's name as plain text (never in
 * code or a link), each mention with its snippet, and "Link" turning one into a [[wikilink]] through saveNote, an
 * edit made meanwhile refused (CONFLICT) and no text lost. */
import assert from "node:assert/strict";

import { expectCount, expectExactText, expectText, expectVisible, scenario } from "./support.mjs";

const LOG = "Talked about project beacon today.\n\nIn code: `Project Beacon`, in a link: [[Other|project beacon]].";
const NOTE_BODY = "query($id: ID!) { node(id: $id) { ... on Note { body } } }";

scenario("unlinked mentions show their snippet and Link makes one a wikilink without losing an edit", {}, async (ex) => {
  const target = await ex.makeNote("Project Beacon", "The target note.");
  const log = await ex.makeNote("Weekly log", LOG);
  await ex.makeNote("Code only", "Only `Project Beacon` here, and [[Project Beacon]].");
  await ex.open();
  const page = ex.page;
  await ex.row("Project Beacon").click();

  const section = page.locator("#unlinked-mentions");
  await expectVisible(section);
  const rows = section.locator("li.mention-row");
  await expectCount(rows, 1); // the code-only note is no mention
  await expectText(rows.first().locator(".link-head"), "Weekly log");
  await expectExactText(rows.first().locator("mark"), "project beacon");
  await expectExactText(section.locator("h3 .count"), "1");
  await expectExactText(page.locator("[data-links=in] .link-button"), "Code only");
  await ex.shot("mentions");

  // Someone edits the log after the pane read it: the Link is refused, the list is read again, nothing is lost.
  await ex.makeNote("Weekly log", `${LOG}\n\nAdded meanwhile.`, { id: log });
  await section.getByRole("button", { name: /Link this mention/ }).click();
  await expectText(page.locator(".toast-error"), "changed since its mentions were read");
  assert.equal((await ex.data(NOTE_BODY, { id: log })).node.body, `${LOG}\n\nAdded meanwhile.`);

  await section.getByRole("button", { name: /Link this mention/ }).click();
  await expectText(page.locator("[data-links=in]"), "Weekly log");
  await expectText(section, "No note mentions this one without linking it.");
  assert.equal((await ex.data(NOTE_BODY, { id: log })).node.body,
    `${LOG.replace("project beacon", "[[Project Beacon|project beacon]]")}\n\nAdded meanwhile.`);
  await ex.waitHook((vg, [s, t]) => vg.graph.hasDirectedEdge(s, t), [log, target]);
  await ex.shot("linked");
});
