// @ts-check
/** The explorer's first minutes: it loads clean, lists what the API holds, filters it, and opens an item's detail
 * with its links and backlinks. */
import assert from "node:assert/strict";

import { expectCount, expectExactText, expectHidden, expectText, expectVisible, scenario } from "./support.mjs";

scenario("a new install loads without console errors and says what to do", {}, async (ex) => {
  const response = await ex.page.goto(ex.url + "/");
  assert.equal(response?.status(), 200);
  await ex.page.waitForFunction(() => document.body.dataset.ready === "true");
  assert.equal(await ex.page.title(), "vaultgraph explorer");
  await expectText(ex.page.locator("#list-empty-new"), "Your vault is empty");
  await expectVisible(ex.page.locator("#graph-empty"));
  assert.equal(await ex.hook((vg) => vg.graph.order), 0);
  await ex.shot("empty");
});

scenario("with introspection off the explorer boots from the schema it was built for", { introspection: false },
  async (ex) => {
    const refused = await ex.graphql("{ __schema { queryType { name } } }");
    assert.equal(refused.errors?.[0]?.extensions?.code, "FORBIDDEN", JSON.stringify(refused));
    await ex.makeNote("Overview", "Start at the [[Setup Guide]].");
    await ex.open();
    await expectVisible(ex.row("Overview"));
    await ex.row("Overview").click();
    await expectExactText(ex.page.locator("#detail-pane h2"), "Overview");
    await ex.shot("no-introspection");
  });

scenario("a narrow window stacks the panes without sideways scrolling", { full: true }, async (ex) => {
  await ex.makeNote("Overview", "Start at the [[Setup Guide]].");
  await ex.page.setViewportSize({ width: 420, height: 860 });
  await ex.open();
  await expectVisible(ex.row("Overview"));
  const overflow = await ex.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
  await ex.shot("narrow-list");
  await ex.row("Overview").click();
  await expectExactText(ex.page.locator("#detail-pane h2"), "Overview");
  await ex.shot("narrow-detail");
});

scenario("documents and notes made through the API are listed and filtered", { full: true }, async (ex) => {
  await ex.makeDocument("guides/setup.md", "# Setup Guide\nInstall it.");
  await ex.makeDocument("data/people.csv", "name,team\nana,alpha\n");
  await ex.makeDocument("teams/alpha/plan.md", "# Alpha plan\nShip it.", { scope: "TEAM", teamId: "alpha" });
  await ex.makeNote("Overview", "Start at the [[Setup Guide]].");
  await ex.open();
  const page = ex.page;
  const rows = page.locator("#item-list li.item-row");

  for (const title of ["Setup Guide", "people.csv", "Alpha plan", "Overview"]) await expectVisible(ex.row(title));
  await expectText(page.locator("#list-header"), "4 items");
  const chips = page.locator("#type-chips");
  await expectText(chips.locator("[data-type=note]"), "1");
  await expectText(chips.locator("[data-type=markdown]"), "2");
  await ex.shot("listed");

  await chips.locator("[data-type=markdown]").click();
  await expectCount(rows, 2);
  await expectCount(ex.row("Overview"), 0);
  await chips.locator("[data-type=all]").click();
  await expectCount(rows, 4);

  await page.selectOption("#filter-team", "alpha");
  await expectCount(rows, 1);
  await expectText(ex.row("Alpha plan"), "team alpha");
  // The graph follows the same filters: only the team's document stays drawn (with orphans shown: it has no links).
  await ex.hook((vg) => vg.graphPane.setOptions({ orphans: true }));
  const visible = await ex.hook(
    (vg) => vg.graph.filterNodes((/** @type {string} */ n) => vg.sigma.getNodeDisplayData(n)?.visibility !== "hidden").length);
  assert.equal(visible, 1);
  await ex.shot("team-filter");
  await page.selectOption("#filter-team", "");
  await page.selectOption("#filter-scope", "TEAM");
  await expectCount(rows, 1);
});

scenario("an item opens in the detail panel with backlinks and their context", {}, async (ex) => {
  await ex.makeNote("Setup Guide", "Install it with make run.");
  await ex.makeNote("Overview", "Read the [[Setup Guide]] before you start anything.");
  await ex.makeNote("Loose ends", "Someday [[Nowhere Yet]] will exist. #todo");
  await ex.open();
  const page = ex.page;

  await ex.row("Setup Guide").click();
  const detail = page.locator("#detail-pane");
  await expectExactText(detail.locator("h2"), "Setup Guide");
  const backlinks = detail.locator("[data-links=in]");
  await expectText(backlinks.locator("h3"), "1");
  await expectText(backlinks.locator(".link-row"), "Overview");
  await expectText(backlinks.locator(".link-context"), "before you start");
  assert.equal(await ex.hook((vg) => vg.store.selectedId),
    await ex.hook((vg) => [...vg.store.items.values()].find((i) => i.title === "Setup Guide").id));
  assert.ok(page.url().includes("item="), `the selection is not in the URL: ${page.url()}`); // a reload reopens it
  await ex.shot("backlinks");

  // Following the backlink opens its source, whose outgoing link points back.
  await backlinks.getByRole("button", { name: "Overview" }).click();
  await expectExactText(detail.locator("h2"), "Overview");
  await expectText(detail.locator("[data-links=out] .link-row"), "Setup Guide");

  // A ghost shows in its note's outgoing links, marked unresolved.
  await ex.row("Loose ends").click();
  await expectExactText(detail.locator("h2"), "Loose ends");
  await expectText(detail.locator("[data-links=out] .ghost"), "[[");
  await expectText(detail.locator(".tags"), "#todo");

  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  await expectExactText(detail.locator("h2"), "Loose ends");
  await page.keyboard.press("Escape");
  await expectHidden(detail);
});
