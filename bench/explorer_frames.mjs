// @ts-check
/**
 * The explorer's graph pane with a big graph: does it render, and does it stay interactive while a person pans
 * and zooms?
 *
 *     make run &                                               # the server, serving the built explorer
 *     node bench/explorer_frames.mjs --url http://127.0.0.1:8000/   # 5,000 nodes, 10,000 links
 *     node bench/explorer_frames.mjs --help                    # every knob
 *
 * Opens the explorer in Debian's Chromium (headless, through playwright-core from web/node_modules), draws a
 * synthetic graph in the graph pane through the page's own code (window.__vaultgraph.graphPane.merge: the API's
 * graph view is capped at 2,000 nodes per request, so a pane reaches 5,000 by expanding neighbourhoods), lets
 * ForceAtlas2 run in its web worker, then measures, as a person uses it:
 *
 * - first frame: from handing the nodes to the pane to the first frame after sigma drew them;
 * - idle: the camera still (the frame interval the page keeps when nothing moves);
 * - drag: a pan with the mouse (pointer down on the canvas, moves at about 60 Hz, pointer up), and the time from
 *   releasing the button until sigma has drawn the whole graph again (edges and labels included);
 * - wheel: zooming with the mouse wheel (notches in, then out), and the same time until the full redraw;
 * - setState pan / setState zoom: the camera driven by `camera.setState` every frame, as the first version of this
 *   bench did. sigma does not count that as moving, so every one of those frames is a full redraw: a measure of
 *   what one complete frame costs, not of what a person sees while panning.
 *
 * Frame intervals come from requestAnimationFrame in the page; sigma's own JavaScript time per render from its
 * beforeRender/afterRender events, with whether that render drew the edges. Headless Chromium on a machine
 * without a GPU renders WebGL in software (SwiftShader, printed as the renderer), so the intervals are an upper
 * bound on what a desktop browser with a GPU shows.
 *
 * Variants (--variants) are configurations of the pane measured in the same run, each on a fresh page, in turns
 * (--rounds), so they can be compared as ratios on a shared machine; the first one is the reference.
 */

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";

const require = createRequire(new URL("../web/package.json", import.meta.url));
/** @type {typeof import("playwright-core")} */
const { chromium } = require("playwright-core");

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/**
 * What can be compared. `largeGraphNodes` moves the pane's threshold above which it draws for speed (null: keep
 * the pane's own); `settings` are sigma settings applied after the graph is drawn; `pane` sets fields of the pane
 * before it draws.
 * @type {Record<string, { label: string, largeGraphNodes?: number, settings?: Record<string, unknown>, pane?: Record<string, unknown> }>}
 */
const VARIANTS = {
  before: {
    label: "as before: full edge program (arrow heads, dashes, 32-segment loops), edges and labels hidden while moving",
    largeGraphNodes: 1e9, settings: { hideEdgesOnMove: true, hideLabelsOnMove: true },
  },
  "before-edges-moving": {
    label: "full edge program, edges and labels drawn while moving (hideEdgesOnMove/hideLabelsOnMove off)",
    largeGraphNodes: 1e9, settings: { hideEdgesOnMove: false, hideLabelsOnMove: false },
  },
  now: { label: "the pane as it is (large-graph drawing above its threshold)" },
  reducers: {
    label: "the pane as it is + pass-through nodeReducer/edgeReducer, as before the highlighting moved to item states",
    pane: { passThroughReducers: true },
  },
  "now-edges-moving": {
    label: "the pane as it is, but edges and labels drawn while moving",
    settings: { hideEdgesOnMove: false, hideLabelsOnMove: false },
  },
  "now-picking4": { label: "the pane as it is + pickingDownSizingRatio 4 (default 2)", settings: { pickingDownSizingRatio: 4 } },
  "now-fewer-labels": {
    label: "the pane as it is + labelDensity 0.2, labelRenderedSizeThreshold 10",
    settings: { labelDensity: 0.2, labelRenderedSizeThreshold: 10 },
  },
  "now-no-labels": { label: "the pane as it is + renderLabels off", settings: { renderLabels: false } },
};

// ---------------------------------------------------------------------------------------------------------------
// In the page.

/** Build the synthetic graph, draw it, lay it out, and start recording frames and renders. */
const SETUP = async ({ nodes, links, layoutMs, variant }) => {
  const vg = /** @type {any} */ (window).__vaultgraph;
  const pane = vg.graphPane;
  if (variant.largeGraphNodes != null && "largeGraphNodes" in pane) pane.largeGraphNodes = variant.largeGraphNodes;
  for (const [field, value] of Object.entries(variant.pane ?? {})) if (field in pane) pane[field] = value;
  const kinds = ["markdown", "text", "json", "csv"];
  const types = ["WIKILINK", "REFERENCES", "RELATED", "DEPENDS_ON", "MENTIONS"];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const items = Array.from({ length: nodes }, (_, i) => i % 3 === 0
    ? { __typename: "Note", id: `bench-${i}`, title: `Bench note ${i}`, scope: "SHARED", kind: "note" }
    : { __typename: "Document", id: `bench-${i}`, title: `Bench document ${i}`, scope: "SHARED", docType: kinds[i % 4] });
  // Clustered links, as a real vault has: most links stay near their source, some jump far; one in ten made by an
  // agent (dotted in a small graph), and a few self-links.
  const edges = Array.from({ length: links }, (_, i) => {
    const from = Math.floor(rand() * nodes);
    const to = i % 500 === 0 ? from : rand() < 0.8 ? (from + 1 + Math.floor(rand() * 40)) % nodes : Math.floor(rand() * nodes);
    return { id: `bench-e-${i}`, type: types[i % types.length], origin: i % 10 === 0 ? "AGENT" : "USER",
      confidence: null, from: { id: `bench-${from}` }, to: { id: `bench-${to}` } };
  });

  const rec = { raf: /** @type {number[]} */ ([]), renders: /** @type {any[]} */ ([]), lastInput: 0 };
  /** @type {any} */ (window).__frames = rec;
  const loop = (now) => { rec.raf.push(now); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
  for (const type of ["pointerup", "wheel"]) {
    document.addEventListener(type, () => { rec.lastInput = performance.now(); }, { capture: true, passive: true });
  }
  let watched = null;
  const watch = (sigma) => {
    if (watched === sigma) return;
    watched = sigma;
    let began = 0;
    let moving = false;
    sigma.on("beforeRender", () => {
      began = performance.now();
      // sigma's own test of "the camera is moving" (Sigma.render), which hideEdgesOnMove/hideLabelsOnMove follow.
      const mouse = sigma.getMouseCaptor();
      moving = !!(sigma.getCamera().isAnimating() || mouse.isMoving || mouse.draggedEvents || mouse.currentWheelDirection);
    });
    sigma.on("afterRender", () => {
      if (!began) return;
      const edges = !(moving && sigma.getSetting("hideEdgesOnMove"));
      rec.renders.push({ at: began, end: performance.now(), ms: performance.now() - began, moving, edges });
      began = 0;
    });
  };
  if (vg.sigma) watch(vg.sigma);

  const t0 = performance.now();
  pane.merge(items, edges, undefined, false);
  const mergeMs = performance.now() - t0;
  const sigma = vg.sigma; // after merge: the pane may have built a renderer for large graphs
  watch(sigma);
  if (variant.settings) sigma.setSettings(variant.settings);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const firstFrameMs = performance.now() - t0;
  const firstRender = rec.renders.find((r) => r.at >= t0);
  pane.runLayout(layoutMs, true);
  await new Promise((r) => setTimeout(r, layoutMs + 300));
  pane.fit(false);
  await new Promise((r) => setTimeout(r, 500));
  const gl = sigma.getWebGLContext();
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  const box = document.getElementById("graph-canvas").getBoundingClientRect();
  return {
    nodes: vg.graph.order, links: vg.graph.size, mergeMs, firstFrameMs, firstRenderMs: firstRender?.ms ?? null,
    renderer: info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
    // sigma draws every edge with the vertex count of its most complex path/extremity combination.
    verticesPerEdge: sigma.edgeProgram?.VERTICES ?? null,
    settings: Object.fromEntries(["hideEdgesOnMove", "hideLabelsOnMove", "pickingDownSizingRatio", "labelDensity",
      "labelRenderedSizeThreshold", "renderLabels", "enableEdgeEvents", "antialiasEdges"].map((k) => [k, sigma.getSetting(k)])),
    pixelRatio: window.devicePixelRatio,
    canvas: { x: box.x, y: box.y, width: box.width, height: box.height },
  };
};

const BEGIN = () => {
  const rec = /** @type {any} */ (window).__frames;
  rec.start = performance.now();
  rec.raf = rec.raf.slice(-1);
  rec.renders = [];
};

const RENDERS_SO_FAR = () => /** @type {any} */ (window).__frames.renders.length;

const END = () => {
  const rec = /** @type {any} */ (window).__frames;
  const end = performance.now();
  const stamps = rec.raf.filter((t) => t >= rec.start && t <= end);
  const frames = stamps.slice(1).map((t, i) => t - stamps[i]);
  const renders = rec.renders.filter((r) => r.at >= rec.start && r.at <= end);
  // The time between two of sigma's renders: how often the picture changes while the input keeps coming.
  const updates = renders.slice(1).map((r, i) => r.at - renders[i].at);
  return { ms: end - rec.start, frames, updates, renders: renders.map((r) => r.ms),
    moving: renders.filter((r) => r.moving).length, withEdges: renders.filter((r) => r.edges).length };
};

/** After the last pointer-up or wheel: ms until a render with the edges has been drawn and the next frame began. */
const SETTLE = (timeoutMs) => new Promise((resolve) => {
  const rec = /** @type {any} */ (window).__frames;
  const since = rec.lastInput;
  const limit = performance.now() + timeoutMs;
  const check = () => {
    const full = rec.renders.find((r) => r.at >= since && r.edges && !r.moving);
    const next = full && rec.raf.find((t) => t > full.end);
    if (next) resolve({ ms: next - since, renderMs: full.ms });
    else if (performance.now() > limit) resolve({ ms: null, renderMs: null });
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
});

/** The first version's camera.setState phases: one camera change per animation frame. */
const SET_STATE = async ({ kind, seconds, minFrames, capMs }) => {
  const vg = /** @type {any} */ (window).__vaultgraph;
  const camera = vg.sigma.getCamera();
  const start = performance.now();
  let i = 0;
  await new Promise((resolve) => {
    const tick = (now) => {
      i += 1;
      if (kind === "pan") camera.setState({ x: 0.5 + 0.25 * Math.sin(i / 20), y: 0.5 + 0.25 * Math.cos(i / 25) });
      // From the whole graph (ratio 1.2) to a close-up (0.1) and back, smoothly.
      else camera.setState({ x: 0.5, y: 0.5, ratio: 1.2 * Math.pow(0.1 / 1.2, (1 - Math.cos(i / 30)) / 2) });
      if ((now - start >= seconds * 1000 && i > minFrames) || now - start > capMs) resolve(undefined);
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  camera.setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
};

// ---------------------------------------------------------------------------------------------------------------
// The driver.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Keep an input going for `seconds`, and at least until sigma has drawn `minFrames` times (at most `capMs`): every
 * `everyMs` the input at that moment (`send(t)`, t in ms since the start) is sent, unless the previous one is still
 * being delivered. A mouse does not wait for the page: the browser coalesces the moves a busy page could not take,
 * so the page always has the pointer's latest position when it can draw again, and the time between two draws is
 * the frame time a person sees. Returns the inputs sent and skipped.
 */
async function sustain(page, opts, everyMs, send) {
  const t0 = Date.now();
  let inFlight = null;
  let sent = 0;
  let skipped = 0;
  for (let i = 1; ; i += 1) {
    const t = Date.now() - t0;
    if (inFlight) skipped += 1;
    else {
      sent += 1;
      inFlight = send(t).finally(() => { inFlight = null; });
    }
    await sleep(everyMs);
    const elapsed = Date.now() - t0;
    if (elapsed > opts.capMs) break;
    if (elapsed >= opts.seconds * 1000 && i % 8 === 0 && (await page.evaluate(RENDERS_SO_FAR)) > opts.minFrames) break;
  }
  await inFlight;
  return { sent, skipped };
}

async function measurePhases(page, setup, opts) {
  const { x, y, width, height } = setup.canvas;
  const cx = x + width / 2;
  const cy = y + height / 2;
  const phases = [];
  const run = async (name, act, settle) => {
    await page.evaluate(BEGIN);
    const inputs = await act();
    const phase = { phase: name, inputs: inputs ?? null, ...(await page.evaluate(END)) };
    if (settle) phase.settle = await page.evaluate(SETTLE, opts.capMs);
    phases.push(phase);
    await sleep(300);
  };
  if (opts.phases.includes("idle")) await run("idle", () => sleep(opts.seconds * 1000), false);
  if (opts.phases.includes("drag")) {
    await page.mouse.move(cx, cy);
    await run("drag", async () => {
      await page.mouse.down();
      // A person's drag: strokes back and forth across the pane (about 500 px/s), a pointer move every 16 ms.
      const inputs = await sustain(page, opts, 16, (t) =>
        page.mouse.move(cx + 0.3 * width * Math.sin(t / 400), cy + 0.3 * height * Math.sin(t / 650)));
      await page.mouse.up();
      return inputs;
    }, true);
    await page.evaluate(() => /** @type {any} */ (window).__vaultgraph.graphPane.fit(false));
    await sleep(300);
  }
  if (opts.phases.includes("wheel")) {
    await page.mouse.move(cx + width / 8, cy - height / 8);
    // Four notches in, four out, 120 ms apart (sigma animates each notch for its zoomDuration, 200 ms).
    await run("wheel", () => sustain(page, opts, 120, (t) =>
      page.mouse.wheel(0, Math.floor(t / 120) % 8 < 4 ? -100 : 100)), true);
    await page.evaluate(() => /** @type {any} */ (window).__vaultgraph.graphPane.fit(false));
    await sleep(300);
  }
  for (const kind of ["pan", "zoom"]) {
    if (!opts.phases.includes("setstate")) break;
    await run(`setState ${kind}`, () => page.evaluate(SET_STATE, { kind, seconds: opts.seconds, minFrames: opts.minFrames,
      capMs: opts.capMs }), false);
  }
  return phases;
}

async function measureVariant(browser, name, opts) {
  const variant = VARIANTS[name];
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: opts.dpr });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    await page.goto(opts.url);
    // Polled through page.evaluate (the DevTools protocol): waitForFunction compiles its predicate inside the page,
    // which the explorer's CSP (no 'unsafe-eval') refuses.
    for (const deadline = Date.now() + 120_000; !(await page.evaluate(() => document.body.dataset.ready === "true"));) {
      if (Date.now() > deadline) throw new Error("the explorer was not ready within 120 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const setup = await page.evaluate(SETUP, { nodes: opts.nodes, links: opts.links, layoutMs: opts.layoutMs, variant });
    const phases = await measurePhases(page, setup, opts);
    return { variant: name, label: variant.label, ...setup, phases, errors };
  } finally {
    await page.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Figures.

function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.round((p / 100) * (sorted.length - 1)))];
}

const num = (v, digits = 1) => (v == null || Number.isNaN(v) ? "—" : v.toLocaleString("en-US",
  { minimumFractionDigits: digits, maximumFractionDigits: digits }));

/** Pool the rounds of one variant: samples of the same phase together, settle times as a list. */
function pool(results) {
  const first = results[0];
  const phases = first.phases.map((p, i) => {
    const same = results.map((r) => r.phases[i]);
    return {
      phase: p.phase, ms: same.reduce((s, q) => s + q.ms, 0), frames: same.flatMap((q) => q.frames),
      updates: same.flatMap((q) => q.updates), renders: same.flatMap((q) => q.renders),
      inputs: p.inputs ? { sent: same.reduce((s, q) => s + q.inputs.sent, 0),
        skipped: same.reduce((s, q) => s + q.inputs.skipped, 0) } : null, moving: same.reduce((s, q) => s + q.moving, 0),
      withEdges: same.reduce((s, q) => s + q.withEdges, 0),
      settle: p.settle ? same.map((q) => q.settle?.ms).filter((v) => v != null) : null,
    };
  });
  return { ...first, firstFrames: results.map((r) => r.firstFrameMs), firstRenders: results.map((r) => r.firstRenderMs),
    merges: results.map((r) => r.mergeMs), phases, errors: results.flatMap((r) => r.errors) };
}

function report(pooled, meta) {
  const lines = [];
  const head = pooled[0];
  lines.push(`explorer graph pane: ${head.nodes.toLocaleString("en-US")} nodes, ${head.links.toLocaleString("en-US")} links; ` +
    `renderer: ${head.renderer}; device pixel ratio ${head.pixelRatio}; canvas ${head.canvas.width}×${head.canvas.height}`);
  lines.push(`load average ${meta.loadBefore.map((v) => v.toFixed(1)).join(" ")} at the start, ` +
    `${meta.loadAfter.map((v) => v.toFixed(1)).join(" ")} at the end; ${meta.rounds} round(s); ${meta.wallS.toFixed(0)} s`);
  for (const v of pooled) {
    lines.push("");
    lines.push(`[${v.variant}] ${v.label}`);
    lines.push(`  ${v.verticesPerEdge ?? "?"} vertices per edge; settings ${JSON.stringify(v.settings)}`);
    lines.push(`  first frame ${v.firstFrames.map((x) => num(x, 0)).join(" / ")} ms ` +
      `(merge ${v.merges.map((x) => num(x, 0)).join(" / ")} ms, sigma's first render ${v.firstRenders.map((x) => num(x, 0)).join(" / ")} ms)`);
    lines.push(`  ${"phase".padEnd(14)} ${"frames".padStart(6)} ${"rAF p50".padStart(9)} ${"p95".padStart(9)} ` +
      `${"draws".padStart(5)} ${"/s".padStart(5)} ${"draw→draw p50".padStart(13)} ${"p95".padStart(9)} ${"max".padStart(9)} ` +
      `${"edges".padStart(5)} ${"JS p50".padStart(8)} ${"p95".padStart(8)} ${"inputs".padStart(9)}  back to full redraw`);
    for (const p of v.phases) {
      const perS = p.renders.length / (p.ms / 1000);
      lines.push(`  ${p.phase.padEnd(14)} ${String(p.frames.length).padStart(6)} ` +
        `${num(percentile(p.frames, 50)).padStart(7)}ms ${num(percentile(p.frames, 95)).padStart(7)}ms ` +
        `${String(p.renders.length).padStart(5)} ${num(perS).padStart(5)} ` +
        `${num(percentile(p.updates, 50)).padStart(11)}ms ${num(percentile(p.updates, 95)).padStart(7)}ms ` +
        `${num(p.updates.length ? Math.max(...p.updates) : NaN).padStart(7)}ms ${String(p.withEdges).padStart(5)} ` +
        `${num(percentile(p.renders, 50)).padStart(6)}ms ${num(percentile(p.renders, 95)).padStart(6)}ms ` +
        `${(p.inputs ? `${p.inputs.sent}/${p.inputs.sent + p.inputs.skipped}` : "").padStart(9)}  ` +
        (p.settle ? p.settle.map((s) => `${num(s, 0)} ms`).join(" / ") || "not within the cap" : ""));
    }
    lines.push("  (frames: requestAnimationFrame callbacks; draws: sigma's renders, the picture changing; edges: draws " +
      "that drew the edges; JS: sigma's own time per draw; inputs: delivered/due, the rest coalesced; back to full " +
      "redraw: from the pointer-up or last wheel notch until a draw with the edges, then the next frame)");
    if (v.errors.length) lines.push(`  page errors: ${v.errors.join("; ")}`);
  }
  if (pooled.length > 1) {
    const ref = pooled[0];
    const median = (xs) => percentile(xs, 50);
    const figure = (v, phase, what) => {
      const p = v.phases.find((q) => q.phase === phase);
      if (!p) return NaN;
      return what === "settle" ? median(p.settle ?? []) : median(p.updates);
    };
    const columns = [["first frame", (v) => median(v.firstFrames)]];
    for (const p of ref.phases) {
      if (p.phase === "idle") continue;
      columns.push([`${p.phase} draw→draw`, (v) => figure(v, p.phase, "updates")]);
      if (p.settle) columns.push([`${p.phase} → full`, (v) => figure(v, p.phase, "settle")]);
    }
    lines.push("");
    lines.push(`ratios to [${ref.variant}] (below 1: faster); medians in ms`);
    lines.push(`  ${"variant".padEnd(20)} ` + columns.map(([c]) => c.padStart(20)).join(" "));
    for (const v of pooled) {
      lines.push(`  ${v.variant.padEnd(20)} ` + columns.map(([, f]) => {
        const a = f(v);
        const b = f(ref);
        return `${num(a, 0)} (${num(a / b, 2)}×)`.padStart(20);
      }).join(" "));
    }
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------------------------

const HELP = `usage: node bench/explorer_frames.mjs [options]

  --url URL          the explorer (default http://127.0.0.1:8000/, make run's)
  --nodes N          nodes of the synthetic graph (default 5000)
  --links N          links (default 10000)
  --seconds S        duration of each phase (default 4; longer when the page has not shown --min-frames frames)
  --min-frames N     frames each phase waits for (default 10), at most --cap-seconds
  --cap-seconds S    the longest a phase or a redraw is waited for (default 45)
  --layout-ms MS     ForceAtlas2 time before measuring (default 4000)
  --phases LIST      of idle,drag,wheel,setstate (default all)
  --variants LIST    of ${Object.keys(VARIANTS).join(", ")} (default now); the first is the reference
  --rounds N         measure the variants in turns N times, pooling the samples (default 1)
  --dpr N            the page's device pixel ratio (default 1; 2 is a high-density laptop screen)
  --json             print the raw samples as JSON instead
  --from FILE        print the figures of a run saved with --json, measuring nothing
`;

async function main() {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: "http://127.0.0.1:8000/" },
      nodes: { type: "string", default: "5000" },
      links: { type: "string", default: "10000" },
      seconds: { type: "string", default: "4" },
      "min-frames": { type: "string", default: "10" },
      "cap-seconds": { type: "string", default: "45" },
      "layout-ms": { type: "string", default: "4000" },
      phases: { type: "string", default: "idle,drag,wheel,setstate" },
      variants: { type: "string", default: "now" },
      rounds: { type: "string", default: "1" },
      dpr: { type: "string", default: "1" },
      json: { type: "boolean", default: false },
      from: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values.from) {
    const { meta, results } = JSON.parse(await readFile(values.from, "utf8"));
    process.stdout.write(`${report(Object.values(results).map((r) => pool(r)), meta)}\n`);
    return 0;
  }
  const variants = values.variants.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = variants.filter((v) => !(v in VARIANTS));
  if (unknown.length) {
    process.stderr.write(`unknown variant(s): ${unknown.join(", ")}; known: ${Object.keys(VARIANTS).join(", ")}\n`);
    return 2;
  }
  const opts = {
    url: values.url, nodes: Number(values.nodes), links: Number(values.links), seconds: Number(values.seconds),
    minFrames: Number(values["min-frames"]), capMs: Number(values["cap-seconds"]) * 1000,
    layoutMs: Number(values["layout-ms"]), phases: values.phases.split(","), dpr: Number(values.dpr),
  };
  const rounds = Number(values.rounds);
  const loadBefore = loadavg();
  const t0 = Date.now();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  /** @type {Record<string, any[]>} */
  const results = Object.fromEntries(variants.map((v) => [v, []]));
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const name of variants) {
        process.stderr.write(`round ${round + 1}/${rounds}: ${name}…\n`);
        results[name].push(await measureVariant(browser, name, opts));
      }
    }
  } finally {
    await browser.close();
  }
  const meta = { loadBefore, loadAfter: loadavg(), rounds, wallS: (Date.now() - t0) / 1000 };
  if (values.json) process.stdout.write(`${JSON.stringify({ meta, results })}\n`);
  else process.stdout.write(`${report(variants.map((v) => pool(results[v])), meta)}\n`);
  return 0;
}

process.exitCode = await main();
