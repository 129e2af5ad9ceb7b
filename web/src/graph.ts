// The graph pane: sigma (WebGL) over a graphology graph. Nodes are sized by degree and laid out without overlaps
// (graph-layout.ts), labelled by importance without overlaps (graph-labels.ts), coloured by type, folder or tag;
// edges are styled by link type, self-links are not drawn, ghosts never (the API's graph view has none). Click
// focuses a node, hover lights its neighbours, drag moves and pins it (right-click unpins), double-click expands
// its neighbourhood; the keyboard reaches every node ([ and ] by importance, arrows to the nearest in a direction).
// A local graph shows one note's neighbourhood alone (graph-controls.ts); a shortest path is drawn like a
// graph-mode search hit's path.

import Graph from "graphology";
import FA2Layout from "graphology-layout-forceatlas2/worker";
import type { Attributes } from "graphology-types";
import Sigma, { DEFAULT_STYLES } from "sigma";

import type { Api } from "./api";
import { storedKey, storedTenant } from "./api";
import { byId, fill, h } from "./dom";
import { LabelLayer } from "./graph-labels";
import {
  fa2Settings, forceLayout, framingBox, LayoutMemory, layoutKey, normalize, separate, sizeFor, UNIT,
} from "./graph-layout";
import {
  AGENT_DASH, type ColourBy, type EdgeAttrs, EDGE_STATE, EDGE_STATE_STYLES, type EdgeState, groupColours, groupOf,
  isAttachment, label, LARGE_PRIMITIVES, type NodeAttrs, NODE_STATE, NODE_STATE_STYLES, type NodeState, PRIMITIVES,
  type Primitives, type Renderer, renderLegend, SOLID, TAG_COLOR, GHOST_COLOR,
} from "./graph-style";
import { edgeStyle, typeColor } from "./palette";
import { GHOSTS, GRAPH_VIEW } from "./queries";
import { type Item, type Link, type PathStep, type Store, typeKey } from "./store";
import { attempt } from "./toast";

export interface GraphEdge {
  id: string; type: string; origin: string; confidence?: number | null; from: { id: string }; to: { id: string } | null;
}
export interface GraphViewData {
  graph: { truncated: boolean; edgesTruncated?: boolean; nodes: Item[]; edges: GraphEdge[] };
}

/** What the pane leaves out or adds; the defaults follow Obsidian's: attachments and orphans off. */
export interface ViewOptions {
  attachments: boolean;
  orphans: boolean;
  tags: boolean;
  ghosts: boolean;
  colourBy: ColourBy;
}

/** The isolated view of one item's neighbourhood. */
export interface LocalView {
  center: string;
  depth: number; // 1 to 5, the API's bound on hops
  direction: "BOTH" | "OUT" | "IN";
  linkTypes: string[]; // empty: every type
}

export const GRAPH_LIMIT = 2000; // the server's cap on one graph view
const TAG_PREFIX = "tag:";
const GHOST_PREFIX = "ghost:";
/** The API's `ghosts(first:)` bound: the most linked unresolved refs, each with its first ten sources. */
export const GHOST_LIMIT = 50;

interface GhostsData { ghosts: { ref: string; text: string; links: number; sources: { id: string }[] }[] }

/** Sizes on screen follow the zoom like positions when zooming out, and grow slower when zooming in: discs that do
 * not overlap at the default zoom overlap at none. */
const zoomToSizeRatio = (ratio: number): number => (ratio >= 1 ? ratio : Math.sqrt(ratio));

export class GraphPane {
  readonly graph = new Graph<NodeAttrs, EdgeAttrs>({ multi: true, type: "directed", allowSelfLoops: true });
  sigma: Renderer | null = null;
  labels: LabelLayer | null = null;
  /**
   * Above this many nodes the pane draws for speed: links as plain lines (LARGE_PRIMITIVES: no arrow heads, no
   * dashes), and edges and labels hidden while the camera moves (sigma's hideEdgesOnMove/hideLabelsOnMove). Below
   * it, every link shows its type's style. bench/explorer_frames.mjs moves it to compare both drawings.
   */
  largeGraphNodes = 1500;
  /** Measurement only (bench/explorer_frames.mjs, variant `reducers`): pass-through reducers. */
  passThroughReducers = false;
  options: ViewOptions = { attachments: false, orphans: false, tags: false, ghosts: false, colourBy: "type" };
  local: LocalView | null = null;
  /** Nodes the current options, filters and local view leave visible (recomputed by restyle). */
  visibleNodes = new Set<string>();
  /** The node the keyboard is on, if any. */
  keyboardNode: string | null = null;
  private large = false;
  private layout: FA2Layout<NodeAttrs, EdgeAttrs> | null = null;
  private layoutTimer = 0;
  private focus: Set<string> | null = null;
  private hover: string | null = null;
  private pathNodes: Set<string> | null = null;
  private pathEdges: Set<string> | null = null;
  private truncated = false;
  private unindexed = false; // items were added since sigma last processed the graph
  private note: string | null = null; // what the status says after the counts, until something else is said
  private importance: string[] = [];
  private memory: LayoutMemory = new LayoutMemory(layoutKey(storedKey(), "global", storedTenant()));
  private readonly container = byId("graph-canvas");
  private readonly status = byId("graph-status");
  private readonly legend = byId("graph-legend");
  private readonly empty = byId("graph-empty");
  /** Told when the view changes (local view entered or left, options), for the controls. */
  onViewChange: () => void = () => {};
  /** Positions changed since the renderer's framing box was set (see framingBox). */
  private framingStale = true;

  /** Handlers the controls add to each renderer (the pane makes a new one when a graph grows large). */
  private sigmaHandlers: ((sigma: Renderer) => void) | null = null;

  set sigmaEvents(add: (sigma: Renderer) => void) {
    this.sigmaHandlers = add;
    if (this.sigma) add(this.sigma);
  }

  get sigmaEvents(): (sigma: Renderer) => void {
    return this.sigmaHandlers ?? (() => {});
  }

  constructor(private readonly api: Api, private readonly store: Store) {
    store.on("select", (id) => this.onSelect(id));
    store.on("filters", () => this.restyle());
    store.on("item", (id) => this.refreshNode(id));
    store.on("path", (path) => this.showPath(path));
    this.bindToolbar();
    this.graph.on("nodeAdded", () => { this.unindexed = true; });
    this.graph.on("edgeAdded", () => { this.unindexed = true; });
    for (const event of ["nodeAdded", "nodeDropped", "nodeAttributesUpdated", "eachNodeAttributesUpdated", "cleared"] as const) {
      this.graph.on(event, () => { this.framingStale = true; });
    }
    // The pane changes size when the detail panel opens or closes, not only with the window: follow it, or the
    // canvas stays at its old width until the next Fit.
    new ResizeObserver(() => {
      if (!this.sigma || this.container.clientWidth === 0) return;
      this.sigma.resize(true);
      this.sigma.refresh();
    }).observe(this.container);
  }

  /** Create the renderer. Fails with a readable message when the browser has no WebGL2. */
  mount(): void {
    this.create(this.graph.order > this.largeGraphNodes);
  }

  /** (Re)create the renderer for a small or a large graph (sigma compiles its edge program once; camera kept). */
  private create(large: boolean): void {
    const camera = this.sigma?.getCamera().getState();
    this.sigma?.kill();
    this.sigma = null;
    this.labels = null;
    this.container.classList.remove("hovering");
    this.large = large;
    try {
      this.sigma = new Sigma<NodeAttrs, EdgeAttrs, Attributes, NodeState, EdgeState, {}, Primitives>(this.graph, this.container, {
        primitives: large ? LARGE_PRIMITIVES : PRIMITIVES,
        styles: {
          nodes: [DEFAULT_STYLES.nodes, { labelColor: "#2b2f3a", labelSize: 12 }, ...NODE_STATE_STYLES],
          edges: [DEFAULT_STYLES.edges, {
            head: { attribute: "head", defaultValue: "none" },
            dash: { attribute: "dash", defaultValue: SOLID.dash },
            gap: { attribute: "gap", defaultValue: SOLID.gap },
          }, ...EDGE_STATE_STYLES],
        },
        customNodeState: NODE_STATE,
        customEdgeState: EDGE_STATE,
        ...(this.passThroughReducers ? { nodeReducer: () => ({}), edgeReducer: () => ({}) } : {}),
        settings: {
          renderEdgeLabels: false,
          renderLabels: false, // graph-labels.ts draws them, never overlapping
          // Edges are most of what a frame rasterizes: hidden while a large graph moves (bench/README.md).
          hideEdgesOnMove: large,
          hideLabelsOnMove: large,
          zoomDuration: 200,
          minCameraRatio: 0.02,
          maxCameraRatio: 8,
          stagePadding: 40,
          itemSizesReference: "positions", // sizes in graph units: the layout keeps discs apart in those
          zoomToSizeRatioFunction: zoomToSizeRatio,
          enableNodeDrag: true,
          dragPositionToAttributes: (position) => ({ x: position.x, y: position.y, fixed: true }),
          allowInvalidContainer: true, // the pane is hidden while the note editor shows; it resizes on return
        },
      });
    } catch (err) {
      fill(this.empty, h("p", { text: `The graph cannot be drawn here: ${(err as Error).message}` }));
      this.empty.hidden = false;
      return;
    }
    const s = this.sigma;
    this.labels = new LabelLayer(s, () => this.labelOrder());
    // Above a few hundred nodes, placing labels costs more per draw than the draw (bench/README.md): not while moving.
    this.labels.hideOnMove = () => this.graph.order > 500;
    // Tag and ghost nodes are not items: a click on one keeps the selection.
    s.on("clickNode", ({ node }) => this.store.select(this.derived(node) ? this.store.selectedId : node));
    s.on("doubleClickNode", (e) => {
      e.preventSigmaDefault();
      if (!this.derived(e.node)) void this.expand(e.node);
    });
    s.on("clickStage", () => {
      if (this.pathNodes) this.store.emit("path", null);
    });
    s.on("enterNode", ({ node }) => {
      this.container.classList.add("hovering");
      this.setHover(node);
    });
    s.on("leaveNode", () => {
      this.container.classList.remove("hovering");
      this.setHover(this.keyboardNode);
    });
    s.on("nodeDragEnd", ({ node }) => {
      separate(this.graph, false); // dropped onto another node: both move apart just enough, and that is what is kept
      this.remember();
      this.updateStatus(`Pinned “${this.graph.getNodeAttribute(node, "label")}” (right-click unpins)`);
    });
    // Before the frame processes the graph (sigma normalizes positions to the box then), and only after a change.
    s.on("beforeRender", () => {
      if (!this.framingStale) return;
      this.framingStale = false;
      s.setCustomBBox(framingBox(this.graph));
    });
    s.setCustomBBox(framingBox(this.graph));
    this.sigmaEvents(s);
    if (camera) s.getCamera().setState(camera);
    this.restyle();
  }

  /** The drawing this many nodes need: a new renderer when the graph crosses largeGraphNodes either way. */
  private drawFor(order: number): void {
    const large = order > this.largeGraphNodes;
    if (this.sigma && large !== this.large) this.create(large);
  }

  /** The pane became visible again (after the editor): take the container's size and redraw. */
  shown(): void {
    this.sigma?.resize(true);
    this.sigma?.refresh();
  }

  private bindToolbar(): void {
    byId("graph-fit").addEventListener("click", () => this.fit());
    byId("graph-zoom-in").addEventListener("click", () => void this.sigma?.getCamera().zoomIn({ duration: 200 }));
    byId("graph-zoom-out").addEventListener("click", () => void this.sigma?.getCamera().zoomOut({ duration: 200 }));
    byId("graph-relayout").addEventListener("click", () => {
      this.graph.updateEachNodeAttributes((_, a) => ({ ...a, fixed: false }));
      this.runLayout(2500, true);
    });
    byId("graph-reload").addEventListener("click", () => void this.reload());
    this.container.addEventListener("keydown", (e) => this.onKey(e));
    this.container.addEventListener("contextmenu", (e) => e.preventDefault()); // right-click unpins a node
  }

  /**
   * Keyboard on the focused canvas: [ and ] step through the drawn nodes by importance, arrows then move to the
   * nearest node that way (Shift+arrows, or arrows with no node, pan), Enter opens it, Esc leaves it; +/- zoom, 0 fits.
   */
  private onKey(e: KeyboardEvent): void {
    const camera = this.sigma?.getCamera();
    if (!camera) return;
    const arrows: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (e.key === "]" || e.key === "[") this.stepNode(e.key === "]" ? 1 : -1);
    else if (arrows[e.key] && this.keyboardNode && !e.shiftKey) this.moveNode(arrows[e.key]);
    else if (arrows[e.key]) {
      const step = 0.1 * camera.ratio;
      const [dx, dy] = arrows[e.key];
      void camera.animate({ x: camera.x + dx * step, y: camera.y - dy * step }, { duration: 120 });
    } else if (e.key === "Enter" && this.keyboardNode) this.store.select(this.keyboardNode);
    else if (e.key === "Escape" && this.keyboardNode) {
      this.setKeyboardNode(null);
      e.stopPropagation(); // one Esc, one layer: the selection stays
    } else if (e.key === "+" || e.key === "=") void camera.zoomIn({ duration: 150 });
    else if (e.key === "-") void camera.zoomOut({ duration: 150 });
    else if (e.key === "0") this.fit();
    else return;
    e.preventDefault();
  }

  private stepNode(delta: number): void {
    const order = this.importance.filter((n) => this.visibleNodes.has(n));
    if (!order.length) return;
    const at = this.keyboardNode ? order.indexOf(this.keyboardNode) : -1;
    const next = at < 0 ? (delta > 0 ? 0 : order.length - 1) : (at + delta + order.length) % order.length;
    this.setKeyboardNode(order[next]);
  }

  /** To the nearest drawn node in this direction on screen (within 60° of it), if there is one. */
  private moveNode([dx, dy]: [number, number]): void {
    const s = this.sigma;
    const from = this.keyboardNode;
    if (!s || !from) return;
    const p = s.graphToViewport(this.graph.getNodeAttributes(from));
    let best: string | null = null;
    let bestScore = Infinity;
    for (const n of this.visibleNodes) {
      if (n === from) continue;
      const q = s.graphToViewport(this.graph.getNodeAttributes(n));
      const vx = q.x - p.x;
      const vy = q.y - p.y;
      const along = vx * dx + vy * dy;
      const dist = Math.hypot(vx, vy);
      if (along <= 0 || along < dist * 0.5) continue;
      const score = dist + 2 * Math.abs(vx * dy - vy * dx);
      if (score < bestScore) [best, bestScore] = [n, score];
    }
    if (best) this.setKeyboardNode(best);
  }

  setKeyboardNode(node: string | null): void {
    this.keyboardNode = node;
    this.status.dataset.keyboardNode = node ?? "";
    this.setHover(node);
    if (!node) {
      this.updateStatus(null);
      return;
    }
    const s = this.sigma;
    const a = this.graph.getNodeAttributes(node);
    if (s) {
      const p = s.graphToViewport(a);
      const { width, height } = s.getDimensions();
      if (p.x < 20 || p.y < 20 || p.x > width - 20 || p.y > height - 20) {
        const d = s.getNodeDisplayData(node);
        if (d) void s.getCamera().animate({ x: d.x, y: d.y }, { duration: 200 });
      }
    }
    const links = this.graph.degree(node);
    this.updateStatus(`${a.label}: ${links} link${links === 1 ? "" : "s"} — Enter opens, arrows move, Esc leaves`);
  }

  /** The whole graph in view; a handful of nodes is shown from further away, so they do not sit on the edges. */
  fit(animate = true): void {
    const camera = this.sigma?.getCamera();
    if (!camera) return;
    const state = { x: 0.5, y: 0.5, angle: 0, ratio: this.graph.order <= 12 ? 1.5 : 1 };
    if (animate) void camera.animate(state, { duration: 300 });
    else camera.setState(state);
  }

  /** The view again from the server: the whole tenant's graph, or the local view. */
  async reload(): Promise<void> {
    if (this.local) await this.showLocal(this.local);
    else await this.load();
  }

  /** The whole tenant's graph (newest items first, up to the server's cap), where it was last laid out. */
  async load(): Promise<void> {
    const data = await attempt("Loading the graph", () =>
      this.api.request<GraphViewData>(GRAPH_VIEW, { center: null, hops: 1, limit: GRAPH_LIMIT }));
    if (!data) return;
    this.local = null;
    this.memory = new LayoutMemory(layoutKey(storedKey(), "global", storedTenant()));
    this.replace(data);
    this.onViewChange();
  }

  /** One item's neighbourhood alone: `depth` hops that way along those link types, laid out on its own. */
  async showLocal(view: LocalView): Promise<void> {
    const data = await attempt("Loading the local graph", () => this.api.request<GraphViewData>(GRAPH_VIEW, {
      center: view.center, hops: view.depth, limit: GRAPH_LIMIT, direction: view.direction,
      linkTypes: view.linkTypes.length ? view.linkTypes : null,
    }));
    if (!data) return;
    this.local = view;
    this.memory = new LayoutMemory(layoutKey(storedKey(), `local.${view.center}`, storedTenant()));
    this.replace(data);
    this.status.dataset.local = view.center;
    this.onViewChange();
  }

  /** Leave the local view for the whole graph. */
  async showGlobal(): Promise<void> {
    delete this.status.dataset.local;
    await this.load();
  }

  private replace(data: GraphViewData): void {
    window.clearTimeout(this.layoutTimer);
    this.layout?.kill();
    this.layout = null;
    this.graph.clear();
    this.pathNodes = this.pathEdges = null;
    this.note = null;
    this.truncated = data.graph.truncated;
    const stored = this.memory.load();
    this.merge(data.graph.nodes, data.graph.edges, undefined, true, stored);
    this.syncTags();
    const known = this.graph.filterNodes((n) => stored.has(n)).length;
    if (this.graph.order && known === this.graph.order) this.settled(); // the picture as it was left
    else this.runLayout(this.graph.order > 800 ? 4000 : 2500, true);
    this.fit(false);
  }

  /**
   * Fetch one node's one-hop neighbourhood and add what is new, placed around it; links of that node the server no
   * longer has (removed by an edit) are dropped.
   */
  async expand(id: string, linkTypes: string[] | null = null): Promise<number> {
    const data = await attempt("Expanding the neighbourhood", () =>
      this.api.request<GraphViewData>(GRAPH_VIEW, { center: id, hops: 1, limit: 500, linkTypes }));
    if (!data) return 0;
    const before = this.graph.order;
    const dropped = this.dropStaleLinks(id, data, linkTypes);
    this.merge(data.graph.nodes, data.graph.edges, id);
    this.syncTags();
    const added = this.graph.order - before;
    this.status.dataset.expanded = id;
    if (added > 0) {
      this.runLayout(1200);
      this.refocus();
    }
    const what = added > 0 ? `+${added} from the neighbourhood` : "No new neighbours";
    this.updateStatus(dropped ? `${what}, ${dropped} removed link${dropped === 1 ? "" : "s"} dropped` : what);
    return added;
  }

  /** The links of `id` drawn here that its fresh neighbourhood lacks; a cut view only speaks for what it holds. */
  private dropStaleLinks(id: string, data: GraphViewData, linkTypes: string[] | null): number {
    if (!this.graph.hasNode(id)) return 0;
    const fresh = new Set(data.graph.edges.map((e) => e.id));
    const reached = new Set(data.graph.nodes.map((n) => n.id));
    const complete = !data.graph.truncated && !data.graph.edgesTruncated;
    const stale = this.graph.edges(id).filter((e) => {
      const type = this.graph.getEdgeAttribute(e, "linkType");
      if (fresh.has(e) || type === "TAGGED_AS" || (linkTypes && !linkTypes.includes(type))) return false;
      return complete || reached.has(this.graph.opposite(id, e));
    });
    for (const e of stale) this.graph.dropEdge(e);
    if (stale.length) this.resize();
    return stale.length;
  }

  /**
   * Add items and resolved edges; new nodes start where they were last laid out (`stored`), else around `near` or a
   * neighbour already drawn, else at random. `remember: false` draws them without adding them to the list
   * (bench/explorer_frames.mjs draws synthetic graphs).
   */
  merge(items: Item[], edges: GraphEdge[], near?: string, remember = true,
    stored: Map<string, { x: number; y: number; pinned: boolean }> = new Map()): void {
    // Switch the drawing before adding: a renderer made afterwards processes the whole graph once, not twice.
    const fresh = new Set(items.map((i) => i.id).filter((id) => !this.graph.hasNode(id)));
    this.drawFor(this.graph.order + fresh.size);
    const neighbour = new Map<string, string>();
    for (const e of edges) {
      if (!e.to) continue;
      if (fresh.has(e.from.id) && !fresh.has(e.to.id)) neighbour.set(e.from.id, e.to.id);
      if (fresh.has(e.to.id) && !fresh.has(e.from.id)) neighbour.set(e.to.id, e.from.id);
    }
    const spread = 4 * UNIT * Math.sqrt(this.graph.order + fresh.size + 1);
    for (const item of items) {
      if (remember) this.store.upsert([item], true);
      if (this.graph.hasNode(item.id)) {
        this.graph.mergeNodeAttributes(item.id, { label: label(item.title), typeKey: typeKey(item) });
        continue;
      }
      const kept = stored.get(item.id);
      const anchor = near && this.graph.hasNode(near) ? near : neighbour.get(item.id);
      const origin = anchor && this.graph.hasNode(anchor) ? this.graph.getNodeAttributes(anchor) : null;
      const angle = Math.random() * 2 * Math.PI;
      const radius = origin ? 2 * UNIT + Math.random() * 4 * UNIT : spread * Math.sqrt(Math.random());
      this.graph.addNode(item.id, {
        label: label(item.title),
        x: kept?.x ?? (origin?.x ?? 0) + Math.cos(angle) * radius,
        y: kept?.y ?? (origin?.y ?? 0) + Math.sin(angle) * radius,
        size: UNIT,
        color: typeColor(typeKey(item)),
        typeKey: typeKey(item),
        degree: 0,
        fixed: kept?.pinned ?? false,
      });
    }
    for (const e of edges) this.addEdge(e.id, e.type, e.from.id, e.to?.id ?? null, e.origin);
    this.resize();
    if (remember) this.store.emit("items", undefined);
  }

  /** A link made or found elsewhere (detail panel, search path); ghosts (no `to`) are not drawn. */
  addLink(link: Pick<Link, "id" | "type" | "from" | "to"> & { origin?: string }): boolean {
    const added = this.addEdge(link.id, link.type, link.from.id, link.to?.id ?? null, link.origin);
    if (added) {
      this.resize();
      this.runLayout(800);
      this.refocus();
    }
    return added;
  }

  removeLink(id: string): void {
    if (this.graph.hasEdge(id)) {
      this.graph.dropEdge(id);
      this.resize();
    }
  }

  /** Items created in this session (a saved note, a capture) join the graph without a reload. */
  addItems(items: Item[]): void {
    const fresh = items.filter((i) => !this.graph.hasNode(i.id));
    this.merge(items, []);
    this.syncTags();
    if (fresh.length) this.runLayout(800);
  }

  /** Show or hide attachments, orphans, tags as nodes; colour by type, folder or tag. */
  setOptions(patch: Partial<ViewOptions>): void {
    this.options = { ...this.options, ...patch };
    if ("tags" in patch && this.syncTags()) this.runLayout(1200);
    if ("ghosts" in patch) void this.syncGhosts();
    this.recolour();
    this.onViewChange();
  }

  /** A tag or ghost node: drawn from the items, not one of them. */
  derived(node: string): boolean {
    return this.graph.hasNode(node) && !!this.graph.getNodeAttribute(node, "synthetic");
  }

  /** Unpin a node (right-click): the next layout moves it again. */
  unpin(node: string): void {
    if (!this.graph.hasNode(node) || !this.graph.getNodeAttribute(node, "fixed")) return;
    this.graph.setNodeAttribute(node, "fixed", false);
    this.remember();
    this.updateStatus(`Unpinned “${this.graph.getNodeAttribute(node, "label")}”`);
  }

  /** Tags as nodes (when on): one node per tag of the drawn notes, linked from each note that carries it. */
  private syncTags(): boolean {
    const want = new Map<string, string[]>();
    if (this.options.tags) {
      this.graph.forEachNode((id) => {
        for (const tag of this.store.items.get(id)?.tags ?? []) want.set(tag, [...(want.get(tag) ?? []), id]);
      });
    }
    let changed = false;
    for (const node of this.graph.filterNodes((n) => n.startsWith(TAG_PREFIX))) {
      if (!want.has(node.slice(TAG_PREFIX.length))) {
        this.graph.dropNode(node);
        changed = true;
      }
    }
    for (const [tag, notes] of want) {
      const key = TAG_PREFIX + tag;
      if (!this.graph.hasNode(key)) {
        const first = this.graph.getNodeAttributes(notes[0]);
        this.graph.addNode(key, { label: `#${tag}`, x: first.x + UNIT * 3, y: first.y + UNIT * 3, size: UNIT,
          color: TAG_COLOR, typeKey: "tag", degree: 0, synthetic: true, fixed: false });
        changed = true;
      }
      for (const note of notes) {
        const edge = `${key}<-${note}`;
        if (!this.graph.hasEdge(edge)) {
          this.graph.addDirectedEdgeWithKey(edge, note, key, { linkType: "TAGGED_AS", color: "#c9cfda", size: 1,
            head: "none", ...SOLID, synthetic: true });
          changed = true;
        }
      }
    }
    if (changed) this.resize();
    return changed;
  }

  /**
   * Unresolved links as ghost nodes (when on): the API's graph view never holds ghosts (design: they show in
   * backlinks, never in traversal or the graph view), so the pane draws them from `ghosts`, the most linked refs
   * first, each linked from those of its sources that are drawn. The status says when the bound was reached.
   */
  private async syncGhosts(): Promise<void> {
    let ghosts: GhostsData["ghosts"] = [];
    if (this.options.ghosts) {
      const data = await attempt("Loading unresolved links", () =>
        this.api.request<GhostsData>(GHOSTS, { first: GHOST_LIMIT }));
      if (!data || !this.options.ghosts) return;
      ghosts = data.ghosts;
    }
    const want = new Map(ghosts.map((g) => [GHOST_PREFIX + g.ref, g]));
    for (const node of this.graph.filterNodes((n) => n.startsWith(GHOST_PREFIX))) {
      if (!want.has(node)) this.graph.dropNode(node);
    }
    for (const [key, ghost] of want) {
      const sources = ghost.sources.map((s) => s.id).filter((id) => this.graph.hasNode(id));
      if (!sources.length) continue;
      if (!this.graph.hasNode(key)) {
        const first = this.graph.getNodeAttributes(sources[0]);
        this.graph.addNode(key, { label: ghost.text, x: first.x - UNIT * 3, y: first.y + UNIT * 3, size: UNIT,
          color: GHOST_COLOR, typeKey: "ghost", degree: 0, synthetic: true, fixed: false });
      }
      for (const source of sources) {
        const edge = `${source}->${key}`;
        if (!this.graph.hasEdge(edge)) {
          this.graph.addDirectedEdgeWithKey(edge, source, key, { linkType: "WIKILINK", color: GHOST_COLOR, size: 1,
            head: "arrow", ...AGENT_DASH, synthetic: true });
        }
      }
    }
    this.resize();
    this.runLayout(1200);
    if (this.options.ghosts) {
      const cut = ghosts.length === GHOST_LIMIT ? ` (the ${GHOST_LIMIT} most linked; each with its first ten sources)` : "";
      this.updateStatus(`Unresolved links: ${want.size} ghost${want.size === 1 ? "" : "s"}${cut}`);
    }
    this.onViewChange();
  }

  private addEdge(id: string, type: string, from: string, to: string | null, origin?: string): boolean {
    if (!to || !this.graph.hasNode(from) || !this.graph.hasNode(to) || this.graph.hasEdge(id)) return false;
    const style = edgeStyle(type);
    // A link an agent made is dotted whatever its type, so agent writes stand out in the graph too.
    const byAgent = origin === "AGENT";
    const dashed = byAgent ? AGENT_DASH : style.gap > 0 ? { dash: 5, gap: style.gap } : SOLID;
    this.graph.addDirectedEdgeWithKey(id, from, to, {
      linkType: type, color: style.color, size: style.size, head: style.arrow ? "arrow" : "none", ...dashed,
      origin: origin ?? null,
    });
    return true;
  }

  /** Node size follows degree (self-links not counted), so hubs read as hubs; labels go to hubs first. */
  private resize(): void {
    // One batched update (one event for sigma), not one per node: this runs on every merge of a big graph.
    this.graph.updateEachNodeAttributes((node, attrs) => {
      let degree = 0;
      this.graph.forEachEdge(node, (_e, _a, s, t) => { if (s !== t) degree += 1; });
      return { ...attrs, degree, size: sizeFor(degree) };
    });
    this.importance = this.graph.nodes().sort((a, b) =>
      this.graph.getNodeAttribute(b, "degree") - this.graph.getNodeAttribute(a, "degree") || (a < b ? -1 : 1));
    this.drawFor(this.graph.order);
    this.recolour();
    this.empty.hidden = this.graph.order > 0;
  }

  /** Node colours by the chosen grouping, then the styles, status and legend. */
  private recolour(): void {
    const by = this.options.colourBy;
    const groups = groupColours(this.graph, (n) => groupOf(by, n, this.store.items.get(n)));
    this.graph.updateEachNodeAttributes((node, a) => {
      const item = this.store.items.get(node);
      const colour = a.synthetic ? (a.typeKey === "ghost" ? GHOST_COLOR : TAG_COLOR) : by === "type" || !item ? typeColor(a.typeKey)
        : groups.get(groupOf(by, node, item)) ?? typeColor(a.typeKey);
      return a.color === colour ? a : { ...a, color: colour };
    });
    this.restyle();
    this.renderLegend(groups);
  }

  /** ForceAtlas2 (in a web worker for large graphs) for `ms`, then no overlaps, then the positions are kept. */
  runLayout(ms: number, fresh = false): void {
    if (this.graph.order === 0) return;
    window.clearTimeout(this.layoutTimer);
    this.layout?.kill();
    this.layout = null;
    this.status.dataset.layout = "running";
    if (this.graph.order <= 300) {
      // Small graphs: synchronous iterations are instant and the same every time for the same start.
      forceLayout(this.graph, fresh ? 400 : 150);
      this.settled(true);
      return;
    }
    this.layout = new FA2Layout(this.graph, { settings: fa2Settings(this.graph) });
    this.layout.start();
    this.layoutTimer = window.setTimeout(() => {
      this.layout?.kill();
      this.layout = null;
      this.settled(true);
    }, ms);
  }

  /**
   * After a layout (`laidOut`: to the readable scale first) or restoring one: discs pushed apart (a restored layout
   * is already, so it stays exactly as it was), positions kept for this tenant, drawn.
   */
  private settled(laidOut = false): void {
    if (laidOut) normalize(this.graph);
    separate(this.graph, laidOut);
    this.remember();
    this.sigma?.refresh();
    this.status.dataset.layout = "done";
  }

  private remember(): void {
    this.memory.save(this.graph);
  }

  private onSelect(id: string | null): void {
    if (!id || !this.graph.hasNode(id)) {
      this.focus = null;
      this.restyle();
      return;
    }
    this.refocus();
  }

  /** Frame these nodes: the camera moves to their bounding box, zooming in no closer than a quarter. */
  private centerOn(ids: string[]): void {
    const s = this.sigma;
    if (!s || !ids.length) return;
    const points = ids.map((id) => s.getNodeDisplayData(id)).filter((d) => d !== undefined);
    if (!points.length) return;
    const xs = points.map((p) => p.x);
    const ys = points.map((p) => p.y);
    const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const camera = s.getCamera();
    const span = Math.max(x1 - x0, y1 - y0);
    // One node alone: pan to it and keep the zoom; a neighbourhood: frame it, no closer than a third.
    const ratio = span === 0 ? camera.ratio : Math.min(1.2, Math.max(0.33, span * 1.35));
    void camera.animate({ x: (x0 + x1) / 2, y: (y0 + y1) / 2, ratio }, { duration: 400 });
  }

  /** After the graph changed around the selection: keep the selected node and its neighbours framed. */
  private refocus(): void {
    const id = this.store.selectedId;
    if (!id || !this.graph.hasNode(id) || this.pathNodes) return;
    this.focus = new Set([id, ...this.graph.neighbors(id)]);
    this.restyle();
    this.centerOn([...this.focus]);
  }

  private setHover(node: string | null): void {
    if (this.hover === node) return;
    this.hover = node && this.graph.hasNode(node) ? node : null;
    this.restyle();
  }

  private refreshNode(id: string): void {
    const item = this.store.items.get(id);
    if (!item || !this.graph.hasNode(id)) return;
    this.graph.mergeNodeAttributes(id, { label: label(item.title), typeKey: typeKey(item) });
    this.recolour();
  }

  /** Highlight a path (a graph-mode hit's, or a shortest path); missing endpoints' links are added first. */
  private showPath(path: { hitId: string; steps: PathStep[]; label?: string } | null): void {
    if (!path) {
      this.pathNodes = this.pathEdges = null;
      this.note = null;
      this.restyle();
      return;
    }
    const nodes = new Set<string>([path.hitId]);
    const edges = new Set<string>();
    for (const step of path.steps) {
      nodes.add(step.fromId).add(step.toId);
      let key = step.linkId && this.graph.hasEdge(step.linkId) ? step.linkId : null;
      if (!key && this.graph.hasNode(step.fromId) && this.graph.hasNode(step.toId)) {
        key = this.graph.edges(step.fromId, step.toId)[0] ?? this.graph.edges(step.toId, step.fromId)[0] ?? null;
        if (!key && step.linkId) {
          this.addEdge(step.linkId, step.type ?? "RELATED", step.fromId, step.toId);
          key = step.linkId;
        }
      }
      if (key) edges.add(key);
    }
    this.pathNodes = nodes;
    this.pathEdges = edges;
    this.restyle();
    this.centerOn([...nodes].filter((n) => this.graph.hasNode(n)));
    const what = path.label ?? "Path of a graph hit";
    this.updateStatus(`${what}: ${edges.size} link${edges.size === 1 ? "" : "s"} highlighted (click the background to clear)`);
  }

  /**
   * Which nodes are drawn: those the filters keep, less attachments and tags unless shown, less orphans (no link to
   * another drawn node) unless shown; the selected node and a path's nodes always.
   */
  private computeShown(): Set<string> {
    const o = this.options;
    const always = new Set<string>([...(this.pathNodes ?? []), ...(this.store.selectedId ? [this.store.selectedId] : [])]);
    const base = new Set<string>();
    this.graph.forEachNode((key, a) => {
      if (a.synthetic) {
        if (a.typeKey === "ghost" ? o.ghosts : o.tags) base.add(key);
        return;
      }
      const item = this.store.items.get(key);
      if (item && !this.store.matches(item)) return;
      if (!o.attachments && item && isAttachment(item) && !always.has(key)) return;
      base.add(key);
    });
    if (o.orphans || this.local) return base;
    const shown = new Set<string>();
    for (const key of base) {
      if (always.has(key) || this.graph.someNeighbor(key, (n) => n !== key && base.has(n))) shown.add(key);
    }
    return shown;
  }

  /** Labels: the selected node, the one under the pointer or the keyboard, what is lit, then hubs first. */
  private labelOrder(): string[] {
    const first = [this.store.selectedId, this.keyboardNode, this.hover].filter((n): n is string => !!n && this.graph.hasNode(n));
    if (this.labels) this.labels.forced = [...new Set(first)];
    const lit = this.pathNodes ?? this.hoverSet() ?? this.focus;
    if (!lit) return this.importance;
    return [...this.importance.filter((n) => lit.has(n)), ...this.importance.filter((n) => !lit.has(n))];
  }

  private hoverSet(): Set<string> | null {
    return this.hover && this.graph.hasNode(this.hover) ? new Set([this.hover, ...this.graph.neighbors(this.hover)]) : null;
  }

  /**
   * Give sigma each item's state (hidden, faded, lit, selected, on the path) from the options, filters, selection,
   * hover, focus and path; sigma re-evaluates only those whose state changed. The display data is updated before
   * this returns, as the browser tests and the test hook read it right after.
   */
  private restyle(): void {
    this.visibleNodes = this.computeShown();
    const s = this.sigma;
    if (!s) {
      this.updateStatus();
      return;
    }
    const selected = this.store.selectedId;
    const hovered = this.hoverSet();
    const highlight = this.pathNodes ?? hovered ?? this.focus;
    const centre = this.pathNodes ? null : hovered ? this.hover : this.focus ? selected : null;
    // Items whose state changes go to sigma grouped by their new state: one call per distinct state, not per item.
    const group = <T extends object>(groups: Map<string, { state: T; keys: string[] }>, key: string, state: T, current: object): void => {
      if (Object.entries(state).every(([k, v]) => (current as Record<string, unknown>)[k] === v)) return;
      const id = JSON.stringify(state);
      const g = groups.get(id);
      if (g) g.keys.push(key);
      else groups.set(id, { state, keys: [key] });
    };
    const nodeGroups = new Map<string, { state: Partial<NodeState> & { isHidden: boolean; isHighlighted: boolean }; keys: string[] }>();
    this.graph.forEachNode((key) => {
      const lit = highlight?.has(key) ?? false;
      group(nodeGroups, key, {
        isHidden: !this.visibleNodes.has(key), isFaded: !!highlight && !lit, isLit: lit,
        isSelected: key === selected, isHighlighted: key === selected,
      }, s.getNodeState(key));
    });
    const edgeGroups = new Map<string, { state: Partial<EdgeState> & { isHidden: boolean }; keys: string[] }>();
    this.graph.forEachEdge((key, _a, source, target) => {
      const onPath = this.pathEdges?.has(key) ?? false;
      const touches = centre !== null && (source === centre || target === centre);
      const faded = this.pathEdges ? !onPath : !!highlight && !touches;
      group(edgeGroups, key, {
        // Self-links are never drawn: a loop says nothing a reader needs and hides the node under it.
        isHidden: source === target || !this.visibleNodes.has(source) || !this.visibleNodes.has(target), isFaded: faded,
        isOnPath: onPath, isFocusLink: !this.pathEdges && touches,
      }, s.getEdgeState(key));
    });
    this.updateStatus();
    if (!nodeGroups.size && !edgeGroups.size) return;
    for (const { state, keys } of nodeGroups.values()) s.setNodesState(keys, state);
    for (const { state, keys } of edgeGroups.values()) s.setEdgesState(keys, state);
    // Apply now rather than at the next frame (sigma's render applies pending state changes first); items sigma has
    // not indexed yet (just added) cannot be repainted alone, so then the whole graph is processed.
    if (this.unindexed) s.refresh();
    else s.refresh({ partialGraph: { nodes: [], edges: [] }, skipIndexation: true });
    this.unindexed = false;
  }

  /** What is drawn, counted after the filters and options, and what is left out; `extra` replaces the note. */
  private updateStatus(extra?: string | null): void {
    if (extra !== undefined) this.note = extra;
    let links = 0;
    this.graph.forEachEdge((_e, _a, source, target) => {
      if (source !== target && this.visibleNodes.has(source) && this.visibleNodes.has(target)) links += 1;
    });
    const n = this.visibleNodes.size;
    const left = this.graph.order - n;
    const base = this.graph.order
      ? `${n.toLocaleString("en-US")} node${n === 1 ? "" : "s"} · ${links.toLocaleString("en-US")} link${links === 1 ? "" : "s"}`
        + (left ? ` (${left.toLocaleString("en-US")} not shown)` : "")
      : "";
    const cut = this.truncated ? ` · newest ${GRAPH_LIMIT.toLocaleString("en-US")} shown (expand a node for more)` : "";
    const where = this.local ? `Local graph, depth ${this.local.depth} · ` : "";
    this.status.dataset.nodes = String(n);
    this.status.dataset.links = String(links);
    this.status.textContent = this.note ? `${where}${base}${cut} — ${this.note}` : `${where}${base}${cut}`;
  }

  private renderLegend(groups: Map<string, string>): void {
    renderLegend(this.legend, this.graph, this.large ? this.largeGraphNodes : null,
      this.options.colourBy === "type" ? null : groups);
  }
}
