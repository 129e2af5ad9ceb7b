// Composition root of the explorer: read the schema's capabilities, build the panes, wire them through the store.

import "./styles.css";

import { Api, ApiError, storeKey, storedKey } from "./api";
import { CaptureBox } from "./capture";
import { Capabilities } from "./capabilities";
import { DetailPanel } from "./detail";
import { byId, fill, h } from "./dom";
import { NoteEditor } from "./editor";
import { FolderPane } from "./folders";
import { GraphPane } from "./graph";
import { GraphControls } from "./graph-controls";
import { ListPane } from "./list";
import { ProgressBar } from "./progress";
import { SearchBar } from "./search";
import { Store } from "./store";
import { TagPane } from "./tags";
import { TenantSwitcher } from "./tenants";
import { toastWarning } from "./toast";
import { UploadDialog } from "./upload";
import { ImportDialog } from "./vault-import";

type View = "graph" | "editor";

declare global {
  interface Window {
    /** Test and debugging hook: the live objects behind the page. */
    __vaultgraph?: Record<string, unknown>;
  }
}

let onGraphShown = () => {};

function setView(view: View): void {
  byId("graph-pane").hidden = view !== "graph";
  byId("editor-pane").hidden = view !== "editor";
  for (const tab of document.querySelectorAll<HTMLButtonElement>("button[data-view]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.view === view));
  }
  document.body.dataset.view = view;
  if (view === "graph") onGraphShown();
}

/** The API did not answer the first question: say why, and ask for a key when that is the reason. */
function showBootError(err: unknown): void {
  const host = byId("list-empty");
  const unauthenticated = err instanceof ApiError && err.code === "UNAUTHENTICATED";
  if (unauthenticated) {
    const input = h("input", { attrs: { type: "password", placeholder: "vg_…", "aria-label": "API key", id: "api-key", autocomplete: "off" } });
    const form = h("form", { class: "key-form" }, input, h("button", { class: "btn btn-primary", text: "Use this key", attrs: { type: "submit" } }));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      storeKey(input.value.trim() || null);
      location.reload();
    });
    fill(host, h("h3", { text: "This server needs an API key" }),
      h("p", { text: `${err.message} — create one with \`vaultgraph keys create --tenant … --all-scopes\`; it is kept in this browser.` }),
      form);
  } else {
    fill(host, h("h3", { text: "The API does not answer" }), h("p", { text: (err as Error).message }),
      h("button", { class: "btn btn-primary", text: "Try again", attrs: { type: "button" }, on: { click: () => location.reload() } }));
  }
  if (storedKey()) {
    host.append(h("p", null, h("button", { class: "link-button", text: "Forget the stored API key", attrs: { type: "button" },
      on: { click: () => { storeKey(null); location.reload(); } } })));
  }
  host.hidden = false;
  document.body.dataset.ready = "error";
}

async function boot(): Promise<void> {
  const api = new Api();
  const socketDot = byId("socket-state");
  api.onSocketState = (state) => {
    socketDot.dataset.state = state;
    socketDot.title = `Live updates: ${state}`;
  };

  api.onWarnings = (warnings) => warnings.forEach((w) => toastWarning(w.message, w.code));
  let caps: Capabilities;
  try {
    caps = await Capabilities.load(api);
  } catch (err) {
    showBootError(err);
    return;
  }

  const tenants = new TenantSwitcher(api, caps, byId("tenant-host")).mount();
  const store = new Store();
  const graph = new GraphPane(api, store);
  graph.mount();
  const graphControls = new GraphControls(api, store, graph);
  onGraphShown = () => graph.shown();
  const list = new ListPane(api, store);
  const search = new SearchBar(api, caps, store, list);
  const tags = new TagPane(api, store);
  new FolderPane(store);
  const editor = new NoteEditor(api, store, {
    saved: (note, created) => {
      graph.addItems([note]);
      void graph.expand(note.id);
      if (created) store.select(note.id);
      else detail.reload();
    },
    open: (id) => {
      setView("graph");
      store.select(id);
    },
  });
  const detail = new DetailPanel(api, caps, store, {
    linkCreated: (link) => graph.addLink(link),
    linkDeleted: (id) => graph.removeLink(id),
    expand: (id) => graph.expand(id),
    edit: (id) => {
      setView("editor");
      void editor.open(id);
    },
    editDocument: (id) => {
      setView("editor");
      void editor.openDocument(id);
    },
    create: (title) => {
      setView("editor");
      void editor.open(null, title);
    },
    tag: (tag) => store.setFilters({ tag }),
  });
  new CaptureBox(api, store, (note) => {
    graph.addItems([note]);
    void graph.expand(note.id); // the links the captured text made
    void editor.refreshIfOpen(note);
    if (store.selectedId === note.id) detail.reload();
  });
  const progress = new ProgressBar(api, caps, store);
  progress.onNewItems = (items) => graph.addItems(items);
  progress.onFinished = (id, stage) => {
    if (stage === "DONE" && graph.graph.hasNode(id)) void graph.expand(id);
  };
  new UploadDialog(api, caps, store, (items) => graph.addItems(items), () => {
    void list.load();
    void graph.load();
  });
  new ImportDialog(api, caps, () => {
    void list.load();
    void graph.load();
    void tags.load();
  });

  // Tabs and keyboard shortcuts.
  for (const tab of document.querySelectorAll<HTMLButtonElement>("button[data-view]")) {
    tab.addEventListener("click", () => setView(tab.dataset.view as View));
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>("[data-click]")) {
    button.addEventListener("click", () => byId(button.dataset.click ?? "").click());
  }
  byId("new-note").addEventListener("click", () => {
    setView("editor");
    void editor.open(null);
  });
  document.addEventListener("keydown", (e) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement;
    // Esc closes one layer: a dialog (the browser closes it), else the hover preview, else the detail panel.
    if (e.key === "Escape" && !e.defaultPrevented && !document.querySelector("dialog[open]")) {
      if (!detail.dismissPreview() && !typing && store.selectedId) store.select(null);
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "/") {
      e.preventDefault();
      byId("search-input").focus();
    } else if (e.key === "n") {
      e.preventDefault();
      setView("editor");
      void editor.open(null);
    } else if (e.key === "g") {
      setView("graph");
      byId("graph-canvas").focus();
    } else if (e.key === "c") {
      e.preventDefault();
      byId("capture-input").focus();
    }
  });

  // The selected item lives in the URL, so a reload or a shared link reopens it; each item opened is a step of the
  // browser's history, so Back and Forward walk the notes read (closing the panel is not a step).
  let fromHistory = false;
  const itemInUrl = () => {
    const m = /item=([^&]+)/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : null;
  };
  store.on("select", (id) => {
    if (fromHistory) return;
    const url = new URL(location.href);
    url.hash = id ? `item=${encodeURIComponent(id)}` : "";
    const shown = (history.state as { item?: string | null } | null)?.item ?? null;
    if (id && id !== shown) history.pushState({ item: id }, "", url);
    else history.replaceState({ item: id }, "", url);
  });
  window.addEventListener("popstate", () => {
    fromHistory = true;
    try {
      store.select(itemInUrl());
    } finally {
      fromHistory = false;
    }
  });

  window.__vaultgraph = { api, caps, store, graphPane: graph, graphControls, list, search, detail, editor, progress,
    get graph() { return graph.graph; }, get sigma() { return graph.sigma; } };

  setView("graph");
  await Promise.all([list.load(), graph.load(), tags.load(), tenants]);
  progress.start();
  const fromUrl = itemInUrl();
  history.replaceState({ item: fromUrl }, "", location.href);
  if (fromUrl) store.select(fromUrl);
  document.body.dataset.ready = "true";
}

void boot();
