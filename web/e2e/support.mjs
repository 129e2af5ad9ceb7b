// @ts-check
/**
 * What web/e2e/*.test.mjs share: `scenario()` (one node:test test = one page of the explorer in Debian's headless
 * Chromium, driven by playwright-core), the page's test hook (window.__vaultgraph), the public GraphQL API for
 * seeding, and waiting assertions (`expectText`, `expectCount`, …; playwright-core has no `expect`).
 *
 * The server is not started here: tests/web/test_explorer_e2e.py starts a real vaultgraph with a fresh tenant per
 * scenario and runs `node --test` on one scenario with
 *   VAULTGRAPH_E2E_URL   the server (required),
 *   VAULTGRAPH_E2E_TEST  the name of the one scenario to run (all of the file's scenarios when unset),
 *   VAULTGRAPH_E2E_KEY   an API key of that tenant, for the scenarios that ask for one (`{ apiKey: true }`),
 *   VAULTGRAPH_E2E_DATA_DIR  the server's data folder, the one place importVault may read a vault from.
 * Screenshots go to $VAULTGRAPH_TEST_ARTIFACTS/web (default .vaultgraph-test/artifacts/web), one per `shot()`, and
 * one more when a scenario fails. With VAULTGRAPH_SCREENSHOTS=1 (`make screenshots`) the views the README shows are
 * also written to docs/screenshots/ by `figure()`, at fixed names. A console error or an uncaught page error fails
 * the scenario.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

/** @typedef {import("playwright-core").Page} Page */
/** @typedef {import("playwright-core").Locator} Locator */
/**
 * What a scenario needs of the server pytest starts for it.
 * @typedef {object} Needs
 * @property {boolean} [workers] the enrichment workers run (for this scenario's tenant only)
 * @property {boolean} [apiKey] development mode off: the server asks for a key, VAULTGRAPH_E2E_KEY holds one
 * @property {boolean} [introspection] false: the server refuses introspection (VAULTGRAPH_INTROSPECTION=false)
 * @property {(error: string) => boolean} [allowError] a console error this scenario expects (the others fail it)
 * @property {boolean} [models] the model endpoint is tests/support/openai_server.py: saves embed over HTTP in
 *   microseconds instead of running the offline model (a scenario that writes thousands of notes)
 * @property {boolean} [slow] slow by nature (a big generated vault): `make test-all` runs it, `make test` does not
 * @property {boolean} [full] one more case of what a scenario that `make test` keeps in its file checks:
 *   `make test-explorer` (CI runs it after `make test`) and `make test-all` run it, `make test` does not, so the
 *   pre-commit suite keeps its budget (issue 20)
 */
/** @typedef {{ name: string, needs: { workers: boolean, apiKey: boolean, introspection: boolean, models: boolean, slow: boolean, full: boolean } }} Listed */

const REPO = fileURLToPath(new URL("../..", import.meta.url));
export const CHROMIUM = "/usr/bin/chromium";
/** The same flags as bench/explorer_frames.mjs: no sandbox (CI runs as root), no GPU, nothing phoning home. */
export const CHROMIUM_ARGS = [
  "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];
export const ARTIFACTS = path.join(
  path.resolve(process.env.VAULTGRAPH_TEST_ARTIFACTS ?? path.join(REPO, ".vaultgraph-test", "artifacts")), "web");
/** A 1x1 PNG, for scenarios that need an image attachment. */
export const TINY_PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
  + "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082", "hex");
/** Where `figure()` writes the README's screenshots, when VAULTGRAPH_SCREENSHOTS=1 asks for them. */
export const FIGURES = path.join(REPO, "docs", "screenshots");
const WIDE = { width: 1280, height: 800 };
/** How long a waiting assertion or a Playwright action waits by default (generous: CI machines are shared). */
export const WAIT_MS = 20_000;
/** A whole scenario, browser start included; below the node process's limit set by pytest
 * (tests/web/test_explorer_e2e.py). A slow one (make test-all) may take twice that beside the other slow tests. */
const SCENARIO_MS = 270_000;
const SLOW_SCENARIO_MS = 570_000;

/** Set by web/e2e/catalog.mjs: scenarios are listed, not run.
 * @type {{ listing: boolean, scenarios: Listed[] }} */
export const catalog = { listing: false, scenarios: [] };

class Skip extends Error {}

/**
 * Declare one end-to-end scenario. `run` gets an `Explorer` (a fresh browser context on this scenario's server);
 * call `explorer.open()` to load the page.
 * @param {string} name unique across web/e2e; pytest runs it by this name
 * @param {Needs} needs
 * @param {(explorer: Explorer) => Promise<void>} run
 */
export function scenario(name, needs, run) {
  if (catalog.listing) {
    catalog.scenarios.push({ name, needs: { workers: needs.workers ?? false, apiKey: needs.apiKey ?? false,
                                            introspection: needs.introspection ?? true, models: needs.models ?? false,
                                            slow: needs.slow ?? false, full: needs.full ?? false } });
    return;
  }
  const only = process.env.VAULTGRAPH_E2E_TEST;
  if (only !== undefined && only !== name) return;
  test(name, { timeout: needs.slow ? SLOW_SCENARIO_MS : SCENARIO_MS }, async (t) => {
    const url = process.env.VAULTGRAPH_E2E_URL;
    assert.ok(url, "VAULTGRAPH_E2E_URL is unset: run these through `.venv/bin/pytest tests/web`, which starts the server");
    const key = process.env.VAULTGRAPH_E2E_KEY ?? null;
    assert.ok(!needs.apiKey || key, "this scenario needs VAULTGRAPH_E2E_KEY");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: \`apt-get install -y chromium\` (make test does it)`);
    const { chromium } = await import("playwright-core");
    // Debian's Chromium, never a browser Playwright would download.
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({ viewport: WIDE });
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      const explorer = new Explorer(page, url, key, name);
      await explorer.forgetShots();
      page.on("console", (message) => { if (message.type() === "error") explorer.errors.push(message.text()); });
      page.on("pageerror", (error) => { explorer.errors.push(`${error.name}: ${error.message}`); });
      try {
        await run(explorer);
        const allowed = needs.allowError ?? (() => false);
        const unexpected = explorer.errors.filter((e) => !allowed(e));
        assert.deepEqual(unexpected, [], `errors in the browser console: ${JSON.stringify(unexpected)}`);
      } catch (error) {
        if (error instanceof Skip) {
          t.skip(error.message);
          return;
        }
        const shot = await explorer.shot("failed").catch((e) => `(no screenshot: ${e})`);
        console.error(`screenshot of the failure: ${shot}`);
        throw error;
      }
    } finally {
      await browser.close();
    }
  });
}

/** The explorer open in a page against this scenario's server, with what went wrong in the browser. */
export class Explorer {
  /**
   * @param {Page} page
   * @param {string} url
   * @param {string | null} key
   * @param {string} name
   */
  constructor(page, url, key, name) {
    this.page = page;
    /** The server, without a trailing slash. */
    this.url = url.replace(/\/$/, "");
    /** The API key pytest made for this scenario's tenant ({ apiKey: true }), else null. */
    this.key = key;
    this.name = name.replace(/[^\w.-]+/g, "_").slice(0, 80);
    /** @type {string[]} console errors and uncaught page errors, in order */
    this.errors = [];
    this.shots = 0;
  }

  /** Load the explorer and wait until it has read the API. */
  async open(where = "/") {
    await this.page.goto(this.url + where);
    await this.page.waitForFunction(() => document.body.dataset.ready === "true", undefined, { timeout: 60_000 });
  }

  /**
   * A screenshot of this step, kept as a test artifact; returns its path.
   * @param {string} step
   */
  async shot(step) {
    await mkdir(ARTIFACTS, { recursive: true });
    this.shots += 1;
    const file = path.join(ARTIFACTS, `${this.name}-${String(this.shots).padStart(2, "0")}-${step}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /**
   * A screenshot for the README (docs/screenshots/<name>.png) when VAULTGRAPH_SCREENSHOTS=1, else nothing: the
   * view as the scenario has just checked it, so the README shows what the tests saw.
   * @param {string} name a fixed file name (no extension) that README.md links
   */
  async figure(name) {
    if (process.env.VAULTGRAPH_SCREENSHOTS !== "1") return;
    await mkdir(FIGURES, { recursive: true });
    await this.page.screenshot({ path: path.join(FIGURES, `${name}.png`) });
  }

  /** Remove this scenario's screenshots of an earlier run, so the artifacts show this run only. */
  async forgetShots() {
    const mine = new RegExp(`^${this.name.replace(/[.]/g, "\\.")}-\\d{2}-[\\w.-]+\\.png$`);
    const files = await readdir(ARTIFACTS).catch(() => /** @type {string[]} */ ([]));
    await Promise.all(files.filter((file) => mine.test(file)).map((file) => rm(path.join(ARTIFACTS, file))));
  }

  /**
   * Call `fn(window.__vaultgraph, arg)` in the page (the page's test hook: graph, sigma, store, …) and return
   * its result. `fn` runs in the browser: it may use only its arguments; `arg` must be JSON.
   * @param {(vg: any, arg: any) => unknown} fn
   * @param {unknown} [arg]
   * @returns {Promise<any>}
   */
  async hook(fn, arg = null) {
    return this.page.evaluate(`(${fn})(window.__vaultgraph, ${JSON.stringify(arg)})`);
  }

  /**
   * Wait until `fn(window.__vaultgraph, arg)` is true in the page.
   * @param {(vg: any, arg: any) => unknown} fn
   * @param {unknown} [arg]
   * @param {number} [timeout]
   */
  async waitHook(fn, arg = null, timeout = WAIT_MS) {
    // Polled through page.evaluate (the DevTools protocol, which the page's CSP allows): waitForFunction with a
    // string predicate compiles it inside the page, which a CSP without 'unsafe-eval' refuses, as it should.
    const check = `Boolean(window.__vaultgraph && (${fn})(window.__vaultgraph, ${JSON.stringify(arg)}))`;
    const deadline = Date.now() + timeout;
    while (!(await this.page.evaluate(check))) {
      if (Date.now() > deadline) throw new Error(`waitHook: not true after ${timeout} ms: ${fn}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * The graph drawn as it is now: once the camera is still (an animation sets its state every frame, over whatever a
   * test sets), `fit` frames the whole graph, and sigma renders synchronously: the discs, the label layer (drawn on
   * afterRender) and the picking buffer that hit-tests a click then match the camera and positions read next. A fixed
   * sleep before reading raced a loaded CI machine, where a frame can take longer than any guess.
   * @param {{ fit?: boolean }} [options]
   */
  async drawn({ fit = false } = {}) {
    await this.waitHook((vg) => !vg.sigma.getCamera().isAnimating());
    await this.hook((vg, f) => {
      if (f) vg.graphPane.fit(false);
      vg.sigma.render();
    }, fit);
  }

  /**
   * Where graph node `id` is drawn on the page, after `drawn` (the same options).
   * @param {string} id
   * @param {{ fit?: boolean }} [options]
   * @returns {Promise<{ x: number, y: number }>}
   */
  async nodePoint(id, options = {}) {
    await this.drawn(options);
    const at = await this.hook((vg, n) => vg.sigma.graphToViewport(vg.graph.getNodeAttributes(n)), id);
    const box = await this.page.locator("#graph-canvas").boundingBox();
    assert.ok(box, "the graph canvas has no box");
    return { x: box.x + at.x, y: box.y + at.y };
  }

  /**
   * The list pane's row of the item with this title.
   * @param {string} title
   */
  row(title) {
    return this.page.locator("#item-list li.item-row", { hasText: title });
  }

  /**
   * Stop here: the server lacks what the scenario tests, and the scenario has checked the explorer says so.
   * @param {string} reason
   * @returns {never}
   */
  skip(reason) {
    throw new Skip(reason);
  }

  /**
   * POST one GraphQL operation to this scenario's server, like any client; the HTTP status and the whole body.
   * @param {string} query
   * @param {Record<string, unknown>} [variables]
   * @param {Record<string, string>} [headers]
   * @returns {Promise<{ status: number, data?: any, errors?: any[] }>}
   */
  async graphql(query, variables = {}, headers = {}) {
    const response = await fetch(`${this.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    try {
      return { status: response.status, ...JSON.parse(text) };
    } catch {
      assert.fail(`HTTP ${response.status}, not JSON: ${text.slice(0, 500)}`);
    }
  }

  /**
   * One operation that must succeed; its data.
   * @param {string} query
   * @param {Record<string, unknown>} [variables]
   * @param {Record<string, string>} [headers]
   * @returns {Promise<any>}
   */
  async data(query, variables = {}, headers = {}) {
    const body = await this.graphql(query, variables, headers);
    assert.equal(body.status, 200, JSON.stringify(body));
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    return body.data;
  }

  /**
   * A note through saveNote; its id.
   * @param {string} title
   * @param {string} [body]
   * @param {Record<string, unknown>} [extra] more NoteInput fields
   * @returns {Promise<string>}
   */
  async makeNote(title, body = "", extra = {}) {
    const data = await this.data("mutation($i: NoteInput!) { saveNote(input: $i) { note { id } } }",
      { i: { title, body, ...extra } });
    return data.saveNote.note.id;
  }

  /**
   * A document through createDocument; its id.
   * @param {string} where its path in the workspace
   * @param {string} content
   * @param {Record<string, unknown>} [extra] more DocumentInput fields
   * @returns {Promise<string>}
   */
  async makeDocument(where, content, extra = {}) {
    const data = await this.data("mutation($i: DocumentInput!) { createDocument(input: $i) { id } }",
      { i: { path: where, content, ...extra } });
    return data.createDocument.id;
  }

  /**
   * A vault of these files (path in the vault -> content) written under the server's data folder, the one place
   * importVault may read in development mode, and imported; importVault's report.
   * @param {Record<string, string | Buffer>} files
   * @returns {Promise<{ created: string[], attachments: string[] }>}
   */
  async importVault(files) {
    const root = process.env.VAULTGRAPH_E2E_DATA_DIR;
    assert.ok(root, "VAULTGRAPH_E2E_DATA_DIR is unset: run this through tests/web/test_explorer_e2e.py");
    await mkdir(path.join(root, "vaults"), { recursive: true });
    const vault = await mkdtemp(path.join(root, "vaults", "e2e-"));
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(vault, name)), { recursive: true });
      await writeFile(path.join(vault, name), content);
    }
    const data = await this.data("mutation($p: String!) { importVault(path: $p) { created attachments } }", { p: vault });
    return data.importVault;
  }

  /**
   * Whether the server's schema has `typeName.fieldName` right now (the API grows release by release).
   * @param {string} typeName
   * @param {string} fieldName
   */
  async schemaHas(typeName, fieldName) {
    const data = await this.data("query($t: String!) { __type(name: $t) { fields { name } } }", { t: typeName });
    return (data.__type?.fields ?? []).some((/** @type {{ name: string }} */ f) => f.name === fieldName);
  }
}

// Waiting assertions: each polls until it holds or `timeout` passes, then fails with the last value it saw.
// Like Playwright's own, they compare text with runs of whitespace collapsed, and a locator that matches several
// elements where one is meant is an error (strict mode).

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {string | null} text */
const squash = (text) => (text ?? "").replace(/[\s\u200b]+/g, " ").trim();

/**
 * @template T
 * @param {string} what
 * @param {(wait: number) => Promise<T>} probe gets how long it may wait for the element
 * @param {(value: T) => boolean} holds
 * @param {number} timeout
 * @returns {Promise<T>}
 */
async function until(what, probe, holds, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    /** @type {{ value?: T, error?: unknown }} */
    let seen;
    try {
      const value = await probe(Math.max(50, Math.min(1_000, deadline - Date.now())));
      if (holds(value)) return value;
      seen = { value };
    } catch (error) {
      seen = { error };
    }
    if (Date.now() >= deadline) {
      const last = "error" in seen ? `error: ${/** @type {Error} */ (seen.error).message}` : `got ${JSON.stringify(seen.value)}`;
      assert.fail(`${what} (waited ${timeout} ms); last ${last}`);
    }
    await sleep(100);
  }
}

/**
 * The element's text contains `text`.
 * @param {Locator} locator
 * @param {string} text
 */
export async function expectText(locator, text, timeout = WAIT_MS) {
  await until(`${locator} contains ${JSON.stringify(text)}`, (wait) => locator.textContent({ timeout: wait }),
    (value) => squash(value).includes(squash(text)), timeout);
}

/**
 * The element's text is `text`.
 * @param {Locator} locator
 * @param {string} text
 */
export async function expectExactText(locator, text, timeout = WAIT_MS) {
  await until(`${locator} has the text ${JSON.stringify(text)}`, (wait) => locator.textContent({ timeout: wait }),
    (value) => squash(value) === squash(text), timeout);
}

/**
 * The locator matches `count` elements.
 * @param {Locator} locator
 * @param {number} count
 */
export async function expectCount(locator, count, timeout = WAIT_MS) {
  await until(`${locator} matches ${count} elements`, () => locator.count(), (n) => n === count, timeout);
}

/**
 * The input's value is `value`.
 * @param {Locator} locator
 * @param {string} value
 */
export async function expectValue(locator, value, timeout = WAIT_MS) {
  await until(`${locator} has the value ${JSON.stringify(value)}`, (wait) => locator.inputValue({ timeout: wait }),
    (v) => v === value, timeout);
}

/**
 * The element's class attribute is exactly `classes`.
 * @param {Locator} locator
 * @param {string} classes
 */
export async function expectClass(locator, classes, timeout = WAIT_MS) {
  await until(`${locator} has class="${classes}"`, (wait) => locator.getAttribute("class", { timeout: wait }),
    (v) => v === classes, timeout);
}

/**
 * The control is enabled (`true`) or disabled (`false`).
 * @param {Locator} locator
 * @param {boolean} enabled
 */
export async function expectEnabled(locator, enabled, timeout = WAIT_MS) {
  await until(`${locator} is ${enabled ? "enabled" : "disabled"}`, (wait) => locator.isEnabled({ timeout: wait }),
    (v) => v === enabled, timeout);
}

/**
 * The element is visible.
 * @param {Locator} locator
 */
export async function expectVisible(locator, timeout = WAIT_MS) {
  await locator.waitFor({ state: "visible", timeout });
}

/**
 * The element is hidden or absent.
 * @param {Locator} locator
 */
export async function expectHidden(locator, timeout = WAIT_MS) {
  await locator.waitFor({ state: "hidden", timeout });
}
