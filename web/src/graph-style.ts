// How the graph looks: node and edge attributes, sigma's edge primitives (paths, arrow heads, dashes), the colours
// of focus and path highlighting, and the legend.

import type Graph from "graphology";
import type { Attributes } from "graphology-types";
import type Sigma from "sigma";
import { extremityArrow, layerDashed, layerPlain, pathLine, pathLoop } from "sigma/rendering";
import type { PrimitivesDeclaration } from "sigma/types";

import { fill, h } from "./dom";
import { edgeStyle, typeColor, typeLabel } from "./palette";
import type { Item } from "./store";

export interface NodeAttrs {
  label: string;
  x: number;
  y: number;
  size: number;
  color: string;
  typeKey: string;
  degree: number;
  fixed?: boolean; // pinned: ForceAtlas2 leaves it where it is (a drag pins)
  synthetic?: boolean; // a tag or ghost node, derived (the notes' tags, unresolved refs), not an item
  [key: string]: unknown;
}

export interface EdgeAttrs {
  linkType: string;
  color: string;
  size: number;
  dash: number;
  gap: number;
  head: string;
  [key: string]: unknown;
}

export const FADED_NODE = "#d7dbe3";
export const FADED_EDGE = "#e8eaef";
export const PATH_COLOR = "#ff6a3d";
export const SOLID = { dash: 1e6, gap: 1 }; // one endless dash: the dashed layer draws a solid line
export const AGENT_DASH = { dash: 1.5, gap: 3 }; // dotted: a link with origin AGENT

/** Edges: straight (or a loop), an arrow head where the link type has a direction, dashes by link type. */
export const PRIMITIVES = {
  edges: {
    paths: [pathLine(), pathLoop()],
    variables: { dash: { type: "number", default: 0 }, gap: { type: "number", default: 0 } },
    extremities: [extremityArrow({ lengthRatio: 4, widthRatio: 3.2 })],
    layers: [layerDashed({
      dashSize: { attribute: "dash", default: 6, mode: "pixels" },
      gapSize: { attribute: "gap", default: 4, mode: "pixels" },
      align: 0,
      solidExtremities: true,
    })],
  },
} satisfies PrimitivesDeclaration;

/**
 * Large graphs (see GraphPane.largeGraphNodes): one plain line per link, in its type's colour and width, without
 * arrow heads or dashes. sigma draws every edge with the vertex count of the most complex path and extremity
 * combination its edge program can draw: with arrow heads and 32-segment self-loops that is 74 vertices an edge,
 * here 4 (no self-loop path: a self-link is not drawn). The same variables are declared so the same styles
 * apply; `head`, `dash` and `gap` are simply not drawn. Measured with bench/explorer_frames.mjs (bench/README.md):
 * a full redraw of 5,000 nodes and 10,000 links in software WebGL 3-6x cheaper (5.9 s -> 1.2 s and 7.4 s -> 1.2 s
 * on a saturated 2-core machine), draws during a wheel zoom 3-8x more frequent.
 */
export const LARGE_PRIMITIVES = {
  edges: {
    paths: [pathLine()],
    variables: PRIMITIVES.edges.variables,
    layers: [layerPlain()],
  },
} satisfies PrimitivesDeclaration;

export type Primitives = typeof PRIMITIVES | typeof LARGE_PRIMITIVES;

/**
 * Focus, path and filters are sigma item states (with sigma's own `isHidden` for what the filters leave out, and
 * `isHighlighted` for the selected node), styled by the `whenState` rules below: sigma then re-evaluates only the
 * items whose state changed. With a nodeReducer/edgeReducer it re-evaluated every node and edge whenever its graph
 * state changed (a drag or a wheel notch starting or ending, the pointer entering or leaving a node): 0.75 s of
 * JavaScript per draw during a drag of 5,000 nodes and 10,000 links (bench/README.md).
 */
export interface NodeState {
  isFaded: boolean; // something is focused or a path is shown, and this node is not part of it
  isLit: boolean; // part of the focus (the selected node and its neighbours) or of the path
  isSelected: boolean;
}
export interface EdgeState {
  isFaded: boolean;
  isFocusLink: boolean; // a link of the selected node, while it is focused and no path is shown
  isOnPath: boolean;
}
export const NODE_STATE: NodeState = { isFaded: false, isLit: false, isSelected: false };
export const EDGE_STATE: EdgeState = { isFaded: false, isFocusLink: false, isOnPath: false };

/** `attribute` plus `delta`, as a numerical binding (a function value would make sigma re-evaluate everything). */
function plus(attribute: string, delta: number): { attribute: string; minValue: number; maxValue: number; min: number; max: number } {
  return { attribute, minValue: 0, maxValue: 1000, min: delta, max: 1000 + delta };
}

/** After sigma's defaults; later rules win. A faded node has no label, even when selected or hovered. Sizes are in
 * graph units (itemSizesReference "positions"): the selected disc grows by less than the layout's GAP, so it still
 * clears its neighbours (by 3 it covered them in a small graph). */
export const NODE_STATE_STYLES = [
  { whenState: "isFaded", then: { color: FADED_NODE, zIndex: 0 } },
  { whenState: "isLit", then: { zIndex: 1, labelVisibility: "visible" } },
  { whenState: "isSelected", then: { size: plus("size", 0.5), zIndex: 2, labelVisibility: "visible" } },
  { whenState: "isFaded", then: { labelVisibility: "hidden" } },
] as const;

export const EDGE_STATE_STYLES = [
  { whenState: "isFaded", then: { color: FADED_EDGE } },
  { whenState: "isFocusLink", then: { size: plus("size", 0.8), depth: "topEdges" } },
  { whenState: "isOnPath", then: { color: PATH_COLOR, size: plus("size", 2.5), zIndex: 2, depth: "topEdges" } },
] as const;

export type Renderer = Sigma<NodeAttrs, EdgeAttrs, Attributes, NodeState, EdgeState, {}, Primitives>;

export type ColourBy = "type" | "folder" | "tag";
export const TAG_COLOR = "#c07a2c";
export const GHOST_COLOR = "#9aa3b2"; // an unresolved [[ref]]: grey, dotted link
/** Group colours, most frequent group first; the rest share OTHER_GROUP. */
const GROUP_COLORS = ["#4c6ef5", "#2f9e77", "#e0922f", "#d6336c", "#7c5cff", "#15aabf", "#a07c3b", "#5c940d",
  "#e8590c", "#862e9c", "#1971c2"];
export const OTHER_GROUP = "#9aa1ae";

/** Files that are not text (images, PDFs…): vault imports store them as documents of docType `attachment`. */
export function isAttachment(item: Pick<Item, "__typename" | "docType">): boolean {
  return item.__typename === "Document" && item.docType === "attachment";
}

/** The group an item is coloured by: its top folder (from its path or slug), or its first tag; "" for none. */
export function groupOf(by: ColourBy, _node: string, item: Item | undefined): string {
  if (!item || by === "type") return "";
  if (by === "tag") return item.tags?.[0] ?? "";
  const where = item.path ?? item.slug ?? "";
  const cut = where.lastIndexOf("/");
  return cut > 0 ? where.slice(0, cut) : "/";
}

/** Colour per group, by frequency: the eleven largest get their own, the rest OTHER_GROUP. */
export function groupColours(graph: Graph<NodeAttrs, EdgeAttrs>, group: (node: string) => string): Map<string, string> {
  const counts = new Map<string, number>();
  graph.forEachNode((node, a) => {
    if (a.synthetic) return;
    const g = group(node);
    counts.set(g, (counts.get(g) ?? 0) + 1);
  });
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(ranked.map(([g], i) => [g, g === "" ? OTHER_GROUP : GROUP_COLORS[i] ?? OTHER_GROUP]));
}

export function label(title: string): string {
  return title.length > 42 ? `${title.slice(0, 40)}…` : title;
}

/**
 * Which node types and link types are on screen, with their colours and line styles; `plainAbove` (the pane's
 * large-graph threshold, when it is drawing a large graph) says that links are drawn as plain lines for now.
 */
export function renderLegend(host: HTMLElement, graph: Graph<NodeAttrs, EdgeAttrs>, plainAbove: number | null = null,
  groups: Map<string, string> | null = null): void {
  const types = new Set<string>();
  const links = new Set<string>();
  graph.forEachNode((_, a) => { if (!a.synthetic) types.add(a.typeKey); });
  let agentLinks = false;
  graph.forEachEdge((_, a) => {
    if (a.synthetic) return;
    links.add(a.linkType);
    if (a.origin === "AGENT") agentLinks = true;
  });
  const dot = (colour: string, text: string, group?: string): HTMLElement => h("span", { class: "legend-item", data: group !== undefined ? { group } : {} },
    h("i", { class: "dot", attrs: { style: `background:${colour}` } }), text);
  const named = groups ? [...groups].filter(([, c]) => c !== OTHER_GROUP) : [];
  fill(
    host,
    groups ? named.map(([g, c]) => dot(c, g || "none", g)) : [...types].sort().map((t) => dot(typeColor(t), typeLabel(t))),
    groups && named.length < groups.size ? dot(OTHER_GROUP, "other", "other") : null,
    [...links].sort().map((t) => {
      const s = edgeStyle(t);
      const line = `border-top:${Math.max(2, s.size)}px ${s.gap ? "dashed" : "solid"} ${s.color}`;
      return h("span", { class: "legend-item" }, h("i", { class: "line", attrs: { style: line } }), s.label);
    }),
    agentLinks ? h("span", { class: "legend-item", data: { legend: "agent" } },
      h("i", { class: "line", attrs: { style: "border-top:2px dotted #5b3fa8" } }), "made by an agent") : null,
    plainAbove !== null ? h("span", { class: "legend-item", data: { legend: "plain" },
      text: `above ${plainAbove.toLocaleString("en-US")} nodes links are plain lines, without arrows or dashes` }) : null,
  );
  host.hidden = types.size === 0;
}
