// Live enrichment: the progress bar follows the enrichmentProgress subscription, and every document's stage badge
// follows enrichmentEvents, without a reload. Field shapes come from the schema; a server without these
// subscriptions gets a quiet note instead of a bar.

import type { Api } from "./api";
import type { Capabilities } from "./capabilities";
import { byId, fill, h } from "./dom";
import { ITEM_FIELDS } from "./queries";
import type { Item, Stage, Store } from "./store";
import { toastError } from "./toast";

type Counts = Record<string, unknown>;
type EventData = Record<string, unknown>;

const COUNT_ORDER = ["running", "queued", "done", "failed", "skipped"];

export class ProgressBar {
  private readonly host = byId("progress");
  private readonly fillEl: HTMLElement;
  private readonly text: HTMLElement;
  private unknown = new Set<string>();
  private fetchTimer = 0;
  /** Called once per document that reaches a final stage, so the graph can pick up new links. */
  onFinished: (id: string, stage: Stage) => void = () => {};
  /** Documents this page first heard of through an event (created elsewhere: an upload, a rescan, an agent). */
  onNewItems: (items: Item[]) => void = () => {};

  constructor(private readonly api: Api, private readonly caps: Capabilities, private readonly store: Store) {
    this.fillEl = h("span", { class: "progress-fill" });
    this.text = h("span", { class: "progress-text", text: "" });
    fill(this.host, h("span", { class: "progress-track", attrs: { role: "progressbar", "aria-label": "Enrichment progress", "aria-valuemin": 0, "aria-valuemax": 100 } }, this.fillEl), this.text);
  }

  start(): void {
    const hasQuery = this.caps.has("Query", "enrichmentProgress");
    const hasProgress = this.caps.has("Subscription", "enrichmentProgress");
    const hasEvents = this.caps.has("Subscription", "enrichmentEvents");
    this.host.dataset.live = String(hasProgress || hasEvents);
    if (!hasQuery && !hasProgress && !hasEvents) {
      this.host.classList.add("unavailable");
      this.text.textContent = "Live enrichment progress is not available on this server yet";
      this.host.title = "The API has no enrichmentProgress / enrichmentEvents yet";
      return;
    }
    const progressType = this.caps.fieldTypeName(hasProgress ? "Subscription" : "Query", "enrichmentProgress");
    const progressSel = progressType ? this.caps.selection(progressType, 1) : "";
    if (hasQuery && progressSel) {
      this.api.request<{ enrichmentProgress: Counts }>(`query Progress { enrichmentProgress { ${progressSel} } }`)
        .then((d) => this.renderCounts(d.enrichmentProgress))
        .catch((err) => toastError(err, "Reading enrichment progress"));
    }
    if (hasProgress && progressSel) {
      this.api.subscribe<{ enrichmentProgress: Counts }>(`subscription Progress { enrichmentProgress { ${progressSel} } }`, {}, {
        next: (d) => this.renderCounts(d.enrichmentProgress),
        error: (err) => toastError(err, "Enrichment progress"),
      });
    }
    if (hasEvents) this.subscribeEvents();
  }

  private subscribeEvents(): void {
    const type = this.caps.fieldTypeName("Subscription", "enrichmentEvents") ?? "";
    const kind = this.caps.kindOf(type);
    const selection = kind === "SCALAR" || kind === "ENUM" ? "" : `{ ${this.caps.selection(type)} }`;
    this.api.subscribe<{ enrichmentEvents: EventData }>(`subscription Events { enrichmentEvents ${selection} }`, {}, {
      next: (d) => this.onEvent(d.enrichmentEvents),
      error: (err) => toastError(err, "Enrichment events"),
    });
  }

  /** One stage change: update the item's badge in every pane; fetch the item first if this page has not seen it. */
  private onEvent(event: EventData): void {
    const doc = event.document as { id?: string } | undefined;
    const id = (event.documentId as string | undefined) ?? doc?.id ?? (event.id as string | undefined);
    const stage = event.stage as Stage | undefined;
    if (!id || !stage) return;
    const error = (event.error as string | null | undefined) ?? null;
    const updatedAt = (event.at as string | undefined) ?? (event.updatedAt as string | undefined) ?? new Date().toISOString();
    const item = this.store.items.get(id);
    if (item) {
      this.store.updateOne(id, { enrichment: { stage, error, updatedAt } });
    } else {
      this.unknown.add(id);
      window.clearTimeout(this.fetchTimer);
      this.fetchTimer = window.setTimeout(() => void this.fetchUnknown(), 300);
    }
    if (stage === "DONE" || stage === "FAILED" || stage === "SKIPPED") this.onFinished(id, stage);
  }

  private async fetchUnknown(): Promise<void> {
    const ids = [...this.unknown];
    this.unknown.clear();
    const fields = ids.map((id, i) => `n${i}: node(id: ${JSON.stringify(id)}) { ... on Item { ${ITEM_FIELDS} } }`).join(" ");
    try {
      const data = await this.api.request<Record<string, Item | null>>(`query Unknown { ${fields} }`);
      const items = Object.values(data).filter((v): v is Item => !!v && !!v.id);
      this.store.upsert(items);
      this.onNewItems(items);
    } catch (err) {
      toastError(err, "Loading new documents");
    }
  }

  private renderCounts(counts: Counts): void {
    const num = (k: string) => (typeof counts[k] === "number" ? (counts[k] as number) : 0);
    const known = Object.keys(counts).filter((k) => typeof counts[k] === "number" && k !== "total");
    const total = typeof counts.total === "number" ? counts.total : known.reduce((s, k) => s + num(k), 0);
    const finished = num("done") + num("failed") + num("skipped");
    const active = num("running") + num("queued");
    const pct = total ? Math.round((finished / total) * 100) : 0;
    this.fillEl.style.width = `${pct}%`;
    this.host.querySelector(".progress-track")?.setAttribute("aria-valuenow", String(pct));
    this.host.classList.toggle("busy", active > 0);
    this.host.classList.toggle("has-failed", num("failed") > 0);
    const parts = [...COUNT_ORDER.filter((k) => k in counts), ...known.filter((k) => !COUNT_ORDER.includes(k))]
      .filter((k) => num(k) > 0 || k === "done")
      .map((k) => `${num(k)} ${k}`);
    this.text.textContent = active ? `Enriching · ${parts.join(" · ")}` : total ? `Enrichment idle · ${parts.join(" · ")}` : "Enrichment idle";
    this.host.title = Object.entries(counts).filter(([k]) => k !== "__typename").map(([k, v]) => `${k}: ${String(v)}`).join("\n");
  }
}
