// @ts-check
/** The graph pane's views and defects of issue 26: the local graph (depth, direction, link types), the shortest
 * path through the API, attachments and orphans toggles, drag to pin (kept across a reload), hover lighting the
 * neighbours, the canvas following the pane's width, removed links leaving after an edit, the node count following
 * the filters, and nodes reached by keyboard. */
import assert from "node:assert/strict";

import { expectExactText, expectText, expectValue, expectVisible, scenario } from "./support.mjs";

/** @param {import("./support.mjs").Explorer} ex */
async function settled(ex) {
  await ex.waitHook(() => document.getElementById("graph-status")?.dataset.layout === "done");
}

/** A -> B -> C -> D by wikilinks, B -> D by hand (DEPENDS_ON), and a note linked to nothing.
 * @param {import("./support.mjs").Explorer} ex */
async function chain(ex) {
  const d = await ex.makeNote("Delta", "The end.");
  const c = await ex.makeNote("Charlie", "To [[Delta]].");
  const b = await ex.makeNote("Bravo", "To [[Charlie]].");
  const a = await ex.makeNote("Alpha", "To [[Bravo]].");
  await ex.data("mutation($i: LinkInput!) { createLink(input: $i) { id } }", { i: { from: b, to: d, type: "DEPENDS_ON" } });
  const lonely = await ex.makeNote("Lonely", "Links to nothing.");
  return { a, b, c, d, lonely };
}

/** The largest drawn disc's radius on screen, in pixels.
 * @param {import("./support.mjs").Explorer} ex */
const largestDisc = (ex) => ex.hook((vg) => Math.max(...vg.graph.nodes()
  .filter((/** @type {string} */ n) => vg.graphPane.visibleNodes.has(n))
  .map((/** @type {string} */ n) => vg.sigma.scaleSize(vg.sigma.getNodeDisplayData(n).size))));

/** @param {import("./support.mjs").Explorer} ex */
const drawn = (ex) => ex.hook((vg) => vg.graph.nodes().filter((/** @type {string} */ n) => vg.graphPane.visibleNodes.has(n)).sort());

scenario("the local graph isolates one note by depth, direction and link type", {}, async (ex) => {
  const ids = await chain(ex);
  await ex.open();
  await settled(ex);
  await ex.row("Bravo").click();
  await ex.page.click("#graph-local-open");
  await ex.waitHook((vg, b) => vg.graphPane.local?.center === b && vg.graph.order === 4, ids.b);
  assert.deepEqual(await drawn(ex), [ids.a, ids.b, ids.c, ids.d].sort()); // depth 1, both ways
  await expectText(ex.page.locator("#graph-local-bar"), "Local graph of “Bravo”");
  await expectText(ex.page.locator("#graph-status"), "Local graph, depth 1");

  await ex.page.selectOption("#graph-local-direction", "OUT");
  await ex.waitHook((vg) => vg.graphPane.local?.direction === "OUT" && vg.graph.order === 3);
  assert.deepEqual(await drawn(ex), [ids.b, ids.c, ids.d].sort());
  await ex.page.click("#graph-local-bar .graph-local-types summary");
  await ex.page.check("#graph-local-bar [data-link-type=WIKILINK]");
  await ex.waitHook((vg) => vg.graphPane.local?.linkTypes.length === 1 && vg.graph.order === 2);
  assert.deepEqual(await drawn(ex), [ids.b, ids.c].sort());
  // Deeper along wikilinks: Delta again, through Charlie.
  await ex.page.locator("#graph-local-depth").fill("2");
  await ex.page.locator("#graph-local-depth").dispatchEvent("change");
  await ex.waitHook((vg) => vg.graphPane.local?.depth === 2 && vg.graph.order === 3);
  assert.deepEqual(await drawn(ex), [ids.b, ids.c, ids.d].sort());
  // A handful of nodes is framed as a part of a larger picture: discs of a readable size, not filling the pane.
  const radius = await largestDisc(ex);
  assert.ok(radius >= 4 && radius <= 30, `the largest disc has a radius of ${radius} px`);
  await ex.shot("local");
  await ex.figure("local-graph");

  await ex.page.click("#graph-local-close");
  await ex.waitHook((vg) => vg.graphPane.local === null && vg.graph.order === 5);
  await expectVisible(ex.page.locator("#graph-local-open"));
});

scenario("the shortest path between two chosen notes is drawn from one API query", { full: true }, async (ex) => {
  const ids = await chain(ex);
  await ex.open();
  await settled(ex);
  await ex.row("Alpha").click();
  await ex.page.click("#graph-path-from");
  await ex.row("Delta").click();
  await expectExactText(ex.page.locator("#detail-pane h2"), "Delta");
  await ex.page.click("#graph-path-to");
  await expectText(ex.page.locator("#graph-status"), "Shortest path, 2 links");
  const path = await ex.hook((vg) => [...vg.graphPane.pathNodes].sort());
  assert.deepEqual(path, [ids.a, ids.b, ids.d].sort()); // Alpha -> Bravo -> Delta by the DEPENDS_ON shortcut
  const lit = await ex.hook((vg) => [...vg.graphPane.pathEdges].map((/** @type {string} */ e) =>
    vg.sigma.getEdgeDisplayData(e).color));
  assert.deepEqual(lit, ["#ff6a3d", "#ff6a3d"]);
  await ex.shot("path");
});

scenario("orphans and attachments are off by default and come back with their toggles", { full: true }, async (ex) => {
  const ids = await chain(ex);
  await ex.open();
  await settled(ex);
  assert.ok(!(await drawn(ex)).includes(ids.lonely));
  await expectText(ex.page.locator("#graph-status"), "4 nodes · 4 links (1 not shown)");
  await ex.page.click(".graph-view-menu summary");
  await ex.page.check("#graph-show-orphans");
  await ex.waitHook((vg, id) => vg.graphPane.visibleNodes.has(id), ids.lonely);
  await expectText(ex.page.locator("#graph-status"), "5 nodes · 4 links");
  // Colour by folder: one group per top folder, in the legend.
  await ex.page.selectOption("#graph-colour-by", "folder");
  await expectVisible(ex.page.locator("#graph-legend [data-group]").first());
  await ex.shot("toggles");
});

scenario("the node count follows the filters", {}, async (ex) => {
  await chain(ex);
  await ex.makeDocument("docs/spec.md", "# Spec\n\nSee [[Alpha]].");
  await ex.open();
  await settled(ex);
  await ex.page.click(".graph-view-menu summary");
  await ex.page.check("#graph-show-orphans");
  await expectText(ex.page.locator("#graph-status"), "6 nodes");
  await ex.page.locator("#type-chips [data-type=markdown]").click();
  await expectText(ex.page.locator("#graph-status"), "1 node · 0 links (5 not shown)");
  await ex.page.locator("#type-chips [data-type=all]").click();
  await expectText(ex.page.locator("#graph-status"), "6 nodes");
});

scenario("a dragged node stays where it was put, pinned, after a reload; hover lights its neighbours", { full: true }, async (ex) => {
  const ids = await chain(ex);
  await ex.open();
  await settled(ex);
  await ex.page.waitForTimeout(400); // the camera's first framing
  const box = await ex.page.locator("#graph-canvas").boundingBox();
  assert.ok(box);
  const start = await ex.hook((vg, id) => vg.sigma.graphToViewport(vg.graph.getNodeAttributes(id)), ids.d);
  await ex.page.mouse.move(box.x + start.x, box.y + start.y);
  // Hover: Delta and its neighbours lit, the others faded.
  await ex.waitHook((vg, id) => vg.sigma.getNodeDisplayData(id).color === "#d7dbe3", ids.a);
  assert.notEqual(await ex.hook((vg, id) => vg.sigma.getNodeDisplayData(id).color, ids.c), "#d7dbe3");
  await ex.page.mouse.down();
  for (let i = 1; i <= 8; i += 1) await ex.page.mouse.move(box.x + start.x + i * 8, box.y + start.y + i * 6);
  await ex.page.mouse.up();
  await expectText(ex.page.locator("#graph-status"), "Pinned “Delta”");
  assert.equal(await ex.hook((vg, id) => vg.graph.getNodeAttribute(id, "fixed"), ids.d), true);
  const moved = await ex.hook((vg, id) => { const a = vg.graph.getNodeAttributes(id); return [a.x, a.y]; }, ids.d);
  await ex.open();
  await settled(ex);
  assert.deepEqual(await ex.hook((vg, id) => { const a = vg.graph.getNodeAttributes(id); return [a.x, a.y, a.fixed]; }, ids.d),
    [...moved, true]);
});

scenario("the canvas follows the pane's width when the detail panel closes", { full: true }, async (ex) => {
  await chain(ex);
  await ex.open();
  await settled(ex);
  const width = () => ex.hook(() => document.getElementById("graph-canvas")?.clientWidth);
  const wide = await width();
  await ex.row("Alpha").click();
  await expectVisible(ex.page.locator("#detail-pane"));
  await ex.waitHook((vg) => vg.sigma.getDimensions().width === document.getElementById("graph-canvas")?.clientWidth);
  await ex.page.click("#detail-close");
  await ex.waitHook((_vg, w) => document.getElementById("graph-canvas")?.clientWidth === w, wide);
  // No Fit clicked: sigma's canvas already has the pane's width again.
  await ex.waitHook((vg, w) => vg.sigma.getDimensions().width === w
    && [...document.querySelectorAll("#graph-canvas canvas")].every((c) => /** @type {HTMLElement} */ (c).clientWidth === w), wide);
});

scenario("a link removed by an edit leaves the graph without a reload", { full: true }, async (ex) => {
  const ids = await chain(ex);
  await ex.open();
  await settled(ex);
  await ex.waitHook((vg, [s, t]) => vg.graph.hasDirectedEdge(s, t), [ids.a, ids.b]);
  await ex.row("Alpha").click();
  await ex.page.click("#detail-edit");
  await expectVisible(ex.page.locator("#editor-pane"));
  await expectValue(ex.page.locator("#editor-text"), "To [[Bravo]]."); // loaded, so the edit is a change
  await ex.page.fill("#editor-text", "No links any more.");
  await ex.page.click("#editor-save");
  await expectText(ex.page.locator("#editor-status"), "Saved");
  await ex.waitHook((vg, [s, t]) => !vg.graph.hasDirectedEdge(s, t), [ids.a, ids.b]);
});

scenario("graph nodes are reached and opened by keyboard", { full: true }, async (ex) => {
  const ids = await chain(ex);
  await ex.open();
  await settled(ex);
  await ex.page.focus("#graph-canvas");
  await ex.page.keyboard.press("]");
  // The best-connected node first: Bravo (Alpha, Charlie, Delta).
  await ex.waitHook((vg, b) => vg.graphPane.keyboardNode === b, ids.b);
  await expectText(ex.page.locator("#graph-status"), "Bravo: 3 links — Enter opens");
  await ex.page.keyboard.press("]");
  await ex.waitHook((vg, b) => vg.graphPane.keyboardNode && vg.graphPane.keyboardNode !== b, ids.b);
  // Arrows move to a node in that direction, from wherever the keyboard is.
  const before = await ex.hook((vg) => vg.graphPane.keyboardNode);
  for (const key of ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]) {
    await ex.page.keyboard.press(key);
    if (await ex.hook((vg, b) => vg.graphPane.keyboardNode !== b, before)) break;
  }
  assert.notEqual(await ex.hook((vg) => vg.graphPane.keyboardNode), before);
  const now = await ex.hook((vg) => vg.graphPane.keyboardNode);
  await ex.page.keyboard.press("Enter");
  await ex.waitHook((vg, id) => vg.store.selectedId === id, now);
  await expectVisible(ex.page.locator("#detail-pane h2"));
  await ex.page.focus("#graph-canvas");
  await ex.page.keyboard.press("Escape");
  await ex.waitHook((vg) => vg.graphPane.keyboardNode === null);
  assert.equal(await ex.hook((vg) => vg.store.selectedId), now); // one Esc, one layer
});

