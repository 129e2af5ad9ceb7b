// The tag pane: every tag of the vault with its count (Query.tags); a tag filters the list, the graph and search,
// as the type chips do, and a #tag clicked in a note sets the same filter. Nested tags sit under their parent
// (`project` takes `project/alpha`), as in Obsidian's tag search.

import type { Api } from "./api";
import { byId, fill, h } from "./dom";
import type { Store } from "./store";
import { attempt } from "./toast";

const TAGS = "query Tags { tags { tag count } }";
const RELOAD_MS = 1500; // a burst of saves or live events reloads the counts once

export class TagPane {
  private readonly pane = byId<HTMLDetailsElement>("tag-pane");
  private readonly list = byId("tag-list");
  private readonly active = byId("tag-active");
  private tags: { tag: string; count: number }[] = [];
  private timer = 0;

  constructor(private readonly api: Api, private readonly store: Store) {
    store.on("filters", () => this.render());
    store.on("items", () => {
      window.clearTimeout(this.timer);
      this.timer = window.setTimeout(() => void this.load(), RELOAD_MS);
    });
  }

  async load(): Promise<void> {
    const data = await attempt("Loading the tags", () => this.api.request<{ tags: { tag: string; count: number }[] }>(TAGS));
    if (!data) return;
    this.tags = [...data.tags].sort((a, b) => a.tag.localeCompare(b.tag));
    this.render();
  }

  private render(): void {
    const current = this.store.filters.tag;
    if (current) this.pane.open = true;
    fill(this.active, current ? h("button", { class: "chip", text: `#${current} ×`, attrs: { type: "button", id: "tag-clear",
      "aria-label": `Stop filtering by #${current}` }, on: { click: (e) => { e.preventDefault(); this.store.setFilters({ tag: "" }); } } }) : null);
    fill(this.list, this.tags.length ? this.tags.map(({ tag, count }) => {
      const depth = tag.split("/").length - 1;
      return h("button", { class: "chip tag-chip", attrs: { type: "button", "aria-pressed": String(tag === current), style: depth ? `margin-left:${depth * 12}px` : null },
        data: { tag }, on: { click: () => this.store.setFilters({ tag: tag === current ? "" : tag }) } },
        `#${tag}`, h("span", { class: "count", text: String(count) }));
    }) : h("p", { class: "hint", text: "No tags yet: write #tags in notes." }));
  }
}
