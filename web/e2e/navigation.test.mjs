// @ts-check
/** Getting around the explorer (issue 26.4-26.6): browser history across notes, the tag pane, search that follows
 * the filters, one Tab stop for the list, Esc one layer at a time, and what the explorer says when a save
 * conflicts, a rescan ends, an id never existed or every item is already loaded. */
import assert from "node:assert/strict";

import {
  expectCount, expectExactText, expectHidden, expectText, expectValue, expectVisible, scenario, TINY_PNG,
} from "./support.mjs";

/** WCAG's contrast ratio of an element's text against the first opaque background behind it. */
function contrastOf(/** @type {string} */ selector) {
  const el = document.querySelector(selector);
  if (!el) return null;
  const rgb = (/** @type {string} */ c) => (c.match(/[\d.]+/g) ?? []).map(Number);
  const lum = (/** @type {number[]} */ [r, g, b]) => {
    const f = (/** @type {number} */ v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let node = /** @type {Element | null} */ (el);
  let bg = [255, 255, 255];
  while (node) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] === 1)) { bg = c.slice(0, 3); break; }
    node = node.parentElement;
  }
  const a = lum(rgb(getComputedStyle(el).color).slice(0, 3));
  const b = lum(bg);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

/** A keyword search from the bar; the list's hit rows.
 * @param {import("./support.mjs").Explorer} ex
 * @param {string} query */
async function keywordSearch(ex, query) {
  await ex.page.selectOption("#search-mode", "KEYWORD");
  await ex.page.fill("#search-input", query);
  await ex.page.keyboard.press("Enter");
  return ex.page.locator("#item-list li.hit-row");
}

scenario("back and forward move between the notes read", {}, async (ex) => {
  await ex.makeNote("Third stop", "The end.");
  await ex.makeNote("Second stop", "Then [[Third stop]].");
  await ex.makeNote("First stop", "Go to [[Second stop]].");
  await ex.open();
  const page = ex.page;
  const title = page.locator("#detail-title");
  await ex.row("First stop").click();
  await expectExactText(title, "First stop");
  await page.locator("#reading-view a.wikilink", { hasText: "Second stop" }).click();
  await expectExactText(title, "Second stop");
  await page.locator("#reading-view a.wikilink", { hasText: "Third stop" }).click();
  await expectExactText(title, "Third stop");
  await page.evaluate(() => { window.__sameDocument = true; });
  await page.goBack();
  await expectExactText(title, "Second stop");
  await page.goBack();
  await expectExactText(title, "First stop");
  await page.goForward();
  await expectExactText(title, "Second stop");
  assert.equal(await page.evaluate(() => window.__sameDocument ?? false), true, "history moved without a reload");
  assert.match(page.url(), /#item=note_/);
  await ex.shot("history");
});

scenario("an id that never existed is said to be unknown, not deleted", { full: true }, async (ex) => {
  await ex.makeNote("Only note", "Hello.");
  await ex.open("/#item=note_doesnotexist");
  await expectText(ex.page.locator("#detail-missing"), "No item has the id “note_doesnotexist”");
});

scenario("a tag filters the list, from the tag pane and from a note", { full: true }, async (ex) => {
  await ex.makeNote("Alpha plan", "Ship it. #project/alpha");
  await ex.makeNote("Project index", "All of them. #project");
  await ex.makeNote("Elsewhere", "Unrelated. #other");
  await ex.open();
  const page = ex.page;
  const rows = page.locator("#item-list li.item-row");
  await expectCount(rows, 3);
  await page.click("#tag-pane summary");
  await expectText(page.locator('#tag-list [data-tag="project"]'), "1");
  await page.click('#tag-list [data-tag="project"]');
  await expectCount(rows, 2); // the nested #project/alpha too
  await expectCount(ex.row("Elsewhere"), 0);
  await expectText(page.locator("#list-header"), "2 match the filters");
  await ex.shot("tag-filter");
  await page.click('#tag-list [data-tag="project"]');
  await expectCount(rows, 3);
  // A #tag in the reading view sets the same filter.
  await ex.row("Elsewhere").click();
  await page.locator("#reading-view a.tag", { hasText: "#other" }).click();
  await expectCount(rows, 1);
  await expectVisible(page.locator("#tag-clear"));
  await page.click("#tag-clear");
  await expectCount(rows, 3);
  // Secondary text and chip counts are readable (WCAG AA: 4.5:1).
  for (const selector of ["#type-chips .chip .count", ".item-sub", "#list-header"]) {
    const ratio = await page.evaluate(contrastOf, selector);
    assert.ok(ratio !== null && ratio >= 4.5, `${selector}: contrast ${ratio}`);
  }
});

scenario("search follows the type chips and says what it left out", { full: true }, async (ex) => {
  await ex.makeNote("Apple notes", "Apples ripen in autumn.");
  await ex.makeDocument("guides/apples.md", "# Apple guide\nApples keep in a cool cellar.");
  await ex.open();
  const page = ex.page;
  const hits = await keywordSearch(ex, "apples");
  await expectCount(hits, 2);
  await page.click("#type-chips [data-type=markdown]");
  await expectCount(hits, 1);
  await expectText(hits, "Apple guide");
  // Ranks and fusion on demand.
  await expectHidden(hits.locator(".ranks"));
  await page.click("#search-ranks");
  await expectText(hits.locator(".ranks"), "keyword #1");
  await ex.shot("search-filtered");
  // A failed search does not leave the last one's header standing.
  await page.fill("#search-input", "x".repeat(2100));
  await page.keyboard.press("Enter");
  await expectText(page.locator("#search-results"), "failed");
  assert.ok(!(await page.locator("#search-results").textContent())?.includes("result"));
});

scenario("the list is one Tab stop and the arrow keys move in it", { full: true }, async (ex) => {
  for (const title of ["One", "Two", "Three"]) await ex.makeNote(title, "text");
  await ex.open();
  const page = ex.page;
  const stops = page.locator("#item-list button.item-button[tabindex='0']");
  await expectCount(page.locator("#item-list button.item-button"), 3);
  await expectCount(stops, 1);
  await page.focus("#item-list button.item-button[tabindex='0']");
  await page.keyboard.press("ArrowDown");
  await expectCount(stops, 1);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("tabindex")), "0");
  const focused = await page.evaluate(() => document.activeElement?.closest("li")?.dataset.id);
  assert.equal(await stops.evaluate((b) => b.closest("li")?.dataset.id), focused);
  await page.keyboard.press("Tab"); // out of the list in one press
  assert.equal(await page.evaluate(() => !!document.activeElement?.closest("#item-list")), false);
});

scenario("Esc closes one layer at a time", { full: true }, async (ex) => {
  await ex.makeNote("Layered", "text");
  await ex.open();
  const page = ex.page;
  await ex.row("Layered").click();
  await expectVisible(page.locator("#detail-pane"));
  await page.click("#upload-button");
  await expectVisible(page.locator("#upload-dialog"));
  await page.keyboard.press("Escape");
  await expectHidden(page.locator("#upload-dialog"));
  await expectVisible(page.locator("#detail-pane")); // still open: that was the dialog's Esc
  await page.keyboard.press("Escape");
  await expectHidden(page.locator("#detail-pane"));
});

scenario("a save that conflicts offers to reload or merge", { full: true }, async (ex) => {
  const id = await ex.makeNote("Shared page", "first version");
  await ex.open();
  const page = ex.page;
  await ex.row("Shared page").click();
  await page.click("#detail-edit");
  await expectText(page.locator("#editor-status"), "shared-page");
  // Someone else saves meanwhile.
  await ex.makeNote("Shared page", "their version", { id });
  await page.fill("#editor-text", "my version");
  await page.click("#editor-save");
  await expectVisible(page.locator("#editor-conflict"));
  await ex.shot("conflict");
  await page.click("#conflict-merge");
  await ex.waitHook(() => /** @type {HTMLTextAreaElement} */ (document.querySelector("#editor-text")).value.includes("======="));
  const merged = await page.inputValue("#editor-text");
  assert.ok(merged.includes("my version") && merged.includes("their version"), merged);
  await page.fill("#editor-text", "my version and their version");
  await page.click("#editor-save");
  await expectText(page.locator("#editor-status"), "Saved");
  const saved = await ex.data("query($id: ID!) { note(id: $id) { body } }", { id });
  assert.equal(saved.note.body, "my version and their version");
  // And again, this time taking the saved version.
  await ex.makeNote("Shared page", "theirs again", { id });
  await page.fill("#editor-text", "mine again");
  await page.click("#editor-save");
  await page.click("#conflict-reload");
  await expectValue(page.locator("#editor-text"), "theirs again");
});

scenario("a rescan says it finished, with what it found", { full: true }, async (ex) => {
  await ex.open();
  await ex.page.click("#rescan-button");
  await expectText(ex.page.locator(".toast-success"), "Rescan finished");
  assert.ok(!(await ex.page.locator(".toast-success").textContent())?.includes("started"));
});

// The test model endpoint embeds the 101 saves in microseconds (the offline model took most of a minute).
scenario("Load more is not offered once every item is here", { models: true, full: true }, async (ex) => {
  // 101 notes: one more than a page of the list; the graph's load brings them all the same.
  for (let start = 0; start < 101; start += 15) { // 15 aliases: the API's per-document bound
    const n = Math.min(15, 101 - start);
    const fields = Array.from({ length: n }, (_, i) =>
      `n${i}: saveNote(input: { title: "Bulk ${String(start + i).padStart(3, "0")}", body: "b" }) { note { id } }`);
    await ex.data(`mutation { ${fields.join(" ")} }`);
  }
  await ex.open();
  const page = ex.page;
  await ex.waitHook((vg) => vg.store.items.size === 101);
  await expectText(page.locator("#list-header"), "101 items");
  await expectHidden(page.locator("#list-more"));
});

scenario("the folder tree filters the list, subfolders included", { full: true }, async (ex) => {
  await ex.makeDocument("guides/setup.md", "# Setup\nInstall.");
  await ex.makeDocument("guides/deep/tuning.md", "# Tuning\nFaster.");
  await ex.makeDocument("data/people.csv", "name\nana\n");
  await ex.makeNote("Loose", "At the top.");
  await ex.open();
  const page = ex.page;
  const rows = page.locator("#item-list li.item-row");
  await expectCount(rows, 4);
  await page.click("#folder-pane summary");
  await expectText(page.locator('#folder-list [data-folder="guides"]'), "2");
  await page.click('#folder-list [data-folder="guides"]');
  await expectCount(rows, 2);
  await page.click('#folder-list [data-folder="guides/deep"]');
  await expectCount(rows, 1);
  await expectVisible(ex.row("Tuning"));
  await page.selectOption("#folder-sort", "count");
  await expectExactText(page.locator("#folder-list > ul > li > button").first(), "guides2");
  await ex.shot("folders");
  await page.click('#folder-list [data-folder="guides/deep"]');
  await expectCount(rows, 4);
});

scenario("search follows the folder tree, and attachments stay out of the hits", { full: true }, async (ex) => {
  await ex.importVault({ "pics/apples.png": TINY_PNG }); // named like the word searched: an attachment, no hit
  await ex.makeNote("Apple notes", "Apples ripen in autumn.");
  await ex.makeDocument("guides/apples.md", "# Apple guide\nApples keep in a cool cellar.");
  await ex.makeDocument("recipes/apples.md", "# Apple pie\nApples, butter, flour.");
  await ex.open();
  const page = ex.page;
  const hits = await keywordSearch(ex, "apples");
  await expectCount(hits, 3);
  await expectCount(hits.filter({ hasText: "apples.png" }), 0);
  await expectText(page.locator("#search-results"), "3 results");

  // The folder tree narrows the hits as it narrows the list, subfolders included, and gives them back.
  await page.click("#folder-pane summary");
  await page.click('#folder-list [data-folder="guides"]');
  await expectCount(hits, 1);
  await expectText(hits, "Apple guide");
  await ex.shot("search-folder");
  await page.click('#folder-list [data-folder="guides"]');
  await expectCount(hits, 3);
});

scenario("a backlink's context is cut at whole words", { full: true }, async (ex) => {
  await ex.makeNote("Target page", "Here.");
  const words = "alphabetical bookkeeping characteristically disproportionately extraordinarily";
  await ex.makeNote("Long source", `${words} [[Target page]] ${words.split(" ").reverse().join(" ")}`);
  await ex.open();
  await ex.row("Target page").click();
  const context = ex.page.locator("[data-links=in] .link-context");
  await expectText(context, "[[Target page]]");
  const shown = (await context.textContent() ?? "").replace(/[…]/g, " ");
  const whole = new Set(words.split(" "));
  for (const word of shown.split(/\s+/).filter((w) => w && !w.includes("[[") && !w.includes("]]") && w !== "Target")) {
    assert.ok(whole.has(word.replace(/[.,]$/, "")), `a word cut in two: ${JSON.stringify(word)} in ${JSON.stringify(shown)}`);
  }
});

scenario("the explorer's files come compressed, fingerprinted assets cached for a year, the page revalidated", { full: true },
  async (ex) => {
    /** @type {{ url: string, headers: Record<string, string>, size: number }[]} */
    const seen = [];
    /** @type {Promise<void>[]} */
    const reading = [];
    ex.page.on("response", (response) => {
      if (!response.url().startsWith(ex.url) || response.url().includes("/graphql")) return;
      reading.push((async () => {
        const headers = await response.allHeaders();
        seen.push({ url: response.url(), headers, size: (await response.body().catch(() => Buffer.alloc(0))).length });
      })());
    });
    await ex.open();
    await Promise.all(reading);
    const page = seen.find((r) => new URL(r.url).pathname === "/");
    assert.ok(page, JSON.stringify(seen.map((r) => r.url)));
    assert.match(page.headers["cache-control"] ?? "", /no-cache/);
    const assets = seen.filter((r) => /\/assets\/.+-[\w-]{8,}\.(js|css)$/.test(new URL(r.url).pathname));
    assert.ok(assets.length >= 2, `fingerprinted assets: ${JSON.stringify(seen.map((r) => r.url))}`);
    for (const asset of assets) {
      assert.match(asset.headers["cache-control"] ?? "", /max-age=31536000.*immutable|immutable.*max-age=31536000/, asset.url);
      // Answers of 1 KB or more are gzipped; the smaller ones gain nothing from it.
      if (asset.size >= 1024) assert.equal(asset.headers["content-encoding"], "gzip", asset.url);
    }
    assert.ok(assets.some((a) => a.size >= 100_000 && a.headers["content-encoding"] === "gzip"), "the main bundle is gzipped");
  });
