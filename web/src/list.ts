// The list pane: documents and notes, filtered by type chips and the scope / agent / team drop-downs, each row a
// button (arrow keys move, Enter opens). Search results take the list's place while a search is active.

import type { Api } from "./api";
import { byId, fill, h, relativeTime } from "./dom";
import { stageClass, typeColor, typeLabel } from "./palette";
import { LIST_DOCUMENTS, LIST_NOTES } from "./queries";
import { type Item, type Store, typeKey } from "./store";
import { attempt } from "./toast";

const PAGE = 100;

interface Page {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: Item[];
}

export function stageBadge(item: Item): HTMLElement | null {
  const stage = item.enrichment?.stage;
  if (!stage) return null;
  return h("span", {
    class: stageClass(stage),
    text: stage.toLowerCase(),
    title: item.enrichment?.error ?? `Enrichment: ${stage.toLowerCase()}`,
    data: { stageFor: item.id, stage },
  });
}

export class ListPane {
  private readonly list = byId<HTMLUListElement>("item-list");
  private readonly chips = byId("type-chips");
  private readonly scope = byId<HTMLSelectElement>("filter-scope");
  private readonly agent = byId<HTMLSelectElement>("filter-agent");
  private readonly team = byId<HTMLSelectElement>("filter-team");
  private readonly header = byId("list-header");
  private readonly empty = byId("list-empty");
  private readonly more = byId<HTMLButtonElement>("list-more");
  private cursors: { documents: string | null; notes: string | null } = { documents: null, notes: null };
  private totals = { documents: 0, notes: 0 };
  private hasMore = { documents: false, notes: false };
  private loaded = false;
  /** While a search is showing, the list keeps its data but stays hidden. */
  searching = false;

  constructor(private readonly api: Api, private readonly store: Store) {
    store.on("items", () => this.render());
    store.on("filters", () => this.render());
    store.on("item", (id) => this.renderRow(id));
    store.on("select", (id) => this.markSelected(id));
    this.scope.addEventListener("change", () => store.setFilters({ scope: this.scope.value as Item["scope"] | "" }));
    this.agent.addEventListener("change", () => store.setFilters({ agent: this.agent.value }));
    this.team.addEventListener("change", () => store.setFilters({ team: this.team.value }));
    this.more.addEventListener("click", () => void this.loadMore());
    this.list.addEventListener("keydown", (e) => this.onKey(e));
    this.list.addEventListener("focusin", (e) => {
      if (e.target instanceof HTMLButtonElement && e.target.classList.contains("item-button")) this.rove(e.target);
    });
  }

  async load(): Promise<void> {
    this.cursors = { documents: null, notes: null };
    this.list.setAttribute("aria-busy", "true");
    const [docs, notes] = await Promise.all([this.fetchDocuments(null), this.fetchNotes(null)]);
    this.list.removeAttribute("aria-busy");
    this.loaded = true;
    this.store.upsert([...(docs?.nodes ?? []), ...(notes?.nodes ?? [])]);
  }

  private async loadMore(): Promise<void> {
    this.more.disabled = true;
    const [docs, notes] = await Promise.all([
      this.hasMore.documents ? this.fetchDocuments(this.cursors.documents) : null,
      this.hasMore.notes ? this.fetchNotes(this.cursors.notes) : null,
    ]);
    this.more.disabled = false;
    this.store.upsert([...(docs?.nodes ?? []), ...(notes?.nodes ?? [])]);
  }

  private async fetchDocuments(after: string | null): Promise<Page | null> {
    const data = await attempt("Loading documents", () =>
      this.api.request<{ documents: Page }>(LIST_DOCUMENTS, { first: PAGE, after }));
    if (!data) return null;
    this.totals.documents = data.documents.totalCount;
    this.hasMore.documents = data.documents.pageInfo.hasNextPage;
    this.cursors.documents = data.documents.pageInfo.endCursor;
    return data.documents;
  }

  private async fetchNotes(after: string | null): Promise<Page | null> {
    const data = await attempt("Loading notes", () =>
      this.api.request<{ notes: Page }>(LIST_NOTES, { first: PAGE, after }));
    if (!data) return null;
    this.totals.notes = data.notes.totalCount;
    this.hasMore.notes = data.notes.pageInfo.hasNextPage;
    this.cursors.notes = data.notes.pageInfo.endCursor;
    return data.notes;
  }

  private sorted(): Item[] {
    return [...this.store.items.values()].sort((a, b) => {
      if (!!a.pinned !== !!b.pinned) return a.pinned ? -1 : 1;
      return (b.updatedAt ?? "").localeCompare(a.updatedAt ?? "");
    });
  }

  render(): void {
    const all = this.sorted();
    this.renderChips(all);
    this.renderOwners(all);
    if (this.searching) return;
    const shown = all.filter((i) => this.store.matches(i));
    fill(this.list, shown.map((item) => this.row(item)));
    this.markSelected(this.store.selectedId);
    const total = Math.max(this.totals.documents + this.totals.notes, all.length);
    // Items also arrive by the graph, live events and search: the pages may say "more" of what is all here.
    const more = (this.hasMore.documents || this.hasMore.notes) && all.length < total;
    const filtered = shown.length !== all.length ? ` · ${shown.length} match the filters` : "";
    this.header.textContent = !all.length ? "" : more ? `${all.length} of ${total} items${filtered}`
      : `${all.length} item${all.length === 1 ? "" : "s"}${filtered}`;
    this.more.hidden = !more;
    this.empty.hidden = !this.loaded || shown.length > 0;
    byId("list-empty-new").hidden = all.length > 0;
    byId("list-empty-filtered").hidden = all.length === 0;
  }

  private row(item: Item): HTMLLIElement {
    const key = typeKey(item);
    const sub = item.__typename === "Document" ? item.path : item.kind === "daily" ? `daily · ${item.noteDate ?? ""}` : item.slug;
    const owner = item.scope === "SHARED" ? null
      : h("span", { class: "owner", text: item.scope === "TEAM" ? `team ${item.teamId ?? ""}` : `agent ${item.agentId ?? ""}` });
    const tags = (item.tags ?? []).slice(0, 3).map((t) => h("span", { class: "tag", text: `#${t}` }));
    return h("li", { class: "item-row", data: { id: item.id } },
      h("button", { class: "item-button", attrs: { type: "button" }, on: { click: () => this.store.select(item.id) } },
        h("i", { class: "dot", attrs: { style: `background:${typeColor(key)}` }, title: typeLabel(key) }),
        h("span", { class: "item-main" },
          h("span", { class: "item-title", text: item.title }),
          h("span", { class: "item-sub" }, h("span", { class: "item-path", text: sub ?? "" }), owner, ...tags)),
        h("span", { class: "item-side" },
          stageBadge(item),
          item.pinned ? h("span", { class: "pin", text: "pinned" }) : null,
          h("span", { class: "item-time", text: relativeTime(item.updatedAt) }))));
  }

  private renderRow(id: string): void {
    const item = this.store.items.get(id);
    const old = this.list.querySelector<HTMLLIElement>(`li[data-id="${CSS.escape(id)}"]`);
    // While a search shows, the rows are its hits (search.ts): a live change must not swap one for a list row.
    if (!item || !old || this.searching) return;
    old.replaceWith(this.row(item));
    this.markSelected(this.store.selectedId);
  }

  private markSelected(id: string | null): void {
    for (const li of this.list.querySelectorAll<HTMLLIElement>("li.item-row")) {
      const open = li.dataset.id === id;
      li.classList.toggle("selected", open);
      const button = li.querySelector("button.item-button");
      if (open) button?.setAttribute("aria-current", "true");
      else button?.removeAttribute("aria-current");
    }
    this.rove();
  }

  /** One Tab stop for the whole list, the selected row's (else the first, else `to`); the arrow keys move it: a
   * roving tabindex, so Tab leaves the list in one press instead of one per row. */
  rove(to?: HTMLButtonElement): void {
    const buttons = [...this.list.querySelectorAll<HTMLButtonElement>("button.item-button")];
    const stop = to ?? this.list.querySelector<HTMLButtonElement>("li.selected button.item-button") ?? buttons[0];
    for (const button of buttons) button.tabIndex = button === stop ? 0 : -1;
  }

  private renderChips(all: Item[]): void {
    const counts = new Map<string, number>();
    for (const item of all) counts.set(typeKey(item), (counts.get(typeKey(item)) ?? 0) + 1);
    const active = this.store.filters.types;
    const chip = (key: string | null, text: string, count: number) => {
      const pressed = key === null ? active.size === 0 : active.has(key);
      return h("button", {
        class: "chip",
        attrs: { type: "button", "aria-pressed": String(pressed) },
        data: { type: key ?? "all" },
        on: { click: () => this.toggleType(key) },
      }, key ? h("i", { class: "dot", attrs: { style: `background:${typeColor(key)}` } }) : null, text, h("span", { class: "count", text: String(count) }));
    };
    fill(this.chips, chip(null, "All", all.length),
      [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([key, n]) => chip(key, typeLabel(key), n)));
  }

  private toggleType(key: string | null): void {
    const types = new Set(this.store.filters.types);
    if (key === null) types.clear();
    else if (types.has(key)) types.delete(key);
    else types.add(key);
    this.store.setFilters({ types });
  }

  private renderOwners(all: Item[]): void {
    const fillSelect = (select: HTMLSelectElement, label: string, values: Set<string>) => {
      const current = select.value;
      fill(select, h("option", { attrs: { value: "" }, text: label }),
        [...values].sort().map((v) => h("option", { attrs: { value: v }, text: v })));
      select.value = values.has(current) ? current : "";
      select.disabled = values.size === 0;
    };
    fillSelect(this.agent, "All agents", new Set(all.map((i) => i.agentId).filter((v): v is string => !!v)));
    fillSelect(this.team, "All teams", new Set(all.map((i) => i.teamId).filter((v): v is string => !!v)));
  }

  /** Arrow keys walk the rows of the list (or of the search results, which use the same markup). */
  private onKey(e: KeyboardEvent): void {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp" && e.key !== "Home" && e.key !== "End") return;
    const buttons = [...this.list.querySelectorAll<HTMLButtonElement>("button.item-button")];
    if (!buttons.length) return;
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = e.key === "Home" ? 0 : e.key === "End" ? buttons.length - 1
      : e.key === "ArrowDown" ? Math.min(buttons.length - 1, at + 1) : Math.max(0, at - 1);
    this.rove(buttons[next]);
    buttons[next].focus();
    e.preventDefault();
  }

  /** The list element, shared with the search results renderer. */
  get element(): HTMLUListElement {
    return this.list;
  }
}
