// @ts-check
/** The graph pane: items drawn by sigma (checked on the live graphology graph through window.__vaultgraph), ghosts
 * never drawn, click to focus, expand by one hop, and a manual link from the detail form becoming an edge. */
import assert from "node:assert/strict";

import { expectExactText, expectText, expectVisible, scenario } from "./support.mjs";

/** @param {unknown[][]} rows */
const sorted = (rows) => rows.map((row) => JSON.stringify(row)).sort();

scenario("the graph draws items and resolved links but never ghosts", {}, async (ex) => {
  const hub = await ex.makeNote("Hub", "Links to [[Spoke one]], [[Spoke two]] and [[Not written yet]].");
  const one = await ex.makeNote("Spoke one", "Back to [[Hub]].");
  const two = await ex.makeNote("Spoke two", "Points at [[Another ghost]].");
  await ex.open();

  await ex.waitHook((vg) => vg.graph.order === 3);
  const nodes = await ex.hook((vg) => vg.graph.nodes());
  assert.deepEqual(new Set(nodes), new Set([hub, one, two])); // no node for either ghost
  const edges = await ex.hook((vg) => vg.graph.mapEdges(
    (/** @type {string} */ _e, /** @type {any} */ a, /** @type {string} */ s, /** @type {string} */ t) => [s, t, a.linkType]));
  assert.deepEqual(sorted(edges), sorted([[hub, one, "WIKILINK"], [hub, two, "WIKILINK"], [one, hub, "WIKILINK"]]));
  // sigma has processed every node into display data and the canvas is in the page.
  const drawn = await ex.hook(
    (vg) => vg.graph.nodes().filter((/** @type {string} */ n) => vg.sigma.getNodeDisplayData(n)).length);
  assert.equal(drawn, 3);
  assert.ok(await ex.page.locator("#graph-canvas canvas").count() > 0, "no canvas in the graph pane");
  await expectText(ex.page.locator("#graph-legend"), "wikilink");
  await expectText(ex.page.locator("#graph-status"), "3 nodes · 3 links");
  await ex.shot("graph");
});

scenario("clicking a node focuses it and opens its detail", { full: true }, async (ex) => {
  const target = await ex.makeNote("Target", "The one to click.");
  await ex.makeNote("Neighbour", "Next to [[Target]].");
  await ex.makeNote("Far away", "Unrelated.");
  await ex.open();
  await ex.waitHook((vg) => vg.graph.order === 3);
  await ex.hook((vg) => vg.graphPane.setOptions({ orphans: true })); // "Far away" has no links: hidden by default

  const point = await ex.nodePoint(target);
  await ex.page.mouse.click(point.x, point.y);
  await expectExactText(ex.page.locator("#detail-pane h2"), "Target");
  assert.equal(await ex.hook((vg) => vg.store.selectedId), target);
  // Focus fades what is not the node or its neighbours.
  const faded = await ex.hook(
    (vg) => vg.graph.nodes().filter((/** @type {string} */ n) => vg.sigma.getNodeDisplayData(n).color === "#d7dbe3"));
  const far = await ex.hook((vg) => [...vg.store.items.values()].find((i) => i.title === "Far away").id);
  assert.deepEqual(faded, [far]);
  await ex.shot("focused");
});

scenario("expanding a node adds its one-hop neighbourhood", { full: true }, async (ex) => {
  const seed = await ex.makeNote("Seed", "Start here.");
  await ex.open();
  await ex.waitHook((vg) => vg.graph.order === 1);
  // Written after the page loaded: the graph does not have it until the seed is expanded.
  const newcomer = await ex.makeNote("Newcomer", "Grew from [[Seed]].");
  await ex.row("Seed").click();
  await ex.page.locator("#detail-expand").click();
  await ex.waitHook((vg, id) => vg.graph.hasNode(id), newcomer);
  assert.equal(await ex.hook((vg, [s, t]) => vg.graph.hasDirectedEdge(s, t), [newcomer, seed]), true);
  await expectExactText(ex.page.locator("#detail-expand"), "Expanded (+1)");
  await ex.shot("expanded");
});

scenario("a manual link from the detail form becomes an edge", { full: true }, async (ex) => {
  const alpha = await ex.makeNote("Alpha", "First.");
  const beta = await ex.makeNote("Beta", "Second.");
  await ex.open();
  const page = ex.page;
  await ex.waitHook((vg) => vg.graph.order === 2);
  assert.equal(await ex.hook((vg) => vg.graph.size), 0);

  await ex.row("Alpha").click();
  await expectExactText(page.locator("#detail-pane h2"), "Alpha");
  await page.selectOption("#link-type", "DEPENDS_ON");
  await page.fill("#link-target", "Beta");
  await page.fill("#link-context", "needs the second first");
  await ex.shot("link-form");
  await page.click("#link-submit");

  await ex.waitHook((vg, [s, t]) => vg.graph.hasDirectedEdge(s, t), [alpha, beta]);
  assert.deepEqual(await ex.hook((vg) => vg.graph.mapEdges((/** @type {string} */ _e, /** @type {any} */ a) => a.linkType)),
    ["DEPENDS_ON"]);
  const outgoing = page.locator("#detail-pane [data-links=out] .link-row");
  await expectText(outgoing, "depends on");
  await expectText(outgoing, "Beta");
  await expectText(outgoing, "needs the second first");
  await expectText(page.locator("#graph-legend"), "depends on");
  await ex.shot("linked");

  const data = await ex.data("query($id: ID!) { node(id: $id) { ... on Item { backlinks { nodes { type origin "
    + "from { id } } } } } }", { id: beta });
  assert.deepEqual(data.node.backlinks.nodes, [{ type: "DEPENDS_ON", origin: "USER", from: { id: alpha } }]);

  // A target that names nothing makes a ghost: listed in the detail, not drawn.
  await page.fill("#link-target", "Gamma someday");
  await page.click("#link-submit");
  await expectVisible(page.locator("#detail-pane [data-links=out] .ghost"));
  assert.deepEqual(await ex.hook((vg) => [vg.graph.order, vg.graph.size]), [2, 1]);
});
