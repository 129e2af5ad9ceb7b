"""The explorer's graph pane with a big graph: does it render and stay interactive while panning and zooming?

    make run &                                   # the server, serving the built explorer
    .venv/bin/python -m bench.explorer_frames    # 5,000 nodes, 10,000 links; --nodes, --links, --seconds, --url

Opens the explorer in Debian's Chromium (headless, through Playwright), draws a synthetic graph in the graph pane
through the page's own code (window.__vaultgraph.graphPane.merge; the API's graph view is capped at 2,000 nodes
per request, so a pane reaches 5,000 by expanding neighbourhoods), lets ForceAtlas2 run in its web worker, then
drives the camera (a pan, then a zoom in and out) frame by frame and prints, per phase, the frame interval
(p50 / p95 / max, from requestAnimationFrame) and sigma's own render time per frame (p50 / p95). It also prints
the WebGL renderer: headless Chromium on a machine without a GPU renders in software (SwiftShader), so these figures
are an upper bound on what a desktop browser with a GPU shows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from playwright.async_api import async_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Runs in the page: build the synthetic graph, draw it, lay it out, then time pan and zoom.
MEASURE = """
async ([nodes, links, seconds, layoutMs]) => {
  const vg = window.__vaultgraph;
  const pane = vg.graphPane;
  const sigma = vg.sigma;
  const kinds = ["markdown", "text", "json", "csv"];
  const types = ["WIKILINK", "REFERENCES", "RELATED", "DEPENDS_ON", "MENTIONS"];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const items = Array.from({ length: nodes }, (_, i) => i % 3 === 0
    ? { __typename: "Note", id: `bench-${i}`, title: `Bench note ${i}`, scope: "SHARED", kind: "note" }
    : { __typename: "Document", id: `bench-${i}`, title: `Bench document ${i}`, scope: "SHARED",
        docType: kinds[i % 4] });
  // Clustered links, as a real vault has: most links stay near their source, some jump far.
  const edges = Array.from({ length: links }, (_, i) => {
    const from = Math.floor(rand() * nodes);
    const to = rand() < 0.8 ? (from + 1 + Math.floor(rand() * 40)) % nodes : Math.floor(rand() * nodes);
    const type = types[i % types.length];
    return { id: `bench-e-${i}`, type, from: { id: `bench-${from}` }, to: { id: `bench-${to}` } };
  });
  const renders = [];
  let began = 0;
  sigma.on("beforeRender", () => { began = performance.now(); });
  sigma.on("afterRender", () => { if (began) renders.push(performance.now() - began); });
  const t0 = performance.now();
  pane.merge(items, edges, undefined, false);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const firstFrame = performance.now() - t0;
  pane.runLayout(layoutMs, true);
  await new Promise((r) => setTimeout(r, layoutMs + 300));
  pane.fit(false);
  await new Promise((r) => setTimeout(r, 300));

  const camera = sigma.getCamera();
  const phase = async (name, step) => {
    renders.length = 0;
    const frames = [];
    const start = performance.now();
    let last = start;
    // Half the time each, and at least 12 frames (a slow machine takes longer), but never more than a minute.
    const done = (now) => (now - start >= seconds * 500 && frames.length > 12) || now - start > 60000;
    await new Promise((resolve) => {
      const tick = (now) => {
        frames.push(now - last);
        last = now;
        step(frames.length);
        if (done(now)) resolve(); else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    return { phase: name, frames: frames.slice(1), renders: renders.slice() };
  };
  const pan = await phase("pan",
    (i) => camera.setState({ x: 0.5 + 0.25 * Math.sin(i / 20), y: 0.5 + 0.25 * Math.cos(i / 25) }));
  // Zoom from the whole graph (ratio 1.2) to a close-up (0.1) and back, smoothly.
  const zoom = await phase("zoom",
    (i) => camera.setState({ x: 0.5, y: 0.5, ratio: 1.2 * Math.pow(0.1 / 1.2, (1 - Math.cos(i / 30)) / 2) }));
  const gl = sigma.getWebGLContext();
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  return {
    nodes: vg.graph.order, links: vg.graph.size, firstFrameMs: firstFrame,
    renderer: info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
    phases: [pan, zoom],
  };
}
"""


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def report(result: dict[str, Any]) -> str:
    lines = [
        f"explorer graph pane: {result['nodes']:,} nodes, {result['links']:,} links; renderer: {result['renderer']}",
        f"first frame after adding them: {result['firstFrameMs']:.0f} ms",
        f"{'phase':<6} {'frames':>6} {'fps':>6} {'frame p50':>10} {'frame p95':>10} {'frame max':>10} "
        f"{'render p50':>11} {'render p95':>11}",
    ]
    for phase in result["phases"]:
        frames, renders = phase["frames"], phase["renders"]
        fps = 1000 / (sum(frames) / len(frames)) if frames else 0.0
        lines.append(
            f"{phase['phase']:<6} {len(frames):>6} {fps:>6.1f} {percentile(frames, 50):>8.1f}ms "
            f"{percentile(frames, 95):>8.1f}ms {max(frames, default=0):>8.1f}ms "
            f"{percentile(renders, 50):>9.1f}ms {percentile(renders, 95):>9.1f}ms")
    return "\n".join(lines)


async def measure(url: str, nodes: int, links: int, seconds: float, layout_ms: int) -> dict[str, Any]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 800})
            await page.goto(url)
            await page.wait_for_function("document.body.dataset.ready === 'true'", timeout=120_000)
            result: dict[str, Any] = await page.evaluate(MEASURE, [nodes, links, seconds, layout_ms])
            return result
        finally:
            await browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.explorer_frames", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000/", help="the explorer (default: make run's)")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--links", type=int, default=10000)
    parser.add_argument("--seconds", type=float, default=6.0, help="duration of the pan and zoom phases together")
    parser.add_argument("--layout-ms", type=int, default=4000, help="ForceAtlas2 time before measuring")
    parser.add_argument("--json", action="store_true", help="print the raw samples as JSON instead")
    args = parser.parse_args(argv)
    result = asyncio.run(measure(args.url, args.nodes, args.links, args.seconds, args.layout_ms))
    print(json.dumps(result) if args.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
