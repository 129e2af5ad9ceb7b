// The vault import dialog: a folder on the server, read by importVault (markdown files become notes, the others
// documents). The mutation answers once the notes, their links and their full-text entries are committed; their
// vectors follow in the background, which the enrichmentProgress subscription's notesPending counts down, so the
// dialog follows it during the import and after. An error (FORBIDDEN outside the folders the server allows,
// INVALID_INPUT for a relative path, NOT_FOUND…) is shown in the dialog with its code, as the server words it.

import { type Api, ApiError } from "./api";
import type { Capabilities } from "./capabilities";
import { byId, fill, h } from "./dom";
import { toastSuccess } from "./toast";

const IMPORT_VAULT = `mutation ImportVault($path: String!, $force: Boolean!) {
  importVault(path: $path, force: $force) {
    files created updated unchanged conflicts attachments skipped { path reason } typedLinks indexPending
  }
}`;
/** How many paths of a list (conflicts, skipped files) the report shows. */
const LISTED = 10;

interface ImportReport {
  files: number;
  created: string[];
  updated: string[];
  unchanged: string[];
  conflicts: string[];
  attachments: string[];
  skipped: { path: string; reason: string }[];
  typedLinks: number;
  indexPending: number;
}

type Progress = Record<string, number | undefined>;

export class ImportDialog {
  private readonly dialog = byId<HTMLDialogElement>("import-dialog");
  private readonly path = byId<HTMLInputElement>("import-path");
  private readonly force = byId<HTMLInputElement>("import-force");
  private readonly note = byId("import-note");
  private readonly error = byId("import-error");
  private readonly progress = byId("import-progress");
  private readonly report = byId("import-report");
  private readonly submit = byId<HTMLButtonElement>("import-submit");
  private readonly available: boolean;
  /** The subscription's fields this server has (notesPending at least, or no live progress). */
  private readonly progressFields: string[];
  private unsubscribe: (() => void) | null = null;
  private running = false;
  /** The notes the last import left to index, the bar's whole. */
  private pending = 0;

  constructor(private readonly api: Api, caps: Capabilities, private readonly imported: () => void) {
    this.available = caps.has("Mutation", "importVault");
    this.progressFields = caps.has("Subscription", "enrichmentProgress") && caps.has("Query", "enrichmentProgress")
      ? ["notesPending", "queued", "running"].filter((f) => caps.has("EnrichmentProgress", f)) : [];
    if (!this.progressFields.includes("notesPending")) this.progressFields = [];
    byId("import-button").addEventListener("click", () => this.open());
    byId("import-cancel").addEventListener("click", () => this.dialog.close());
    this.dialog.addEventListener("close", () => {
      if (!this.running) this.stopWatching();
    });
    byId<HTMLFormElement>("import-form").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.run();
    });
  }

  open(): void {
    if (!this.available) {
      this.note.textContent = "Importing a vault is not available on this server (the API has no importVault); "
        + "`vaultgraph import-vault` on the server does it.";
      this.note.hidden = false;
    }
    this.submit.disabled = !this.available || this.running;
    this.dialog.showModal();
    this.path.focus();
  }

  private async run(): Promise<void> {
    const path = this.path.value.trim();
    if (!this.available || this.running || !path) return;
    this.running = true;
    this.submit.disabled = true;
    this.error.hidden = true;
    this.report.hidden = true;
    this.showProgress("Importing: reading the files and saving the notes…");
    this.watch();
    let report: ImportReport;
    try {
      report = (await this.api.request<{ importVault: ImportReport }>(IMPORT_VAULT, { path, force: this.force.checked })).importVault;
    } catch (err) {
      this.stopWatching();
      this.progress.hidden = true;
      this.error.textContent = err instanceof ApiError ? `${err.code}: ${err.message}` : `Not imported: ${(err as Error).message}`;
      this.error.hidden = false;
      this.path.focus();
      return;
    } finally {
      this.running = false;
      this.submit.disabled = false;
    }
    this.pending = report.indexPending;
    this.renderReport(report);
    this.imported();
    toastSuccess(`Imported ${path}: ${report.created.length} notes created, ${report.updated.length} updated`);
    if (report.indexPending > 0 && this.unsubscribe) {
      this.showProgress(`Indexing for vector search: ${report.indexPending} notes to go (keyword search finds them already)`, 0);
      // The counts now: the subscription speaks only on a change, and the last one may have come before the answer.
      const now = await this.api.request<{ enrichmentProgress: Progress }>(
        `query ImportProgressNow { enrichmentProgress { ${this.progressFields.join(" ")} } }`).catch(() => null);
      if (now && this.watching) this.onProgress(now.enrichmentProgress);
    } else {
      this.stopWatching();
      this.showProgress(report.indexPending > 0 ? `${report.indexPending} notes are indexed for vector search in the background`
        : "Every note is indexed for vector search", report.indexPending > 0 ? undefined : 1);
    }
  }

  /** Follow enrichmentProgress while the import runs and until its notes have their vectors. */
  private watch(): void {
    this.stopWatching();
    if (!this.progressFields.length) return;
    this.unsubscribe = this.api.subscribe<{ enrichmentProgress: Progress }>(
      `subscription ImportProgress { enrichmentProgress { ${this.progressFields.join(" ")} } }`, {},
      { next: (d) => this.onProgress(d.enrichmentProgress), error: () => this.stopWatching() });
  }

  private get watching(): boolean {
    return this.unsubscribe !== null;
  }

  private stopWatching(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private onProgress(counts: Progress): void {
    const left = counts.notesPending ?? 0;
    const documents = (counts.queued ?? 0) + (counts.running ?? 0);
    if (this.running) {
      this.showProgress(`Importing: reading the files and saving the notes… (${left} saved notes waiting for their vectors)`);
      return;
    }
    if (left > 0) {
      this.pending = Math.max(this.pending, left);
      this.showProgress(`Indexing for vector search: ${left} notes to go (keyword search finds them already)`,
        (this.pending - left) / this.pending);
      return;
    }
    this.stopWatching();
    this.showProgress(`Every note is indexed for vector search${documents ? `; ${documents} documents are still being enriched` : ""}`, 1);
  }

  /** A bar (indeterminate without `done`, else that fraction) and what is happening. */
  private showProgress(text: string, done?: number): void {
    const bar = h("progress", { attrs: { max: "1", "aria-label": "Import progress" } });
    if (done !== undefined) bar.value = done;
    fill(this.progress, bar, h("span", { class: "import-progress-text", text }));
    this.progress.hidden = false;
  }

  private renderReport(report: ImportReport): void {
    const n = (count: number, what: string) => `${count} ${what}${count === 1 ? "" : "s"}`;
    const counts = [
      `${n(report.files, "file")} read`, `${report.created.length} created`, `${report.updated.length} updated`,
      `${report.unchanged.length} unchanged`, n(report.attachments.length, "attachment"),
      ...(report.typedLinks ? [n(report.typedLinks, "typed link")] : []),
    ];
    const list = (items: string[]) => h("ul", null, items.slice(0, LISTED).map((text) => h("li", { class: "mono", text })),
      items.length > LISTED ? h("li", { class: "hint", text: `…and ${items.length - LISTED} more` }) : null);
    fill(this.report,
      h("p", { attrs: { id: "import-counts" }, text: counts.join(" · ") }),
      report.conflicts.length ? h("div", { attrs: { id: "import-conflicts" } },
        h("p", { class: "error-text", text: `${report.conflicts.length} files differ from their notes and were left as they are: `
          + "tick “Overwrite” and import again to take the files’ text." }), list(report.conflicts)) : null,
      report.skipped.length ? h("div", { attrs: { id: "import-skipped" } },
        h("p", { text: `${report.skipped.length} files left out:` }),
        list(report.skipped.map((s) => `${s.path}: ${s.reason}`))) : null);
    this.report.hidden = false;
  }
}
