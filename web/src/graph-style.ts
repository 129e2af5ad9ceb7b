// How the graph looks: node and edge attributes, sigma's edge primitives (paths, arrow heads, dashes), the colours
// of focus and path highlighting, and the legend.

import type Graph from "graphology";
import type { Attributes } from "graphology-types";
import type Sigma from "sigma";
import { extremityArrow, layerDashed, pathLine, pathLoop } from "sigma/rendering";
import type { PrimitivesDeclaration } from "sigma/types";

import { fill, h } from "./dom";
import { edgeStyle, typeColor, typeLabel } from "./palette";

export interface NodeAttrs {
  label: string;
  x: number;
  y: number;
  size: number;
  color: string;
  typeKey: string;
  degree: number;
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

export type Renderer = Sigma<NodeAttrs, EdgeAttrs, Attributes, {}, {}, {}, typeof PRIMITIVES>;

export function label(title: string): string {
  return title.length > 42 ? `${title.slice(0, 40)}…` : title;
}

/** Which node types and link types are on screen, with their colours and line styles. */
export function renderLegend(host: HTMLElement, graph: Graph<NodeAttrs, EdgeAttrs>): void {
  const types = new Set<string>();
  const links = new Set<string>();
  graph.forEachNode((_, a) => types.add(a.typeKey));
  let agentLinks = false;
  graph.forEachEdge((_, a) => {
    links.add(a.linkType);
    if (a.origin === "AGENT") agentLinks = true;
  });
  fill(
    host,
    [...types].sort().map((t) =>
      h("span", { class: "legend-item" }, h("i", { class: "dot", attrs: { style: `background:${typeColor(t)}` } }), typeLabel(t))),
    [...links].sort().map((t) => {
      const s = edgeStyle(t);
      const line = `border-top:${Math.max(2, s.size)}px ${s.gap ? "dashed" : "solid"} ${s.color}`;
      return h("span", { class: "legend-item" }, h("i", { class: "line", attrs: { style: line } }), s.label);
    }),
    agentLinks ? h("span", { class: "legend-item", data: { legend: "agent" } },
      h("i", { class: "line", attrs: { style: "border-top:2px dotted #5b3fa8" } }), "made by an agent") : null,
  );
  host.hidden = types.size === 0;
}
