// @ts-check
/** The reading view (issue 26.1): a note rendered whole in the detail pane, safely; attachments shown as what they
 * are; links that navigate, preview on hover, or start the note they name. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { expectCount, expectExactText, expectHidden, expectText, expectValue, expectVisible, scenario } from "./support.mjs";

// A 1x1 PNG, and an SVG that would set a flag if it ever ran as a document.
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
  + "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082", "hex");
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#7c5cff"/>'
  + "<script>window.__pwned = 'svg'</script></svg>";

const READING = `---
status: draft
related: "[[Embedded]]"
---
# Overview

| Col A | Col B |
| ----- | ----- |
| one   | two   |

> [!warning] Careful here
> The callout's body.

- [ ] an open task
- [x] a done task

\`\`\`python
print("<b>not bold</b>")
\`\`\`

![[Embedded]]

![[Embedded#Part two]]

![[dot.png]]

See [[Embedded|the embedded note]] and [[Missing note]].

<img src=x onerror="window.__pwned = 'img'">
<script>window.__pwned = 'script'</script>
<a href="javascript:window.__pwned='href'">a javascript: link</a>
`;

/** A vault of two attachments imported through importVault, from a folder of the server's data folder. */
async function importAttachments(/** @type {import("./support.mjs").Explorer} */ ex) {
  const report = await ex.importVault({ "img/dot.png": PNG, "img/logo.svg": SVG });
  assert.deepEqual([...report.attachments].sort(), ["img/dot.png", "img/logo.svg"]);
}

// Chromium reports the page's CSP refusing the note's inline handler as soon as an HTML parser reads it, DOMPurify's
// own inert parse included (before DOMPurify drops the attribute): the second line of defence, seen, not a failure.
const CSP_REFUSED_HANDLER = (/** @type {string} */ error) =>
  error.startsWith("Executing inline event handler violates the following Content Security Policy directive");

scenario("the reading view renders a note's markdown and runs nothing from it", { allowError: CSP_REFUSED_HANDLER }, async (ex) => {
  await importAttachments(ex);
  await ex.makeNote("Embedded", "# Intro\n\nThe intro text.\n\n## Part two\n\nSecond part body.\n\n## Part three\n\nThird part body.\n");
  await ex.makeNote("Reading test", READING);
  await ex.open();
  const page = ex.page;
  await ex.row("Reading test").click();
  const view = page.locator("#reading-view");
  await expectVisible(view);

  // Properties as a table (a wikilink in a value is a link), never the YAML itself.
  await expectExactText(view.locator("table.properties th").first(), "status");
  await expectExactText(view.locator("table.properties td").first(), "draft");
  await expectExactText(view.locator("table.properties a.wikilink"), "Embedded");
  assert.ok(!(await view.textContent())?.includes("status: draft"));
  await expectExactText(page.locator("#reading-view > h1"), "Overview");
  // GFM table, callout, task list, code kept as text.
  await expectExactText(view.locator("table:not(.properties) th").first(), "Col A");
  await expectExactText(view.locator("table:not(.properties) td").nth(1), "two");
  await expectExactText(view.locator("blockquote.callout-warning .callout-title"), "Careful here");
  await expectText(view.locator("blockquote.callout-warning"), "The callout's body.");
  await expectCount(view.locator("li.task-list-item input[type=checkbox]"), 2);
  await expectCount(view.locator("li.task-list-item input:checked"), 1);
  await expectText(view.locator("pre code.language-python"), 'print("<b>not bold</b>")');
  await expectCount(view.locator("pre b"), 0);
  // Embeds: the whole note, then one section of it (up to the next heading of its level).
  const embeds = view.locator("span.embed-filled:not(.embed-image) > .embed-body");
  await expectCount(embeds, 2);
  await expectText(embeds.nth(0), "The intro text.");
  await expectText(embeds.nth(1), "Second part body.");
  assert.ok(!(await embeds.nth(1).textContent())?.includes("Third part body."));
  // The image embed is the attachment's bytes, drawn.
  await ex.waitHook(() => {
    const img = document.querySelector("#reading-view img.attachment-image");
    return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 1 && img.src.startsWith("blob:");
  });
  // Links: resolved (with its alias) and unresolved.
  await expectExactText(view.locator("a.wikilink:not(.unresolved)", { hasText: "the embedded note" }), "the embedded note");
  await expectExactText(view.locator("a.wikilink.unresolved"), "Missing note");
  // Nothing of the note's own HTML ran or stayed able to run; the note's <img src=x> fetched nothing.
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
  assert.equal(await view.locator("script, [onerror], a[href^='javascript']").count(), 0);
  await expectVisible(view.locator("span.embed.unresolved", { hasText: "x" }));
  await ex.shot("reading-view");
  await ex.figure("reading-view");

  // Hovering a link previews its target.
  await view.locator("a.wikilink", { hasText: "the embedded note" }).hover();
  const preview = page.locator("#hover-preview");
  await expectVisible(preview);
  await expectExactText(preview.locator(".hover-title"), "Embedded");
  await expectText(preview, "The intro text.");
  await ex.shot("hover-preview");
  await page.keyboard.press("Escape"); // closes the preview, and only it
  await expectVisible(page.locator("#detail-pane"));
  assert.equal(await preview.isVisible(), false);

  // An unresolved link starts the note it names.
  await view.locator("a.wikilink.unresolved").click();
  await expectVisible(page.locator("#editor-pane"));
  await expectValue(page.locator("#editor-title"), "Missing note");
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
});

scenario("attachments show as images, an SVG too, never as their source", { full: true }, async (ex) => {
  await importAttachments(ex);
  await ex.open();
  const page = ex.page;
  await ex.row("logo.svg").click();
  await ex.waitHook(() => {
    const img = document.querySelector("#reading-view img.attachment-image");
    return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 40;
  });
  const detail = page.locator("#detail-body");
  assert.ok(!(await detail.textContent())?.includes("<svg"), "the SVG's source is not shown");
  assert.ok(!(await detail.textContent())?.includes("Summary"), "an attachment has no text summary section");
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
  await ex.shot("svg-attachment");
});

scenario("hover previews a backlink row and an unresolved link, gone on mouse-out and Esc",
  { full: true, allowError: CSP_REFUSED_HANDLER }, async (ex) => {
    await ex.makeNote("Target", "# Target\n\nThe target's opening words.\n");
    await ex.makeNote("Source", "Source text links to [[Target]] and [[Nowhere yet]].\n\n<img src=x onerror=\"window.__pwned = 'hover'\">\n");
    await ex.open();
    const page = ex.page;
    const preview = page.locator("#hover-preview");
    await ex.row("Target").click();

    // A backlink row's note, previewed rendered and sanitised like the reading view.
    const backlink = page.locator("[data-links=in] button.link-button", { hasText: "Source" });
    await backlink.hover();
    await expectVisible(preview);
    await expectExactText(preview.locator(".hover-title"), "Source");
    await expectText(preview, "Source text links to");
    await expectExactText(preview.locator("a.wikilink.unresolved"), "Nowhere yet");
    assert.equal(await preview.locator("[onerror], script").count(), 0);
    await ex.shot("backlink-preview");
    await page.mouse.move(2, 790); // mouse-out: the preview goes
    await expectHidden(preview);

    // An unresolved link previews as not created yet; Esc closes the preview and leaves the panel open.
    await backlink.click();
    const view = page.locator("#reading-view");
    await expectText(view, "Source text links to");
    await view.locator("a.wikilink.unresolved").hover();
    await expectVisible(preview);
    await expectExactText(preview.locator(".hover-title"), "Nowhere yet");
    await expectText(preview, "Not created yet");
    await page.keyboard.press("Escape");
    await expectHidden(preview);
    await expectVisible(page.locator("#detail-pane"));
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
  });

scenario("an attachment that is not an image is a download of its bytes, never shown as text", { full: true }, async (ex) => {
  const pdf = Buffer.from("%PDF-1.4\n% a stand-in: only its bytes matter here\n%%EOF\n");
  const report = await ex.importVault({ "files/manual.pdf": pdf });
  assert.deepEqual(report.attachments, ["files/manual.pdf"]);
  await ex.open();
  const page = ex.page;
  await ex.row("manual.pdf").click();
  const button = page.locator("#reading-view button[data-download]");
  await expectText(button, "Download manual.pdf");
  assert.ok(!(await page.locator("#detail-body").textContent())?.includes("%PDF"), "the file's bytes are not shown as text");
  const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
  assert.equal(download.suggestedFilename(), "manual.pdf");
  const saved = await download.path();
  assert.ok(saved);
  assert.deepEqual(await readFile(saved), pdf);
  await ex.shot("download");
});
