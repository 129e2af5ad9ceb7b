// @ts-check
/** Search, live enrichment and upload in the explorer, with the server's enrichment workers on. These parts follow
 * the API as it grows: each scenario checks the server's schema first, tests the working feature when it is there,
 * and otherwise checks the explorer says it is not available (disabled, with a note) and skips. */
import assert from "node:assert/strict";

import {
  expectCount, expectEnabled, expectExactText, expectHidden, expectText, expectVisible, scenario,
} from "./support.mjs";

const TERMINAL = ["DONE", "SKIPPED", "FAILED"];
const WORKERS = { workers: true };

scenario("search lists hybrid hits with their score breakdown and a hit opens with its backlinks",
  { ...WORKERS, full: true }, async (ex) => {
  await ex.makeNote("Authentication flow", "How login tokens are issued, refreshed and revoked.");
  await ex.makeNote("Gardening", "Tomatoes need sun and water.");
  await ex.makeNote("Security review", "Every quarter, walk through the [[Authentication flow]] again.");
  await ex.open();
  const page = ex.page;
  if (!await ex.schemaHas("Query", "search")) {
    await expectEnabled(page.locator("#search-input"), false);
    await expectText(page.locator("#search-note"), "no Query.search yet");
    ex.skip("this server has no Query.search yet: the bar is disabled with a note (checked)");
  }

  await page.fill("#search-input", "login tokens");
  await page.keyboard.press("Enter");
  const first = page.locator("#item-list li.hit-row").first();
  await expectText(first, "Authentication flow");
  await expectVisible(first.locator(".score.total"));
  await expectVisible(first.locator(".score.kw"));
  await expectVisible(first.locator(".snippet mark").first());
  await expectText(page.locator("#search-results"), "for “login tokens”");
  await ex.shot("hits");
  await first.locator("button").click();
  const detail = page.locator("#detail-pane");
  await expectExactText(detail.locator("h2"), "Authentication flow");
  await expectText(detail.locator("[data-links=in] .link-row"), "Security review");
  await ex.shot("hit-backlinks");

  await page.locator("#search-input").press("Escape");
  await expectCount(page.locator("#item-list li.item-row:not(.hit-row)"), 3);
});

scenario("a graph-mode hit highlights the links it came by", { ...WORKERS, full: true }, async (ex) => {
  if (!await ex.schemaHas("Query", "search")) ex.skip("this server has no Query.search yet");
  const k8s = await ex.makeNote("Kubernetes deployment", "Rolling updates with kubectl, one pod at a time.");
  const ops = await ex.makeNote("Ops handbook", "Start with [[Kubernetes deployment]].");
  await ex.open();
  const page = ex.page;
  await page.selectOption("#search-mode", "GRAPH");
  // Above 0.6 only the keyword-and-vector hit is an entry point; the handbook comes in by its link.
  await page.selectOption("#search-min", "0.7");
  await page.fill("#search-input", "kubectl rolling updates");
  await page.keyboard.press("Enter");
  const reached = page.locator("#item-list li.hit-row", { hasText: "Ops handbook" });
  await expectText(reached.locator(".via"), "Kubernetes deployment");
  await reached.locator("button").click();
  await ex.waitHook((vg) => vg.graphPane.pathEdges && vg.graphPane.pathEdges.size === 1);
  const edge = await ex.hook((vg, [s, t]) => vg.graph.edges(s, t)[0], [ops, k8s]);
  assert.equal(await ex.hook((vg, e) => vg.sigma.getEdgeDisplayData(e).color, edge), "#ff6a3d");
  await expectText(page.locator("#graph-status"), "Path of a graph hit");
  await ex.shot("path");
});

scenario("stage badges follow enrichment events without a reload", WORKERS, async (ex) => {
  await ex.open();
  const page = ex.page;
  if (!await ex.schemaHas("Subscription", "enrichmentEvents")) {
    await expectText(page.locator("#progress"), "not available on this server yet");
    ex.skip("this server has no Subscription.enrichmentEvents yet: the bar says so (checked)");
  }

  await page.evaluate(() => { window.__sameDocument = true; });
  await page.waitForFunction(() => document.getElementById("socket-state")?.dataset.state === "open");
  const doc = await ex.makeDocument("notes/live.md", "# Live badge\nWatch the badge move through the stages.");
  const badge = page.locator(`#item-list [data-stage-for="${doc}"]`);
  await expectVisible(badge, 20_000);
  await ex.shot("badge-arrived");
  await page.waitForFunction(
    ([id, stages]) => stages.includes(
      document.querySelector(`#item-list [data-stage-for="${id}"]`)?.getAttribute("data-stage") ?? ""),
    /** @type {[string, string[]]} */ ([doc, TERMINAL]), { timeout: 90_000 });
  assert.equal(await page.evaluate(() => window.__sameDocument), true); // updated live, never reloaded
  await expectText(page.locator("#progress"), "done");
  await ex.shot("badge-final");
});

scenario("an uploaded file reaches DONE through the subscription", { ...WORKERS, full: true }, async (ex) => {
  await ex.open();
  const page = ex.page;
  await page.click("#upload-button");
  const dialog = page.locator("#upload-dialog");
  await expectVisible(dialog);
  await page.selectOption("#upload-target", "SHARED");
  await expectHidden(page.locator("#upload-owner"));
  await page.selectOption("#upload-target", "TEAM");
  await expectVisible(page.locator("#upload-owner"));
  await page.fill("#upload-owner", "research");
  await page.setInputFiles("#upload-input", [
    { name: "upload-one.md", mimeType: "text/markdown", buffer: Buffer.from("# Uploaded one\nFirst file, about tides.") },
    { name: "upload-two.txt", mimeType: "text/plain", buffer: Buffer.from("Second file.") },
  ]);
  await expectCount(page.locator("#upload-files li"), 2);
  await ex.shot("upload-dialog");
  await expectEnabled(page.locator("#rescan-button"), await ex.schemaHas("Mutation", "rescanWorkspace"));
  if (!await ex.schemaHas("Mutation", "uploadDocuments")) {
    await expectText(page.locator("#upload-note"), "not available on this server yet");
    await expectEnabled(page.locator("#upload-submit"), false);
    ex.skip("this server has no uploadDocuments yet: the dialog is disabled with a note (checked)");
  }

  await page.evaluate(() => { window.__sameDocument = true; });
  await page.waitForFunction(() => document.getElementById("socket-state")?.dataset.state === "open");
  await page.click("#upload-submit");
  await expectHidden(dialog, 60_000);
  await expectVisible(ex.row("Uploaded one"));
  await expectVisible(ex.row("upload-two"));
  const stored = (await ex.data('{ documents(teamId: "research") { nodes { id path teamId } } }')).documents;
  /** @type {Map<string, { id: string }>} */
  const byPath = new Map(stored.nodes.map((/** @type {any} */ n) => [n.path, n]));
  // The chosen team's folder of the workspace.
  assert.deepEqual(new Set(byPath.keys()), new Set(["upload-one.md", "upload-two.txt"]));
  const doc = byPath.get("upload-one.md")?.id;
  const badge = page.locator(`#item-list [data-stage-for="${doc}"]`);
  await expectVisible(badge);
  await ex.shot("upload-badge");
  await page.waitForFunction(
    (id) => document.querySelector(`#item-list [data-stage-for="${id}"]`)?.getAttribute("data-stage") === "DONE",
    doc, { timeout: 180_000 });
  assert.equal(await page.evaluate(() => window.__sameDocument), true); // followed live, never reloaded
  await ex.shot("upload-done");
});

scenario("a link suggestion is accepted from the detail panel", { ...WORKERS, full: true }, async (ex) => {
  const espresso = await ex.makeNote("Espresso brewing", "Grind fine; nine bar of pressure; a 25 second shot.");
  const extraction = await ex.makeNote("Coffee extraction", "Espresso extraction depends on grind size and pressure.");
  await ex.makeNote("Bicycle repair", "Patch the inner tube, then check the tyre.");
  await ex.open();
  const page = ex.page;
  await ex.row("Espresso brewing").click();
  const suggestions = page.locator("#suggestions");
  if (!(await ex.schemaHas("Note", "suggestions") && await ex.schemaHas("Mutation", "acceptSuggestion"))) {
    await expectText(suggestions, "not available on this server yet");
    ex.skip("this server has no link suggestions yet: the panel says so (checked)");
  }

  const row = suggestions.locator(".suggestion-row", { hasText: "Coffee extraction" });
  await expectVisible(row);
  await expectText(row, "similarity");
  await ex.shot("suggestions");
  await row.getByRole("button", { name: "Accept" }).click();
  await expectText(page.locator("#detail-pane [data-links=out] .link-row"), "Coffee extraction");
  await ex.waitHook((vg, [s, t]) => vg.graph.hasDirectedEdge(s, t), [espresso, extraction]);
  await ex.shot("accepted");
});

/** In the page: whether the reading view's "Deploy" heading is inside the detail pane's visible part. */
function deployInView() {
  const heading = document.querySelector("#reading-view #h-deploy");
  const pane = document.getElementById("detail-pane");
  if (!heading || !pane) return false;
  const [h, p] = [heading.getBoundingClientRect(), pane.getBoundingClientRect()];
  return h.top >= p.top - 1 && h.bottom <= p.bottom + 1;
}

scenario("a document's topics jump to their section, and a search hit names the topic that matched", { ...WORKERS, full: true }, async (ex) => {
  if (!await ex.schemaHas("Document", "topics")) ex.skip("this server has no Document.topics yet");
  const filler = Array.from({ length: 14 }, (_, i) => `Paragraph ${i} of the setup, long enough to push the next section down.`).join("\n\n");
  const doc = await ex.makeDocument("guides/handbook.md",
    `# Handbook\n\nWhat this covers.\n\n## Setup\n\n${filler}\n\n## Deploy\n\nShip the release with kubectl rollouts, one pod at a time, and watch the error rate before the next.\n`);
  // (A section under 100 characters folds into the one before it: text/topics.py, TOPIC_MIN_CHARS.)
  // Enrichment (EMBED) writes the topics: wait for them through the API.
  const deadline = Date.now() + 120_000;
  /** @type {{ name: string }[]} */
  let topics = [];
  while (Date.now() < deadline) {
    const data = await ex.data("query($id: ID!) { node(id: $id) { ... on Document { topics { name } } } }", { id: doc });
    topics = data.node.topics;
    if (topics.some((t) => t.name === "Deploy")) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  assert.ok(topics.some((t) => t.name === "Deploy"), `topics: ${JSON.stringify(topics)}`);
  await ex.open();
  const page = ex.page;
  await ex.row("Handbook").click();
  const section = page.locator("#document-topics");
  const deploy = section.locator("li.topic-row", { hasText: "Deploy" });
  await expectVisible(deploy);
  await expectText(section.locator("h3 .count"), String(topics.length));
  await expectText(deploy.locator(".topic-path"), "Handbook");
  await expectVisible(page.locator("#reading-view #h-deploy"));
  assert.equal(await ex.hook(deployInView), false, "the Deploy heading starts below the fold");
  await deploy.locator("button").click();
  await ex.waitHook(deployInView);
  await ex.shot("topics");

  // A keyword hit in that section names it on its row.
  await page.selectOption("#search-mode", "KEYWORD");
  await page.fill("#search-input", "kubectl rollouts");
  await page.keyboard.press("Enter");
  const hit = page.locator("#item-list li.hit-row", { hasText: "Handbook" });
  await expectText(hit.locator(".hit-topic"), "Deploy");
  // And opens the document at that section: closed first, so the text arrives after the panel is drawn.
  await page.click("#detail-close");
  await expectHidden(page.locator("#detail-pane"));
  await hit.locator("button").click();
  await expectVisible(page.locator("#reading-view #h-deploy"));
  await ex.waitHook(deployInView);
  await ex.shot("hit-topic");
});
