// Where the graph's nodes sit: node sizes by degree, ForceAtlas2 (synchronous for small graphs, in a web worker for
// large ones), then noverlap and a last check that no two discs overlap, and the positions kept per tenant in
// localStorage so the same vault reopens to the same picture.
//
// Sizes are in graph units (the renderer draws them with itemSizesReference "positions"): a layout without
// overlaps in graph units has none on screen at the default zoom, and zooming in grows discs no faster than the
// gaps between them (see GraphPane's zoomToSizeRatio).

import type Graph from "graphology";
import forceAtlas2 from "graphology-layout-forceatlas2";
import noverlap from "graphology-layout-noverlap";

import type { EdgeAttrs, NodeAttrs } from "./graph-style";

type G = Graph<NodeAttrs, EdgeAttrs>;

/** The radius of a node of no links, in graph units; hubs grow with the square root of their degree. */
export const UNIT = 1;
/** The free space kept between two discs, in graph units. */
export const GAP = 0.6;

export function sizeFor(degree: number): number {
  return UNIT * (1 + Math.min(3, Math.sqrt(degree) * 0.45));
}

/** ForceAtlas2's settings for this graph: spread enough that noverlap has little left to do. */
export function fa2Settings(graph: G): Record<string, unknown> {
  return {
    ...forceAtlas2.inferSettings(graph),
    adjustSizes: false, // noverlap does it afterwards; with Barnes-Hut adjustSizes oscillates
    barnesHutOptimize: graph.order > 500,
    scalingRatio: 8,
    gravity: 2, // pulls small components in, so they do not sit far out and shrink the whole picture
    strongGravityMode: false,
    slowDown: 2,
  };
}

/** Synchronous ForceAtlas2, for small graphs (cheap and the same every time for the same start). */
export function forceLayout(graph: G, iterations: number): void {
  forceAtlas2.assign(graph, { iterations, settings: fa2Settings(graph) });
}

/** The least span of the picture, in graph units (about a 100-node graph's): a graph that spans less, a handful of
 * nodes, is framed as if it spanned this much, so its discs keep the size they have in a larger graph rather than
 * filling the pane (sigma fits whatever the graph spans to the pane, sizes with it). */
export const MIN_SPAN = 40;

/** The box to frame the graph in: its own extent's centre, MIN_SPAN wide and high, when it spans less; else null
 * (sigma's own extent). Positions only, like sigma's extent. */
export function framingBox(graph: G): { x: [number, number]; y: [number, number] } | null {
  if (graph.order === 0) return null;
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  graph.forEachNode((_, a) => {
    x0 = Math.min(x0, a.x);
    x1 = Math.max(x1, a.x);
    y0 = Math.min(y0, a.y);
    y1 = Math.max(y1, a.y);
  });
  if (Math.max(x1 - x0, y1 - y0) >= MIN_SPAN) return null;
  const [cx, cy, half] = [(x0 + x1) / 2, (y0 + y1) / 2, MIN_SPAN / 2];
  return { x: [cx - half, cx + half], y: [cy - half, cy + half] };
}

/** Free space per node, in node radii, that a layout is scaled to before the overlaps are removed. */
const SPACING = 3.2;
/** Below this many nodes the space per node grows (as the square root of FEW / order): a handful of notes packed
 * as tightly as a vault's thousands would leave their links no length to be seen and their labels on the discs. */
const FEW = 24;

/**
 * ForceAtlas2's coordinates have a scale of their own: scale the layout about its centre so that the space per
 * node is SPACING radii, more for fewer than FEW nodes (measured between the 5th and 95th percentiles, so far-out components do not count), which
 * makes discs readable at the default zoom and leaves noverlap little to do.
 */
export function normalize(graph: G): void {
  const spacing = SPACING * UNIT * Math.sqrt(Math.max(1, FEW / graph.order));
  if (graph.order === 2) { // no spread to measure: the two nodes `spacing` apart, about their midpoint
    const [a, b] = graph.mapNodes((_, attrs) => attrs);
    const d = Math.hypot(a.x - b.x, a.y - b.y);
    const [mx, my, f] = [(a.x + b.x) / 2, (a.y + b.y) / 2, d > 0 ? spacing / d : 1];
    graph.updateEachNodeAttributes((_, attrs) => ({ ...attrs, x: (attrs.x - mx) * f, y: (attrs.y - my) * f }));
  }
  if (graph.order < 3) return;
  const xs: number[] = [];
  const ys: number[] = [];
  graph.forEachNode((_, a) => { xs.push(a.x); ys.push(a.y); });
  xs.sort((a, b) => a - b);
  ys.sort((a, b) => a - b);
  const q = (v: number[], f: number): number => v[Math.min(v.length - 1, Math.floor(f * v.length))];
  const w = q(xs, 0.95) - q(xs, 0.05);
  const hgt = q(ys, 0.95) - q(ys, 0.05);
  const area = Math.max(w * hgt, 1e-9) / (0.9 * graph.order);
  const factor = spacing / Math.sqrt(area);
  const cx = q(xs, 0.5);
  const cy = q(ys, 0.5);
  // Far-out pieces (small components the repulsion flung away) are drawn in to just beyond the body of the graph:
  // otherwise fitting them in view shrinks everything else to dots.
  const radii = graph.mapNodes((_, a) => Math.hypot(a.x - cx, a.y - cy)).sort((a, b) => a - b);
  const body = q(radii, 0.95);
  graph.updateEachNodeAttributes((_, a) => {
    const dx = a.x - cx;
    const dy = a.y - cy;
    const r = Math.hypot(dx, dy);
    const pull = r > body ? (body + Math.min((r - body) * 0.15, body * 0.3)) / r : 1;
    return { ...a, x: dx * pull * factor, y: dy * pull * factor };
  });
}

/**
 * Push apart every pair of nodes whose discs (plus GAP) overlap: noverlap first (`fresh`: after a layout); then, for what it left (it moves
 * nodes by a bounded step per iteration), pairs pushed apart along the line between them until none overlap; and
 * only if that has not converged, the whole layout scaled about its centre by the least factor that separates the
 * worst pair (distances grow, sizes do not), which always succeeds.
 */
export function separate(graph: G, fresh = true): void {
  if (graph.order < 2) return;
  // noverlap keeps a margin around each node (twice GAP between two): run on a layout already separated, it would
  // move nodes that overlap nothing, so a restored layout goes to the pairwise pass alone, which leaves it as it was.
  if (fresh) noverlap.assign(graph, { maxIterations: 300, settings: { margin: GAP, ratio: 1, expansion: 1.1, speed: 3, gridSize: 40 } });
  const nodes = graph.mapNodes((key, a) => ({ key, x: a.x, y: a.y, r: a.size }));
  for (let round = 0; round < 400; round++) {
    let moved = false;
    forOverlaps(nodes, (n, m, need, d) => {
      // Coincident nodes part along a direction of their own (deterministic: the same picture every time).
      const [ux, uy] = d < 1e-9 ? [Math.cos(n.key.length + round), Math.sin(n.key.length + round)] : [(m.x - n.x) / d, (m.y - n.y) / d];
      const push = ((need - d) / 2) * 1.05 + 1e-6;
      n.x -= ux * push;
      n.y -= uy * push;
      m.x += ux * push;
      m.y += uy * push;
      moved = true;
    });
    if (!moved) break;
  }
  let factor = 1;
  forOverlaps(nodes, (_n, _m, need, d) => { factor = Math.max(factor, need / Math.max(d, need / 100)); });
  if (factor > 1) {
    factor *= 1.01; // a little beyond the least factor, so rounding never leaves two discs touching
    const cx = nodes.reduce((t, n) => t + n.x, 0) / nodes.length;
    const cy = nodes.reduce((t, n) => t + n.y, 0) / nodes.length;
    for (const n of nodes) {
      n.x = cx + (n.x - cx) * factor;
      n.y = cy + (n.y - cy) * factor;
    }
  }
  const at = new Map(nodes.map((n) => [n.key, n]));
  graph.updateEachNodeAttributes((key, a) => {
    const n = at.get(key);
    return n && (n.x !== a.x || n.y !== a.y) ? { ...a, x: n.x, y: n.y } : a;
  });
}

type Disc = { key: string; x: number; y: number; r: number };

/**
 * Call `fn(n, m, need, distance)` for each pair of discs closer than their radii plus GAP (`need`). Pairs are
 * found through a grid of cells as large as the largest disc, so this is near-linear.
 */
function forOverlaps(nodes: Disc[], fn: (n: Disc, m: Disc, need: number, d: number) => void): void {
  const cell = 2 * Math.max(...nodes.map((n) => n.r)) + GAP;
  const grid = new Map<string, Disc[]>();
  for (const n of nodes) {
    const k = `${Math.floor(n.x / cell)},${Math.floor(n.y / cell)}`;
    const list = grid.get(k);
    if (list) list.push(n);
    else grid.set(k, [n]);
  }
  for (const [k, list] of grid) {
    const [cx, cy] = k.split(",").map(Number);
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        const other = grid.get(`${cx + dx},${cy + dy}`);
        if (!other) continue;
        for (const n of list) {
          for (const m of other) {
            if (m.key <= n.key) continue; // each pair once
            const need = n.r + m.r + GAP;
            const d = Math.hypot(n.x - m.x, n.y - m.y);
            if (d < need) fn(n, m, need, d);
          }
        }
      }
    }
  }
}

/** Positions kept per tenant: `{ id: [x, y, pinned?] }`, exactly as laid out (a reopened vault is the same picture). */
export class LayoutMemory {
  constructor(private readonly key: string) {}

  load(): Map<string, { x: number; y: number; pinned: boolean }> {
    const out = new Map<string, { x: number; y: number; pinned: boolean }>();
    try {
      const raw = window.localStorage.getItem(this.key);
      if (!raw) return out;
      const parsed = JSON.parse(raw) as Record<string, [number, number, number?]>;
      for (const [id, [x, y, pinned]] of Object.entries(parsed)) {
        if (Number.isFinite(x) && Number.isFinite(y)) out.set(id, { x, y, pinned: pinned === 1 });
      }
    } catch {
      // unreadable or storage disabled: lay the graph out afresh
    }
    return out;
  }

  save(graph: G): void {
    const out: Record<string, [number, number] | [number, number, number]> = {};
    graph.forEachNode((id, a) => {
      if (a.synthetic) return; // tag nodes are derived, laid out around their notes each time
      out[id] = a.fixed ? [a.x, a.y, 1] : [a.x, a.y];
    });
    try {
      window.localStorage.setItem(this.key, JSON.stringify(out));
    } catch {
      // full or disabled: the layout lasts for this page only
    }
  }

  forget(): void {
    try {
      window.localStorage.removeItem(this.key);
    } catch {
      // nothing kept
    }
  }
}

/** The storage key of a tenant's layout: the API key names one tenant; without one, the development tenant the
 * switcher chose (`devTenant`), else the server's own. */
export function layoutKey(apiKey: string | null, view = "global", devTenant: string | null = null): string {
  let hash = 2166136261;
  for (const ch of apiKey ?? "") hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619) >>> 0;
  const who = apiKey ? hash.toString(36) : devTenant ? `dev-${devTenant}` : "dev";
  return `vaultgraph.layout.${who}.${view}`;
}
