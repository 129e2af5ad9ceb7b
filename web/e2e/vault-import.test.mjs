// @ts-check
/** Importing an Obsidian vault from the explorer (issue 26.4): a folder on the server read by importVault, its
 * progress followed on the enrichmentProgress subscription, and a refusal shown as the server words it. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { expectCount, expectHidden, expectText, expectVisible, scenario } from "./support.mjs";

// A 1x1 PNG: a file of the vault that is not markdown, so a document.
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
  + "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082", "hex");

scenario("a vault is imported from the UI with its progress, and refused outside the allowed folders",
  { workers: true, models: true }, async (ex) => {
    const root = process.env.VAULTGRAPH_E2E_DATA_DIR;
    assert.ok(root, "VAULTGRAPH_E2E_DATA_DIR is unset: run this through tests/web/test_explorer_e2e.py");
    await mkdir(path.join(root, "vaults"), { recursive: true });
    const vault = await mkdtemp(path.join(root, "vaults", "ui-import-")); // the folder a development server allows
    await writeFile(path.join(vault, "Alpha.md"), "# Alpha\n\nSee [[Beta]].\n");
    await writeFile(path.join(vault, "Beta.md"), "# Beta\n\nBack to [[Alpha]].\n");
    await mkdir(path.join(vault, "img"));
    await writeFile(path.join(vault, "img", "dot.png"), PNG);
    const outside = await mkdtemp(path.join(os.tmpdir(), "vaultgraph-outside-"));
    try {
      await writeFile(path.join(outside, "Secret.md"), "# Secret\n");
      await ex.open();
      const page = ex.page;
      await page.click("#import-button");
      await expectVisible(page.locator("#import-dialog"));

      // Outside the allowed folders: FORBIDDEN, with the server's message, and nothing imported.
      await page.fill("#import-path", outside);
      await page.click("#import-submit");
      await expectText(page.locator("#import-error"), "FORBIDDEN: ");
      await expectText(page.locator("#import-error"), "is outside the folders this server lets the API read");
      assert.equal(await page.locator("#import-report").isVisible(), false);
      await ex.shot("import-forbidden");

      await page.fill("#import-path", vault);
      await page.click("#import-submit");
      await expectHidden(page.locator("#import-error"));
      await expectText(page.locator("#import-counts"), "3 files read · 2 created · 0 updated · 0 unchanged · 1 attachment");
      // The notes' vectors come after the answer: the subscription counts them down to none.
      await expectText(page.locator("#import-progress"), "Every note is indexed for vector search", 60_000);
      await ex.shot("imported");
      await expectVisible(ex.row("Alpha"));
      await expectVisible(ex.row("Beta"));
      await expectCount(ex.row("Secret"), 0);
      await page.keyboard.press("Escape");
      await expectHidden(page.locator("#import-dialog"));
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
