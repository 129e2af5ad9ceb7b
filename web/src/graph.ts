// The graph pane: sigma (WebGL) over a graphology graph, laid out by ForceAtlas2 in a web worker. Nodes are
// coloured by type, edges styled by link type; ghosts are never drawn (the API's graph view has none, and links
// whose `to` is null are skipped here). Click focuses a node, double-click expands its neighbourhood by one hop,
// and a graph-mode search hit's path is highlighted.

import Graph from "graphology";
import forceAtlas2 from "graphology-layout-forceatlas2";
import FA2Layout from "graphology-layout-forceatlas2/worker";
import type { Attributes } from "graphology-types";
import Sigma, { DEFAULT_STYLES } from "sigma";

import type { Api } from "./api";
import { byId, fill, h } from "./dom";
import {
  type EdgeAttrs, EDGE_STATE, EDGE_STATE_STYLES, type EdgeState, LARGE_PRIMITIVES, type NodeAttrs, NODE_STATE,
  NODE_STATE_STYLES, type NodeState, PRIMITIVES, type Primitives, type Renderer, SOLID, AGENT_DASH, label, renderLegend,
} from "./graph-style";
import { edgeStyle, typeColor } from "./palette";
import { GRAPH_VIEW } from "./queries";
import { type Item, type Link, type PathStep, type Store, typeKey } from "./store";
import { attempt } from "./toast";

interface GraphViewData {
  graph: {
    truncated: boolean;
    nodes: Item[];
    edges: { id: string; type: string; origin: string; confidence: number | null; from: { id: string }; to: { id: string } | null }[];
  };
}

export const GRAPH_LIMIT = 2000; // the server's cap on one graph view

export class GraphPane {
  readonly graph = new Graph<NodeAttrs, EdgeAttrs>({ multi: true, type: "directed", allowSelfLoops: true });
  sigma: Renderer | null = null;
  /**
   * Above this many nodes the pane draws for speed: links as plain lines (LARGE_PRIMITIVES: no arrow heads, no
   * dashes), and edges and labels hidden while the camera moves (sigma's hideEdgesOnMove/hideLabelsOnMove). Below
   * it, every link shows its type's style. bench/explorer_frames.mjs moves it to compare both drawings.
   */
  largeGraphNodes = 1500;
  /**
   * Measurement only (bench/explorer_frames.mjs, variant `reducers`): also give sigma pass-through reducers, as the
   * pane did before its highlighting moved to item states; sigma then re-evaluates every item on each graph-state
   * change. Read when the renderer is created.
   */
  passThroughReducers = false;
  private large = false;
  private layout: FA2Layout<NodeAttrs, EdgeAttrs> | null = null;
  private layoutTimer = 0;
  private focus: Set<string> | null = null;
  private pathNodes: Set<string> | null = null;
  private pathEdges: Set<string> | null = null;
  private truncated = false;
  private readonly container = byId("graph-canvas");
  private readonly status = byId("graph-status");
  private readonly legend = byId("graph-legend");
  private readonly empty = byId("graph-empty");

  constructor(private readonly api: Api, private readonly store: Store) {
    store.on("select", (id) => this.onSelect(id));
    store.on("filters", () => this.restyle());
    store.on("item", (id) => this.refreshNode(id));
    store.on("path", (path) => this.showPath(path));
    this.bindToolbar();
  }

  /** Create the renderer. Fails with a readable message when the browser has no WebGL2. */
  mount(): void {
    this.create(this.graph.order > this.largeGraphNodes);
  }

  /**
   * (Re)create the renderer for a small or a large graph: sigma compiles its edge program from the primitives it is
   * created with, so switching to plain lines means a new renderer (the camera is kept).
   */
  private create(large: boolean): void {
    const camera = this.sigma?.getCamera().getState();
    this.sigma?.kill();
    this.sigma = null;
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
          labelDensity: 0.6,
          labelRenderedSizeThreshold: 3,
          // Edges are most of what a frame rasterizes: hidden while a large graph moves, a drag of 5,000 nodes
          // redrew every 2.4 s instead of every 9.1 s in software WebGL (bench/README.md).
          hideEdgesOnMove: large,
          hideLabelsOnMove: large,
          zoomDuration: 200,
          minCameraRatio: 0.05,
          maxCameraRatio: 8,
          stagePadding: 60,
          itemSizesReference: "screen", // node sizes in pixels, whatever the layout's coordinate range
          allowInvalidContainer: true, // the pane is hidden while the note editor shows; it resizes on return
        },
      });
    } catch (err) {
      fill(this.empty, h("p", { text: `The graph cannot be drawn here: ${(err as Error).message}` }));
      this.empty.hidden = false;
      return;
    }
    const s = this.sigma;
    s.on("clickNode", ({ node }) => this.store.select(node));
    s.on("doubleClickNode", (e) => {
      e.preventSigmaDefault();
      void this.expand(e.node);
    });
    s.on("clickStage", () => {
      if (this.pathNodes) this.store.emit("path", null);
    });
    s.on("enterNode", () => this.container.classList.add("hovering"));
    s.on("leaveNode", () => this.container.classList.remove("hovering"));
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
    byId("graph-relayout").addEventListener("click", () => this.runLayout(2500));
    byId("graph-reload").addEventListener("click", () => void this.load());
    this.container.addEventListener("keydown", (e) => this.onKey(e));
  }

  /** Keyboard on the focused canvas: arrows pan, +/- zoom, 0 fits. */
  private onKey(e: KeyboardEvent): void {
    const camera = this.sigma?.getCamera();
    if (!camera) return;
    const step = 0.1 * camera.ratio;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step], ArrowDown: [0, -step],
    };
    if (moves[e.key]) {
      const [dx, dy] = moves[e.key];
      void camera.animate({ x: camera.x + dx, y: camera.y + dy }, { duration: 120 });
    } else if (e.key === "+" || e.key === "=") void camera.zoomIn({ duration: 150 });
    else if (e.key === "-") void camera.zoomOut({ duration: 150 });
    else if (e.key === "0") this.fit();
    else return;
    e.preventDefault();
  }

  /** The whole graph in view; a handful of nodes is shown from further away, so they do not sit on the edges. */
  fit(animate = true): void {
    const camera = this.sigma?.getCamera();
    if (!camera) return;
    const state = { x: 0.5, y: 0.5, angle: 0, ratio: this.graph.order <= 12 ? 1.5 : 1 };
    if (animate) void camera.animate(state, { duration: 300 });
    else camera.setState(state);
  }

  /** The whole tenant's graph (newest items first, up to the server's cap). */
  async load(): Promise<void> {
    const data = await attempt("Loading the graph", () =>
      this.api.request<GraphViewData>(GRAPH_VIEW, { center: null, hops: 1, limit: GRAPH_LIMIT }));
    if (!data) return;
    this.graph.clear();
    this.truncated = data.graph.truncated;
    this.merge(data.graph.nodes, data.graph.edges);
    this.runLayout(this.graph.order > 800 ? 4000 : 2500, true);
    this.fit(false);
  }

  /** Fetch one node's one-hop neighbourhood and add what is new, placed around it. */
  async expand(id: string): Promise<number> {
    const data = await attempt("Expanding the neighbourhood", () =>
      this.api.request<GraphViewData>(GRAPH_VIEW, { center: id, hops: 1, limit: 500 }));
    if (!data) return 0;
    const before = this.graph.order;
    this.merge(data.graph.nodes, data.graph.edges, id);
    const added = this.graph.order - before;
    this.status.dataset.expanded = id;
    if (added > 0) {
      this.runLayout(1200);
      this.refocus();
    }
    this.updateStatus(added > 0 ? `+${added} from the neighbourhood` : "No new neighbours");
    return added;
  }

  /**
   * Add items and resolved edges; new nodes start around `near` (or at random) so the layout settles fast.
   * `remember: false` draws them without adding them to the list (bench/explorer_frames.mjs draws synthetic graphs).
   */
  merge(items: Item[], edges: GraphViewData["graph"]["edges"], near?: string, remember = true): void {
    // Switch the drawing before adding: a renderer made afterwards processes the whole graph once, not twice.
    const fresh = new Set(items.map((i) => i.id).filter((id) => !this.graph.hasNode(id)));
    this.drawFor(this.graph.order + fresh.size);
    const origin = near && this.graph.hasNode(near) ? this.graph.getNodeAttributes(near) : null;
    for (const item of items) {
      if (remember) this.store.upsert([item], true);
      if (this.graph.hasNode(item.id)) {
        this.graph.mergeNodeAttributes(item.id, { label: label(item.title), typeKey: typeKey(item), color: typeColor(typeKey(item)) });
        continue;
      }
      const angle = Math.random() * 2 * Math.PI;
      const radius = origin ? 1 + Math.random() * 3 : 10 + Math.random() * 90;
      this.graph.addNode(item.id, {
        label: label(item.title),
        x: (origin?.x ?? 0) + Math.cos(angle) * radius,
        y: (origin?.y ?? 0) + Math.sin(angle) * radius,
        size: 5,
        color: typeColor(typeKey(item)),
        typeKey: typeKey(item),
        degree: 0,
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
      this.updateStatus();
    }
  }

  /** Items created in this session (a saved note, a capture) join the graph without a reload. */
  addItems(items: Item[]): void {
    const fresh = items.filter((i) => !this.graph.hasNode(i.id));
    this.merge(items, []);
    if (fresh.length) this.runLayout(800);
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

  /** Node size follows degree, so hubs read as hubs. */
  private resize(): void {
    // One batched update (one event for sigma), not one per node: this runs on every merge of a big graph.
    this.graph.updateEachNodeAttributes((node, attrs) => {
      const degree = this.graph.degree(node);
      return { ...attrs, degree, size: 6 + Math.min(14, Math.sqrt(degree) * 2.5) };
    });
    this.drawFor(this.graph.order);
    this.restyle();
    this.updateStatus();
    this.renderLegend();
    this.empty.hidden = this.graph.order > 0;
  }

  /** ForceAtlas2 in a web worker for `ms`, so a big graph settles without freezing the page. */
  runLayout(ms: number, fresh = false): void {
    if (this.graph.order === 0) return;
    window.clearTimeout(this.layoutTimer);
    this.layout?.kill();
    if (this.graph.order <= 300) {
      // Small graphs: synchronous iterations are instant and deterministic enough to read.
      forceAtlas2.assign(this.graph, { iterations: fresh ? 300 : 120, settings: { ...forceAtlas2.inferSettings(this.graph), gravity: 3, scalingRatio: 6 } });
      this.sigma?.refresh();
      return;
    }
    const settings = { ...forceAtlas2.inferSettings(this.graph), barnesHutOptimize: this.graph.order > 500, slowDown: 3 };
    this.layout = new FA2Layout(this.graph, { settings });
    this.layout.start();
    this.status.dataset.layout = "running";
    this.layoutTimer = window.setTimeout(() => {
      this.layout?.stop();
      this.status.dataset.layout = "done";
    }, ms);
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

  private refreshNode(id: string): void {
    const item = this.store.items.get(id);
    if (!item || !this.graph.hasNode(id)) return;
    this.graph.mergeNodeAttributes(id, { label: label(item.title), typeKey: typeKey(item), color: typeColor(typeKey(item)) });
    this.restyle([id], this.graph.edges(id));
  }

  /** Highlight the links a graph-mode hit came by; missing endpoints are added first. */
  private showPath(path: { hitId: string; steps: PathStep[] } | null): void {
    if (!path) {
      this.pathNodes = this.pathEdges = null;
      this.restyle();
      this.updateStatus();
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
    this.updateStatus(`Path of a graph hit: ${edges.size} link${edges.size === 1 ? "" : "s"} highlighted (click the background to clear)`);
  }

  private visible(key: string): boolean {
    const item = this.store.items.get(key);
    return !item || this.store.matches(item);
  }

  /**
   * Give sigma each item's state (filtered out, faded, lit, selected, on the path) from the selection, focus, path
   * and filters, for these items (all when none are given); sigma re-evaluates only those whose state changed. The
   * display data is updated before this returns, as the browser tests and the test hook read it right after.
   */
  private restyle(nodes?: Iterable<string>, edges?: Iterable<string>): void {
    const s = this.sigma;
    if (!s) return;
    const selected = this.store.selectedId;
    const highlight = this.pathNodes ?? this.focus;
    // Items whose state changes go to sigma grouped by their new state: one call per distinct state, not per item.
    const nodeGroups = new Map<string, { state: Partial<NodeState> & { isHidden: boolean; isHighlighted: boolean }; keys: string[] }>();
    const group = <T extends object>(groups: Map<string, { state: T; keys: string[] }>, key: string, state: T, current: object): void => {
      const entries = Object.entries(state);
      if (entries.every(([k, v]) => (current as Record<string, unknown>)[k] === v)) return;
      const id = JSON.stringify(state);
      const g = groups.get(id);
      if (g) g.keys.push(key);
      else groups.set(id, { state, keys: [key] });
    };
    const hidden = new Map<string, boolean>();
    const isHidden = (key: string): boolean => {
      let h = hidden.get(key);
      if (h === undefined) hidden.set(key, (h = !this.visible(key)));
      return h;
    };
    for (const key of nodes ?? this.graph.nodes()) {
      if (!this.graph.hasNode(key)) continue;
      const lit = highlight?.has(key) ?? false;
      group(nodeGroups, key, {
        isHidden: isHidden(key), isFaded: !!highlight && !lit, isLit: lit,
        isSelected: key === selected, isHighlighted: key === selected,
      }, s.getNodeState(key));
    }
    const edgeGroups = new Map<string, { state: Partial<EdgeState> & { isHidden: boolean }; keys: string[] }>();
    for (const key of edges ?? this.graph.edges()) {
      if (!this.graph.hasEdge(key)) continue;
      const [source, target] = this.graph.extremities(key);
      const onPath = this.pathEdges?.has(key) ?? false;
      const touches = source === selected || target === selected;
      const faded = this.pathEdges ? !onPath : !!this.focus && !touches;
      group(edgeGroups, key, {
        isHidden: isHidden(source) || isHidden(target), isFaded: faded, isOnPath: onPath,
        isFocusLink: !this.pathEdges && !!this.focus && touches,
      }, s.getEdgeState(key));
    }
    if (!nodeGroups.size && !edgeGroups.size) return;
    for (const { state, keys } of nodeGroups.values()) s.setNodesState(keys, state);
    for (const { state, keys } of edgeGroups.values()) s.setEdgesState(keys, state);
    // Apply now rather than at the next frame (sigma's render applies pending state changes first).
    s.refresh({ partialGraph: { nodes: [], edges: [] }, skipIndexation: true });
  }

  private updateStatus(extra?: string): void {
    const n = this.graph.order;
    const m = this.graph.size;
    const base = n ? `${n.toLocaleString()} node${n === 1 ? "" : "s"} · ${m.toLocaleString()} link${m === 1 ? "" : "s"}` : "";
    const cut = this.truncated ? ` · newest ${GRAPH_LIMIT.toLocaleString()} shown (expand a node for more)` : "";
    this.status.textContent = extra ? `${base}${cut} — ${extra}` : `${base}${cut}`;
  }

  private renderLegend(): void {
    renderLegend(this.legend, this.graph, this.large ? this.largeGraphNodes : null);
  }
}
