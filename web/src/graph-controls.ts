// The graph pane's controls: what it shows (attachments, orphans, tags as nodes, colour groups), the local graph
// of the selected item (depth 1-5, direction, link types), the shortest path between two chosen items, and a
// node's context menu (expand by link type, local graph, path, unpin). All go through GraphPane and the API.

import type { Api } from "./api";
import { byId, fill, h } from "./dom";
import type { GraphPane, LocalView, ViewOptions } from "./graph";
import type { ColourBy } from "./graph-style";
import { edgeStyle } from "./palette";
import { LINK_TYPES, SHORTEST_PATH } from "./queries";
import type { Item, Store } from "./store";
import { attempt, toastWarning } from "./toast";

const ALL_TYPES = ["WIKILINK", ...LINK_TYPES];

interface PathData {
  shortestPath: null | {
    length: number;
    nodes: Item[];
    links: { id: string; type: string; origin: string; from: { id: string }; to: { id: string } | null }[];
  };
}

export class GraphControls {
  private pathFrom: string | null = null;
  private readonly host = h("div", { class: "graph-options", attrs: { role: "group", "aria-label": "Graph view" } });
  private readonly localBar = h("div", { class: "graph-local-bar", hidden: true, attrs: { id: "graph-local-bar", role: "group", "aria-label": "Local graph" } });
  private readonly menu = h("div", { class: "graph-menu", hidden: true, attrs: { id: "graph-menu", role: "menu" } });

  constructor(private readonly api: Api, private readonly store: Store, private readonly pane: GraphPane) {
    const graphPane = byId("graph-pane");
    graphPane.append(this.host, this.localBar, this.menu);
    this.renderOptions();
    this.renderLocalBar();
    pane.onViewChange = () => this.renderLocalBar();
    store.on("select", () => this.renderButtons());
    pane.sigmaEvents = (sigma) => {
      sigma.on("rightClickNode", ({ node, event }) => this.openMenu(node, event.x, event.y));
      sigma.on("clickStage", () => this.closeMenu());
    };
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !this.menu.hidden) {
        this.closeMenu();
        e.stopPropagation();
      }
    }, { capture: true });
  }

  private renderOptions(): void {
    const o = this.pane.options;
    const toggle = (key: keyof Omit<ViewOptions, "colourBy">, text: string): HTMLElement => {
      const input = h("input", { attrs: { type: "checkbox", id: `graph-show-${key}`, checked: o[key] } });
      input.addEventListener("change", () => this.pane.setOptions({ [key]: input.checked }));
      return h("label", { class: "graph-option" }, input, text);
    };
    const colour = h("select", { attrs: { id: "graph-colour-by", "aria-label": "Colour nodes by" } },
      ...(["type", "folder", "tag"] as ColourBy[]).map((v) => h("option", { text: v, attrs: { value: v, selected: v === o.colourBy } })));
    colour.addEventListener("change", () => this.pane.setOptions({ colourBy: colour.value as ColourBy }));
    const details = h("details", { class: "graph-view-menu" },
      h("summary", { text: "View" }),
      toggle("attachments", "Attachments"), toggle("orphans", "Orphans (no links)"), toggle("tags", "Tags as nodes"),
      toggle("ghosts", "Unresolved links"),
      h("label", { class: "graph-option" }, "Colour by ", colour));
    const local = h("button", { class: "btn", text: "Local graph", attrs: { type: "button", id: "graph-local-open",
      title: "The selected item's neighbourhood alone" } });
    local.addEventListener("click", () => {
      if (this.store.selectedId) void this.openLocal(this.store.selectedId);
    });
    const from = h("button", { class: "btn", text: "Path from here", attrs: { type: "button", id: "graph-path-from",
      title: "Start a shortest path at the selected item" } });
    from.addEventListener("click", () => this.setPathFrom(this.store.selectedId));
    const to = h("button", { class: "btn", text: "Path to here", attrs: { type: "button", id: "graph-path-to",
      title: "The shortest path from the chosen start to the selected item" } });
    to.addEventListener("click", () => {
      if (this.pathFrom && this.store.selectedId) void this.findPath(this.pathFrom, this.store.selectedId);
    });
    fill(this.host, details, local, from, to);
    this.renderButtons();
  }

  private renderButtons(): void {
    const selected = this.store.selectedId;
    (byId("graph-local-open") as HTMLButtonElement).disabled = !selected;
    (byId("graph-path-from") as HTMLButtonElement).disabled = !selected;
    const to = byId("graph-path-to") as HTMLButtonElement;
    to.disabled = !selected || !this.pathFrom || selected === this.pathFrom;
    const start = this.pathFrom ? this.store.items.get(this.pathFrom)?.title : null;
    to.title = start ? `The shortest path from “${start}” to the selected item` : "Choose a start with “Path from here” first";
  }

  setPathFrom(id: string | null): void {
    this.pathFrom = id;
    byId("graph-path-from").dataset.from = id ?? "";
    this.renderButtons();
  }

  /** The shortest path through the API (one query), drawn like a search hit's path; its items join the graph. */
  async findPath(from: string, to: string): Promise<boolean> {
    const view = this.pane.local;
    const data = await attempt("Finding the shortest path", () => this.api.request<PathData>(SHORTEST_PATH, {
      from, to, direction: view?.direction ?? "BOTH", linkTypes: view?.linkTypes.length ? view.linkTypes : null,
    }));
    if (!data) return false;
    const path = data.shortestPath;
    if (!path) {
      toastWarning("No path of at most 5 links joins these two items.");
      return false;
    }
    this.pane.merge(path.nodes, path.links);
    this.store.emit("path", {
      hitId: to, label: `Shortest path, ${path.length} link${path.length === 1 ? "" : "s"}`,
      steps: path.links.map((l) => ({ linkId: l.id, type: l.type, fromId: l.from.id, toId: l.to?.id ?? l.from.id })),
    });
    return true;
  }

  async openLocal(center: string, patch: Partial<LocalView> = {}): Promise<void> {
    const current = this.pane.local;
    await this.pane.showLocal({ center, depth: current?.depth ?? 1, direction: current?.direction ?? "BOTH",
      linkTypes: current?.linkTypes ?? [], ...patch });
  }

  private renderLocalBar(): void {
    const view = this.pane.local;
    this.localBar.hidden = !view;
    byId("graph-local-open").hidden = !!view;
    if (!view) {
      fill(this.localBar);
      return;
    }
    const title = this.store.items.get(view.center)?.title ?? "this item";
    const depth = h("input", { attrs: { type: "range", min: 1, max: 5, step: 1, value: view.depth, id: "graph-local-depth",
      "aria-label": "Depth (links from the item)" } });
    const shown = h("output", { text: String(view.depth), attrs: { for: "graph-local-depth" } });
    depth.addEventListener("input", () => { shown.textContent = depth.value; });
    depth.addEventListener("change", () => void this.openLocal(view.center, { depth: Number(depth.value) }));
    const direction = h("select", { attrs: { id: "graph-local-direction", "aria-label": "Direction" } },
      ...[["BOTH", "both ways"], ["OUT", "outgoing"], ["IN", "incoming"]].map(([v, t]) =>
        h("option", { text: t, attrs: { value: v, selected: v === view.direction } })));
    direction.addEventListener("change", () =>
      void this.openLocal(view.center, { direction: direction.value as LocalView["direction"] }));
    const types = h("details", { class: "graph-local-types" }, h("summary", {
      text: view.linkTypes.length ? `${view.linkTypes.length} link type${view.linkTypes.length === 1 ? "" : "s"}` : "All link types" }),
    ...ALL_TYPES.map((t) => {
      const box = h("input", { attrs: { type: "checkbox", value: t, checked: view.linkTypes.includes(t), "data-link-type": t } });
      box.addEventListener("change", () => {
        const next = box.checked ? [...view.linkTypes, t] : view.linkTypes.filter((x) => x !== t);
        void this.openLocal(view.center, { linkTypes: next });
      });
      return h("label", { class: "graph-option" }, box, edgeStyle(t).label);
    }));
    const close = h("button", { class: "btn", text: "Whole graph", attrs: { type: "button", id: "graph-local-close" } });
    close.addEventListener("click", () => void this.pane.showGlobal());
    fill(this.localBar, h("strong", { text: `Local graph of “${title}”` }),
      h("label", { class: "graph-option" }, "Depth ", depth, shown), direction, types, close);
  }

  /** A node's menu: expand by one link type (or all), its local graph, a path from or to it, unpin. Every link type
   * is offered, those drawn at the node first: a local or cut view draws only some of the node's links, and the
   * ones it lacks are what expanding is for. */
  private openMenu(node: string, x: number, y: number): void {
    if (this.pane.derived(node)) return; // a tag or ghost node has no links of its own to expand
    const graph = this.pane.graph;
    const drawn = new Set(graph.edges(node).map((e) => graph.getEdgeAttribute(e, "linkType")));
    const types = [...ALL_TYPES.filter((t) => drawn.has(t)), ...ALL_TYPES.filter((t) => !drawn.has(t))];
    const item = (text: string, run: () => void, data: Record<string, string> = {}): HTMLElement => {
      const b = h("button", { class: "graph-menu-item", text, data, attrs: { type: "button", role: "menuitem" } });
      b.addEventListener("click", () => {
        this.closeMenu();
        run();
      });
      return b;
    };
    const entries = [
      item("Expand all links", () => void this.pane.expand(node), { expand: "all" }),
      ...types.map((t) =>
        item(`Expand ${edgeStyle(t).label} links`, () => void this.pane.expand(node, [t]), { expand: t })),
      item("Local graph", () => void this.openLocal(node), { action: "local" }),
      item("Path from here", () => this.setPathFrom(node), { action: "path-from" }),
      this.pathFrom && this.pathFrom !== node
        ? item("Path to here", () => void this.findPath(this.pathFrom ?? node, node), { action: "path-to" }) : null,
      graph.getNodeAttribute(node, "fixed") ? item("Unpin", () => this.pane.unpin(node), { action: "unpin" }) : null,
    ];
    fill(this.menu, h("div", { class: "graph-menu-title", text: graph.getNodeAttribute(node, "label") }), entries);
    this.menu.style.left = `${Math.round(x)}px`;
    this.menu.style.top = `${Math.round(y)}px`;
    this.menu.dataset.node = node;
    this.menu.hidden = false;
    // Inside the pane: opened near its bottom or right edge, the menu moves up or left by what would stick out.
    const pane = this.menu.parentElement;
    if (pane) {
      this.menu.style.top = `${Math.max(0, Math.min(Math.round(y), pane.clientHeight - this.menu.offsetHeight - 4))}px`;
      this.menu.style.left = `${Math.max(0, Math.min(Math.round(x), pane.clientWidth - this.menu.offsetWidth - 4))}px`;
    }
    this.menu.querySelector<HTMLButtonElement>("button")?.focus();
  }

  private closeMenu(): void {
    this.menu.hidden = true;
  }
}
