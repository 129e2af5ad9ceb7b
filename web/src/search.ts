// The search bar: Query.search in KEYWORD, VECTOR, HYBRID or GRAPH mode, hits with their score breakdown and
// snippet. A graph-mode hit that came by links highlights that path in the graph. Built from the schema as it is:
// with no `search` field yet the bar is disabled and says so.

import type { Api } from "./api";
import type { Capabilities } from "./capabilities";
import { byId, fill, h, marked } from "./dom";
import type { ListPane } from "./list";
import { typeColor, typeLabel } from "./palette";
import { itemFieldsFor } from "./queries";
import { type Item, type PathStep, type Store, typeKey } from "./store";
import { toastError } from "./toast";
import { topicHeading } from "./topics";

type Hit = Record<string, unknown> & { item: Item; score?: number };

/** The name of the document's section that matched (`SearchHit.topic`), if the hit has one. */
function topicName(hit: Hit): string | null {
  const topic = hit.topic as { name?: unknown } | null | undefined;
  return typeof topic?.name === "string" && topic.name ? topic.name : null;
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function refId(value: unknown): string | null {
  if (!value || typeof value !== "object") return typeof value === "string" ? value : null;
  const id = (value as { id?: unknown }).id;
  return typeof id === "string" ? id : null;
}

/** A `via` entry, whatever its exact shape (a Link with from/to, or linkId/source/target), as a path step. */
export function toStep(v: Record<string, unknown>): PathStep | null {
  const fromId = refId(v.from) ?? refId(v.source) ?? refId(v.fromId) ?? refId(v.sourceId);
  const toId = refId(v.to) ?? refId(v.target) ?? refId(v.toId) ?? refId(v.targetId);
  if (!fromId || !toId) return null;
  const linkId = refId(v.linkId) ?? refId(v.id) ?? undefined;
  return { linkId, type: typeof v.type === "string" ? v.type : undefined, fromId, toId };
}

export class SearchBar {
  private readonly form = byId<HTMLFormElement>("search-form");
  private readonly input = byId<HTMLInputElement>("search-input");
  private readonly mode = byId<HTMLSelectElement>("search-mode");
  private readonly min = byId<HTMLSelectElement>("search-min");
  private readonly note = byId("search-note");
  private readonly results = byId("search-results");
  private document: string | null = null;
  private hitsField = "";
  private seq = 0;

  constructor(private readonly api: Api, private readonly caps: Capabilities, private readonly store: Store,
              private readonly list: ListPane) {
    for (const select of [this.mode, this.min]) {
      select.addEventListener("change", () => this.list.searching && this.input.value.trim() && void this.run());
    }
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.run();
    });
    // The type chips, the owner drop-downs and the tag filter apply to hits as to the list: a change re-runs.
    store.on("filters", () => this.list.searching && this.input.value.trim() && void this.run());
    this.input.addEventListener("input", () => {
      if (!this.input.value.trim() && this.list.searching) this.clear();
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        this.input.value = "";
        this.clear();
      } else if (e.key === "ArrowDown") {
        this.list.element.querySelector<HTMLButtonElement>("button.item-button")?.focus();
        e.preventDefault();
      }
    });
    this.configure();
  }

  /** Build the search document from the schema, or disable the bar with a note. */
  private configure(): void {
    const field = this.caps.field("Query", "search");
    if (!field) {
      this.input.disabled = this.mode.disabled = this.min.disabled = true;
      this.input.placeholder = "Search (not on this server yet)";
      this.note.textContent = "This server's API has no Query.search yet; the list below still filters by type and owner.";
      this.note.hidden = false;
      return;
    }
    const returned = this.caps.fieldTypeName("Query", "search") ?? "SearchHit";
    // Either a list of hits, or a result object that holds them in `hits`.
    const hitType = this.caps.has(returned, "item") ? returned : this.caps.fieldTypeName(returned, "hits");
    if (!hitType) {
      this.input.disabled = true;
      this.note.textContent = "This server's search answers in a shape the explorer does not know.";
      this.note.hidden = false;
      return;
    }
    const hitSelection = this.hitSelection(hitType);
    this.hitsField = returned === hitType ? "" : "hits";
    const selection = this.hitsField ? `hits { ${hitSelection} }` : hitSelection;
    const modes = this.argType("mode") ? this.caps.enumValues(this.argType("mode") as string) : [];
    if (modes.length) {
      const current = this.mode.value;
      fill(this.mode, modes.map((m) => h("option", { attrs: { value: m }, text: m[0] + m.slice(1).toLowerCase() })));
      this.mode.value = modes.includes(current) ? current : modes.includes("HYBRID") ? "HYBRID" : modes[0];
    }
    const args = field.args.map((a) => a.name);
    this.mode.hidden = !args.includes("mode");
    this.min.hidden = !args.includes("minScore");
    const optional: [string, string][] = [
      ["mode", this.argType("mode") ?? "SearchMode"], ["scope", "Scope"], ["limit", "Int"], ["minScore", "Float"],
      ["types", "[String!]"], ["tags", "[String!]"],
    ];
    const present = optional.filter(([name]) => args.includes(name));
    const vars = ["$query: String!", ...present.map(([name, type]) => `$${name}: ${type}`)];
    const pass = ["query: $query", ...present.map(([name]) => `${name}: $${name}`)];
    this.document = `query Search(${vars.join(", ")}) { search(${pass.join(", ")}) { ${selection} } }`;
  }

  private argType(name: string): string | null {
    const arg = this.caps.arg("Query", "search", name);
    if (!arg) return null;
    let t = arg.type;
    while (t.ofType) t = t.ofType;
    return t.name;
  }

  private hitSelection(hitType: string): string {
    const generic = this.caps.selection(hitType).split(" ");
    // The generic selection summarises objects; the item gets the list's full fields instead.
    const viaType = this.caps.fieldTypeName(hitType, "via");
    const parts = ["__typename", `item { ${itemFieldsFor(this.caps.fieldTypeName(hitType, "item") ?? "Item")} }`];
    for (const name of ["score", "keywordScore", "vectorScore", "keywordRank", "vectorRank", "snippet", "fusion", "matched"]) {
      if (this.caps.has(hitType, name) && generic.includes(name)) parts.push(name);
    }
    if (viaType) parts.push(`via { ${this.caps.selection(viaType)} }`);
    if (this.caps.fieldTypeName(hitType, "topic")) parts.push("topic { id name }");
    return parts.join(" ");
  }

  async run(): Promise<void> {
    const query = this.input.value.trim();
    if (!query || !this.document) return;
    const seq = ++this.seq;
    this.list.searching = true;
    fill(this.results, h("span", { text: `Searching for “${query}”…` }));
    this.showResults(h("li", { class: "hint", text: "Searching…" }));
    const f = this.store.filters;
    try {
      const data = await this.api.request<{ search: Hit[] | { hits: Hit[] } }>(this.document, {
        query, mode: this.mode.value || undefined, scope: f.scope || null, limit: 25,
        minScore: this.min.value ? Number(this.min.value) : null,
        // A chip's key is "note" for notes of every non-daily kind, else a note kind or a docType: the server
        // takes item types, kinds and docTypes alike; what it cannot tell apart (moc from daily) is sorted here.
        types: f.types.size ? [...f.types].map((t) => (t === "note" ? "Note" : t)) : null,
        tags: f.tag ? [f.tag] : null,
      });
      if (seq !== this.seq) return;
      const hits = Array.isArray(data.search) ? data.search : data.search.hits;
      this.render(query, hits);
    } catch (err) {
      if (seq !== this.seq) return;
      toastError(err, "Searching");
      // The header of the previous search must not stand over this failure.
      fill(this.results, h("span", { class: "error-text", text: `Search for “${query}” failed` }), this.clearButton());
      this.showResults(h("li", { class: "hint error-text", text: `Search failed: ${(err as Error).message}` }));
    }
  }

  private showResults(...children: HTMLElement[]): void {
    this.results.hidden = false;
    byId("list-header").textContent = "";
    byId("list-empty").hidden = true;
    byId("list-more").hidden = true;
    fill(this.list.element, children);
    this.list.rove();
  }

  clear(): void {
    this.seq++;
    this.list.searching = false;
    this.results.hidden = true;
    this.store.emit("path", null);
    this.list.render();
  }

  private clearButton(): HTMLButtonElement {
    return h("button", { class: "link-button", text: "Clear", attrs: { type: "button" }, on: { click: () => { this.input.value = ""; this.clear(); } } });
  }

  private render(query: string, all: Hit[]): void {
    this.store.upsert(all.map((hit) => hit.item), true);
    // The list's filters, exactly; attachments only when their chip asks for them (they have no text to match).
    const wantAttachments = this.store.filters.types.has("attachment");
    const kept = all.filter((hit) => this.store.matches(hit.item));
    const hits = kept.filter((hit) => wantAttachments || hit.item.docType !== "attachment");
    const hidden = kept.length - hits.length;
    const fusion = all.find((hit) => typeof hit.fusion === "string")?.fusion as string | undefined;
    const ranks = h("button", { class: "link-button", text: this.list.element.classList.contains("show-ranks") ? "Hide ranks" : "Ranks",
      attrs: { type: "button", id: "search-ranks", "aria-pressed": String(this.list.element.classList.contains("show-ranks")) },
      title: "Show each hit's rank in the keyword and vector channels, and how they were fused" });
    ranks.addEventListener("click", () => {
      const on = this.list.element.classList.toggle("show-ranks");
      ranks.textContent = on ? "Hide ranks" : "Ranks";
      ranks.setAttribute("aria-pressed", String(on));
    });
    fill(this.results,
      h("span", { text: `${hits.length} result${hits.length === 1 ? "" : "s"} for “${query}” · ${this.mode.value.toLowerCase()}`
        + (fusion ? ` · ${fusion.toLowerCase()} fusion` : "")
        + (all.length > kept.length ? ` · ${all.length - kept.length} outside the filters` : "")
        + (hidden ? ` · ${hidden} attachment${hidden === 1 ? "" : "s"} left out (pick the Attachment chip)` : "") }),
      h("span", { class: "search-actions" }, ranks, this.clearButton()));
    if (!hits.length) {
      this.showResults(h("li", { class: "hint", text: "Nothing matched. Try other words or another mode." }));
      return;
    }
    this.showResults(...hits.map((hit) => this.hitRow(hit)));
  }

  private hitRow(hit: Hit): HTMLLIElement {
    const item = hit.item;
    const key = typeKey(item);
    const score = num(hit.score);
    const keyword = num(hit.keywordScore);
    const vector = num(hit.vectorScore);
    const via = (Array.isArray(hit.via) ? hit.via : hit.via ? [hit.via] : []) as Record<string, unknown>[];
    const steps = via.map(toStep).filter((s): s is PathStep => s !== null);
    const bar = (label: string, value: number | null, cls: string) => value === null ? null
      : h("span", { class: `score ${cls}`, title: `${label} ${value.toFixed(3)}` },
        h("span", { class: "score-label", text: label }),
        h("span", { class: "score-track" }, h("span", { class: "score-fill", attrs: { style: `width:${Math.round(Math.min(1, value) * 100)}%` } })),
        h("span", { class: "score-value", text: value.toFixed(2) }));
    const viaText = via.length ? via.map((v) => {
      const from = (v.from ?? v.source) as { title?: string } | undefined;
      const to = (v.to ?? v.target) as { title?: string } | undefined;
      return `${from?.title ?? "?"} —${String(v.type ?? "link").toLowerCase()}→ ${to?.title ?? "?"}`;
    }).join("; ") : "";
    const topic = topicName(hit);
    const open = () => {
      // A hit in one of a document's sections opens the document at that section.
      if (topic) this.store.emit("section", { id: item.id, heading: topicHeading(topic) });
      else this.store.select(item.id);
      this.store.emit("path", steps.length ? { hitId: item.id, steps } : null);
    };
    return h("li", { class: "item-row hit-row", data: { id: item.id } },
      h("button", { class: "item-button", attrs: { type: "button" }, on: { click: open } },
        h("i", { class: "dot", attrs: { style: `background:${typeColor(key)}` }, title: typeLabel(key) }),
        h("span", { class: "item-main" },
          h("span", { class: "item-title", text: item.title }),
          topic ? h("span", { class: "hit-topic", text: `§ ${topic}`, title: "The section that matched: the hit opens there" }) : null,
          typeof hit.snippet === "string" && hit.snippet ? h("span", { class: "snippet" }, marked(hit.snippet)) : null,
          h("span", { class: "scores" }, bar("score", score, "total"), bar("keyword", keyword, "kw"), bar("vector", vector, "vec")),
          h("span", { class: "ranks", text: [
            num(hit.keywordRank) !== null ? `keyword #${hit.keywordRank as number}` : "no keyword hit",
            num(hit.vectorRank) !== null ? `vector #${hit.vectorRank as number}` : "no vector hit",
            typeof hit.fusion === "string" ? `${hit.fusion.toLowerCase()} fusion` : null,
          ].filter(Boolean).join(" · ") }),
          viaText ? h("span", { class: "via", text: `via ${viaText}` }) : null)));
  }
}
