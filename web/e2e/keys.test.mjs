// @ts-check
/** Outside development mode the explorer asks for an API key, keeps it in the browser, and sends it on HTTP
 * (Authorization: Bearer) and in the WebSocket's connection_init. pytest makes the key (`apiKey: true`). */
import assert from "node:assert/strict";

import { expectText, expectVisible, scenario } from "./support.mjs";

// A 401 on the first load is reported in the page, and the browser logs the failed request; nothing else.
const NEEDS = { apiKey: true, allowError: (/** @type {string} */ error) => error.includes("401") };

scenario("a server that needs a key gets one from the person", NEEDS, async (ex) => {
  assert.ok(ex.key);
  const headers = { authorization: `Bearer ${ex.key}` };
  const anonymous = await ex.graphql("{ notes { nodes { id } } }");
  assert.equal(anonymous.status, 401, JSON.stringify(anonymous));
  assert.equal(anonymous.errors?.[0]?.extensions?.code, "UNAUTHENTICATED", JSON.stringify(anonymous));
  await ex.data('mutation { saveNote(input: {title: "Behind a key", body: "Private."}) { note { id } } }', {}, headers);
  const page = ex.page;
  await page.goto(ex.url + "/");
  await page.waitForFunction(() => document.body.dataset.ready === "error");
  await expectText(page.locator("#list-empty"), "This server needs an API key");
  await ex.shot("key-asked");
  await page.fill("#api-key", ex.key);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  await expectVisible(ex.row("Behind a key"));
  // The live socket authenticated too (connection_init carries the key).
  await page.waitForFunction(() => document.getElementById("socket-state")?.dataset.state === "open");
  await ex.shot("key-used");
});
