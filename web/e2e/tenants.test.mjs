// @ts-check
/** The tenant switcher of development mode (issue 26.4): the explorer reads and writes the tenant it names
 * (X-Vaultgraph-Tenant on every request and on the live socket), and goes back to the server's own. */
import assert from "node:assert/strict";

import { expectExactText, expectHidden, expectVisible, scenario } from "./support.mjs";

scenario("the tenant switcher moves the explorer to another tenant and back", {}, async (ex) => {
  const other = `${(await ex.data("{ viewer { tenant } }")).viewer.tenant}-other`;
  await ex.makeNote("Home note", "In the development tenant.");
  await ex.data("mutation($i: NoteInput!) { saveNote(input: $i) { note { id } } }",
    { i: { title: "Other tenant note", body: "Elsewhere." } }, { "X-Vaultgraph-Tenant": other });
  await ex.open();
  const page = ex.page;
  const home = await page.locator("#tenant-current").textContent();
  await expectVisible(ex.row("Home note"));

  await page.locator("#tenant-switch summary").click();
  await page.fill("#tenant-input", other);
  await ex.shot("switching");
  await page.click("#tenant-submit");
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  await expectExactText(page.locator("#tenant-current"), other);
  await expectVisible(ex.row("Other tenant note"));
  await expectHidden(ex.row("Home note"));
  await ex.waitHook((vg) => vg.graph.order === 1);
  // What the explorer writes goes to that tenant too, and the live socket follows it.
  await page.fill("#capture-input", "captured in the other tenant");
  await page.press("#capture-input", "Enter");
  await expectVisible(page.locator("#item-list li.item-row", { hasText: "daily" }));
  await expectExactText(page.locator("#socket-state[data-state=open]"), "");
  const daily = await ex.data("{ notes(first: 5) { nodes { title } } }", {}, { "X-Vaultgraph-Tenant": other });
  assert.equal(daily.notes.nodes.length, 2, JSON.stringify(daily));
  await ex.shot("other-tenant");

  await page.locator("#tenant-switch summary").click();
  await page.click("#tenant-default");
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  await expectExactText(page.locator("#tenant-current"), home ?? "");
  await expectVisible(ex.row("Home note"));
  await expectHidden(ex.row("Other tenant note"));
  const mine = await ex.data("{ notes(first: 5) { nodes { title } } }");
  assert.deepEqual(mine.notes.nodes.map((/** @type {{ title: string }} */ n) => n.title), ["Home note"]);
});
