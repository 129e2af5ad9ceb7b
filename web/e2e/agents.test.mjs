// @ts-check
/** Writes made by agents are visible as such in the explorer: a note an agent wrote says so in the detail panel,
 * and a link an agent made is marked in the link lists and drawn dotted in the graph (named in the legend). */
import assert from "node:assert/strict";

import { expectClass, expectCount, expectExactText, scenario } from "./support.mjs";

const AGENT = { "X-Vaultgraph-Agent": "scout" };
const SAVE = "mutation($i: NoteInput!) { saveNote(input: $i) { note { id createdByAgentId } } }";
const LINK = "mutation($i: LinkInput!) { createLink(input: $i) { id origin } }";

scenario("an agent's note and link are marked in the detail panel and the graph", {}, async (ex) => {
  const plan = await ex.makeNote("Human plan", "Written by a person.");
  // The agent writes through the API with its own principal, like an MCP client's write_note and link_items.
  const saved = (await ex.data(SAVE, { i: { title: "Scout findings", body: "Read [[Human plan]] closely." } }, AGENT))
    .saveNote.note;
  assert.equal(saved.createdByAgentId, "scout");
  const link = (await ex.data(LINK, { i: { from: saved.id, to: plan, type: "RELATED" } }, AGENT)).createLink;
  assert.equal(link.origin, "AGENT");

  await ex.open();
  const page = ex.page;
  await ex.waitHook((vg) => vg.graph.order === 2 && vg.graph.size === 2);
  // The graph: the agent's link is dotted and says where it came from; the wikilink is not.
  const edges = await ex.hook((vg) => vg.graph.mapEdges(
    (/** @type {string} */ e, /** @type {any} */ a) => [e, a.origin, a.dash, a.gap]));
  const byId = new Map(edges.map((/** @type {unknown[]} */ edge) => [edge[0], edge.slice(1)]));
  assert.deepEqual(byId.get(link.id), ["AGENT", 1.5, 3]);
  assert.deepEqual([...byId].filter(([id]) => id !== link.id).map(([, attrs]) => attrs[0]), ["WIKILINK"]);
  await expectExactText(page.locator("#graph-legend [data-legend=agent]"), "made by an agent");

  await ex.row("Scout findings").click();
  const detail = page.locator("#detail-pane");
  await expectExactText(detail.locator("h2"), "Scout findings");
  await expectExactText(detail.locator("#detail-written-by"), "written by agent scout");
  const agentRow = detail.locator(`[data-links=out] .link-row[data-link-id='${link.id}']`);
  await expectClass(agentRow, "link-row agent-row");
  await expectExactText(agentRow.locator(".badge-agent"), "agent");
  const wikilinkRow = detail.locator("[data-links=out] .link-row[data-origin=WIKILINK]");
  await expectCount(wikilinkRow, 1);
  await expectCount(wikilinkRow.locator(".badge-agent"), 0);
  await ex.shot("agent-note");

  await ex.row("Human plan").click();
  await expectExactText(detail.locator("h2"), "Human plan");
  await expectCount(detail.locator("#detail-written-by"), 0); // a person wrote this one
  await expectExactText(detail.locator("[data-links=in] .link-row[data-origin=AGENT] .badge-agent"), "agent");
  await expectCount(detail.locator("[data-links=in] .link-row"), 2);
  await ex.shot("human-note-backlinks");
});
