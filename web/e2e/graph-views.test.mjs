// @ts-check
/** The graph pane's views and defects of issue 26: the local graph (depth, direction, link types), the shortest
 * path through the API, attachments and orphans toggles, drag to pin (kept across a reload), hover lighting the
 * neighbours, the canvas following the pane's width, removed links leaving after an edit, the node count following
 * the filters, and nodes reached by keyboard. */
import assert from "node:assert/strict";

import {
  expectExactText, expectHidden, expectText, expectValue, expectVisible, scenario, TINY_PNG,
} from "./support.mjs";

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

scenario("the node count follows the filters", { full: true }, async (ex) => {
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
  const start = await ex.nodePoint(ids.d);
  await ex.page.mouse.move(start.x, start.y);
  // Hover: Delta and its neighbours lit, the others faded.
  await ex.waitHook((vg, id) => vg.sigma.getNodeDisplayData(id).color === "#d7dbe3", ids.a);
  assert.notEqual(await ex.hook((vg, id) => vg.sigma.getNodeDisplayData(id).color, ids.c), "#d7dbe3");
  await ex.page.mouse.down();
  for (let i = 1; i <= 8; i += 1) await ex.page.mouse.move(start.x + i * 8, start.y + i * 6);
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

scenario("attachments, tags and unresolved links come in with their toggles, and nodes are coloured by tag", { full: true }, async (ex) => {
  await ex.importVault({
    "Gallery.md": "The picture: ![[pic.png]]. See [[Notes on art]] and [[Nowhere]]. #art",
    "Notes on art.md": "Back to the [[Gallery]]. #art #study",
    "pic.png": TINY_PNG,
  });
  const items = (await ex.data("{ documents { nodes { id path } } notes { nodes { id title } } }"));
  const pic = items.documents.nodes.find((/** @type {{ path: string }} */ d) => d.path.endsWith("pic.png")).id;
  const gallery = items.notes.nodes.find((/** @type {{ title: string }} */ n) => n.title === "Gallery").id;
  await ex.open();
  await settled(ex);
  await ex.waitHook((vg, [g, p]) => vg.graph.hasNode(p) && vg.graph.hasDirectedEdge(g, p), [gallery, pic]);
  assert.ok(!(await drawn(ex)).includes(pic), "an attachment is not drawn by default, linked or not");
  await ex.page.click(".graph-view-menu summary");
  await ex.page.check("#graph-show-attachments");
  await ex.waitHook((vg, id) => vg.graphPane.visibleNodes.has(id), pic);
  await ex.page.uncheck("#graph-show-attachments");
  await ex.waitHook((vg, id) => !vg.graphPane.visibleNodes.has(id), pic);

  // Tags as nodes: one node per tag, linked from each note that carries it.
  await ex.page.check("#graph-show-tags");
  await ex.waitHook((vg) => vg.graphPane.visibleNodes.has("tag:art") && vg.graphPane.visibleNodes.has("tag:study"));
  assert.equal(await ex.hook((vg) => vg.graph.degree("tag:art")), 2);
  assert.equal(await ex.hook((vg) => vg.graph.degree("tag:study")), 1);
  await ex.page.uncheck("#graph-show-tags");
  await ex.waitHook((vg) => !vg.graph.hasNode("tag:art"));

  // Unresolved links as ghost nodes (drawn from `ghosts`: the API's graph view holds none), linked from their sources.
  assert.ok(!(await ex.hook((vg) => vg.graph.nodes().some((/** @type {string} */ n) => n.startsWith("ghost:")))));
  await ex.page.check("#graph-show-ghosts");
  const ghostOf = (/** @type {any} */ vg, /** @type {string} */ g) => vg.graph.nodes().find((/** @type {string} */ n) =>
    n.startsWith("ghost:") && vg.graphPane.visibleNodes.has(n) && vg.graph.hasDirectedEdge(g, n));
  await ex.waitHook(ghostOf, gallery);
  const ghost = await ex.hook(ghostOf, gallery);
  assert.equal(await ex.hook((vg, n) => vg.graph.getNodeAttribute(n, "label"), ghost), "Nowhere");
  await expectText(ex.page.locator("#graph-status"), "Unresolved links: 1 ghost");
  await ex.page.uncheck("#graph-show-ghosts");
  await ex.waitHook((vg) => !vg.graph.nodes().some((/** @type {string} */ n) => n.startsWith("ghost:")));

  // Colour by tag: both notes' first tag is "art", one group in the legend, one colour on the discs.
  await ex.page.selectOption("#graph-colour-by", "tag");
  await expectText(ex.page.locator('#graph-legend [data-group="art"]'), "art");
  const colours = await ex.hook((vg) => [...new Set(vg.graph.nodes().filter((/** @type {string} */ n) => vg.graphPane.visibleNodes.has(n))
    .map((/** @type {string} */ n) => vg.sigma.getNodeDisplayData(n).color))]);
  assert.equal(colours.length, 1, JSON.stringify(colours));
  await ex.shot("tags-and-attachments");
});

scenario("the context menu expands one link type, opens the local graph and unpins", { full: true }, async (ex) => {
  const ids = await chain(ex);
  await ex.open();
  await settled(ex);
  // Alpha's local graph, depth 1 (Alpha, Bravo); Bravo's menu expands its DEPENDS_ON links alone: Delta, not Charlie.
  await ex.row("Alpha").click();
  await ex.page.click("#graph-local-open");
  await ex.waitHook((vg, a) => vg.graphPane.local?.center === a && vg.graph.order === 2, ids.a);
  await settled(ex);
  const rightClick = async (/** @type {string} */ id) => {
    const at = await ex.nodePoint(id, { fit: true }); // the whole view, clear of the bars at the pane's top
    await ex.page.mouse.click(at.x, at.y, { button: "right" });
    await expectVisible(ex.page.locator("#graph-menu"));
  };
  await rightClick(ids.b);
  await expectExactText(ex.page.locator("#graph-menu .graph-menu-title"), "Bravo");
  await ex.page.click('#graph-menu [data-expand="DEPENDS_ON"]');
  await ex.waitHook((vg, d) => vg.graph.hasNode(d), ids.d);
  assert.equal(await ex.hook((vg, c) => vg.graph.hasNode(c), ids.c), false);
  await ex.waitHook(() => document.getElementById("graph-status")?.dataset.layout === "running", null, 2_000).catch(() => {});
  await settled(ex); // the expansion's layout
  assert.equal(await ex.page.locator("#graph-menu").isVisible(), false);

  // Pinned by hand, unpinned from the menu.
  await ex.hook((vg, d) => vg.graph.setNodeAttribute(d, "fixed", true), ids.d);
  await settled(ex);
  await rightClick(ids.d);
  await ex.page.click('#graph-menu [data-action="unpin"]');
  await expectText(ex.page.locator("#graph-status"), "Unpinned “Delta”");
  assert.equal(await ex.hook((vg, d) => vg.graph.getNodeAttribute(d, "fixed"), ids.d), false);

  // The menu's local graph, and Esc closes the menu alone.
  await rightClick(ids.d);
  await ex.page.keyboard.press("Escape");
  await expectHidden(ex.page.locator("#graph-menu"));
  await expectVisible(ex.page.locator("#detail-pane"));
  await rightClick(ids.d);
  await ex.page.click('#graph-menu [data-action="local"]');
  await ex.waitHook((vg, d) => vg.graphPane.local?.center === d, ids.d);
  await expectText(ex.page.locator("#graph-local-bar"), "Local graph of “Delta”");
});
