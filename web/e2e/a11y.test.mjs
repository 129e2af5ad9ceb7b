// @ts-check
/** Accessibility (issue 26): axe-core (the npm devDependency, read from web/node_modules, never a CDN) over the
 * explorer's main views, the list and graph, search hits, a note in the reading view with its mentions, the graph's
 * View settings with the tenant switcher open, and the note editor: no serious or critical violation. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

import { expectHidden, expectVisible, scenario } from "./support.mjs";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const BLOCKING = new Set(["serious", "critical"]);

/**
 * axe over the whole page as it stands; the serious and critical violations, each with the elements it names.
 * axe is evaluated through the DevTools protocol, which the page's CSP allows (a script tag would be refused).
 * @param {import("./support.mjs").Explorer} ex
 * @param {string} view
 */
async function violations(ex, view) {
  if (!(await ex.page.evaluate("typeof window.axe === 'object'"))) await ex.page.evaluate(await readFile(AXE, "utf8"));
  /** @type {{ id: string, impact: string, help: string, nodes: { target: string[], html: string, failureSummary: string }[] }[]} */
  const found = await ex.page.evaluate(`window.axe.run(document, { resultTypes: ["violations"] })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })) })))`);
  await ex.shot(view);
  return found.filter((v) => BLOCKING.has(v.impact)).map((v) => ({ view, ...v }));
}

const NOTE = `---
status: draft
---
# Plan

| Step | Owner |
| ---- | ----- |
| one  | Ann   |

> [!note] A callout
> Its body.

- [ ] an open task
- [x] a done task

\`\`\`js
const x = 1;
\`\`\`

See [[Roadmap]] and [[Not written yet]]. #planning
`;

scenario("axe-core finds no serious or critical violation on the main views", {}, async (ex) => {
  await ex.makeNote("Roadmap", "The roadmap follows the quarterly plan. #planning");
  await ex.makeNote("Quarterly plan", NOTE);
  await ex.makeDocument("docs/guide.md", "# Guide\n\nSee [[Quarterly plan]].");
  await ex.open();
  const page = ex.page;
  const found = [...await violations(ex, "list-and-graph")];

  await page.selectOption("#search-mode", "KEYWORD");
  await page.fill("#search-input", "plan");
  await page.keyboard.press("Enter");
  await expectVisible(page.locator("#item-list li.hit-row").first());
  found.push(...await violations(ex, "search-hits"));
  await page.fill("#search-input", "");
  await page.keyboard.press("Enter");
  await expectHidden(page.locator("#item-list li.hit-row").first());

  await ex.row("Quarterly plan").click();
  await expectVisible(page.locator("#reading-view"));
  await expectVisible(page.locator("#unlinked-mentions li.mention-row"));
  found.push(...await violations(ex, "reading-view"));

  await page.locator(".graph-view-menu summary").click();
  await expectVisible(page.locator("#graph-colour-by"));
  await ex.figure("settings");
  await page.locator("#tenant-switch summary").click();
  await expectVisible(page.locator("#tenant-input"));
  found.push(...await violations(ex, "graph-and-tenant-settings"));

  await page.click("#detail-edit");
  await expectVisible(page.locator("#editor-pane"));
  found.push(...await violations(ex, "editor"));

  assert.deepEqual(found, [], JSON.stringify(found, null, 2));
});
