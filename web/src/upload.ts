// The upload dialog (drag and drop or browse, a target scope) and the rescan button. Both speak mutations that a
// later server release brings (uploadDocuments, rescanWorkspace); without them they say so and stay disabled.

import type { Api } from "./api";
import { type Capabilities, namedType, typeString } from "./capabilities";
import { byId, fill, formatBytes, h } from "./dom";
import type { Item, Store } from "./store";
import { attempt, toastError, toastSuccess } from "./toast";

const MAX_FILES = 50;
const MAX_BYTES = 50 * 1024 * 1024;
const ACCEPT = ".md,.markdown,.txt,.json,.yaml,.yml,.csv,.tsv,.html,.htm";

/** Every object with an id and a title anywhere in a payload: the documents a mutation answered with. */
function itemsIn(value: unknown, out: Item[] = []): Item[] {
  if (Array.isArray(value)) value.forEach((v) => itemsIn(v, out));
  else if (value && typeof value === "object") {
    const v = value as Record<string, unknown>;
    if (typeof v.id === "string" && typeof v.title === "string" && (v.__typename === "Document" || v.__typename === "Note")) out.push(v as unknown as Item);
    else Object.values(v).forEach((x) => itemsIn(x, out));
  }
  return out;
}

function summary(value: unknown): string {
  if (!value || typeof value !== "object") return "";
  return Object.entries(value as Record<string, unknown>)
    .filter(([k, v]) => k !== "__typename" && (typeof v === "number" || typeof v === "string" || typeof v === "boolean"))
    .map(([k, v]) => `${k}: ${String(v)}`)
    .slice(0, 6)
    .join(" · ");
}

export class UploadDialog {
  private readonly dialog = byId<HTMLDialogElement>("upload-dialog");
  private readonly drop = byId("upload-drop");
  private readonly input = byId<HTMLInputElement>("upload-input");
  private readonly list = byId("upload-files");
  private readonly target = byId<HTMLSelectElement>("upload-target");
  private readonly owner = byId<HTMLInputElement>("upload-owner");
  private readonly submit = byId<HTMLButtonElement>("upload-submit");
  private readonly note = byId("upload-note");
  private readonly rescan = byId<HTMLButtonElement>("rescan-button");
  private files: File[] = [];
  private readonly available: boolean;

  constructor(private readonly api: Api, private readonly caps: Capabilities, private readonly store: Store,
              private readonly added: (items: Item[]) => void, private readonly rescanned: () => void) {
    this.available = caps.has("Mutation", "uploadDocuments");
    this.input.accept = ACCEPT;
    byId("upload-button").addEventListener("click", () => this.open());
    byId("upload-cancel").addEventListener("click", () => this.dialog.close());
    this.input.addEventListener("change", () => this.addFiles([...(this.input.files ?? [])]));
    this.target.addEventListener("change", () => this.onTarget());
    this.drop.addEventListener("dragover", (e) => {
      e.preventDefault();
      this.drop.classList.add("over");
    });
    this.drop.addEventListener("dragleave", () => this.drop.classList.remove("over"));
    this.drop.addEventListener("drop", (e) => {
      e.preventDefault();
      this.drop.classList.remove("over");
      this.addFiles([...(e.dataTransfer?.files ?? [])]);
    });
    this.drop.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        this.input.click();
      }
    });
    byId<HTMLFormElement>("upload-form").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.upload();
    });
    this.setupRescan();
    this.onTarget();
  }

  open(): void {
    this.files = [];
    this.renderFiles();
    if (!this.available) {
      this.note.textContent = "Uploading is not available on this server yet (the API has no uploadDocuments). "
        + "Documents can still be created with the createDocument mutation or written into the workspace folder.";
      this.note.hidden = false;
    } else this.note.hidden = true;
    this.dialog.showModal();
  }

  private onTarget(): void {
    const kind = this.target.value;
    this.owner.hidden = kind === "SHARED";
    this.owner.placeholder = kind === "TEAM" ? "Team id" : "Agent id";
    this.owner.required = kind !== "SHARED";
  }

  private addFiles(files: File[]): void {
    for (const f of files) {
      if (f.size > MAX_BYTES) toastError(new Error(`${f.name} is larger than 50 MB`), "Upload");
      else if (!this.files.some((x) => x.name === f.name && x.size === f.size)) this.files.push(f);
    }
    if (this.files.length > MAX_FILES) {
      toastError(new Error(`at most ${MAX_FILES} files at a time; the first ${MAX_FILES} are kept`), "Upload");
      this.files = this.files.slice(0, MAX_FILES);
    }
    this.renderFiles();
  }

  private renderFiles(): void {
    fill(this.list, this.files.map((f, i) => h("li", null,
      h("span", { class: "mono", text: f.name }), h("span", { class: "hint", text: formatBytes(f.size) }),
      h("button", { class: "icon-button", text: "×", attrs: { type: "button", "aria-label": `Remove ${f.name}` },
        on: { click: () => { this.files.splice(i, 1); this.renderFiles(); } } }))));
    this.submit.disabled = !this.available || this.files.length === 0;
    this.submit.textContent = this.files.length ? `Upload ${this.files.length} file${this.files.length === 1 ? "" : "s"}` : "Upload";
  }

  private async upload(): Promise<void> {
    const field = this.caps.field("Mutation", "uploadDocuments");
    if (!field || !this.files.length) return;
    const fileArg = field.args.find((a) => namedType(a.type).name === "Upload") ?? field.args.find((a) => a.name === "files");
    if (!fileArg) {
      toastError(new Error("uploadDocuments takes no files argument the explorer recognises"), "Upload");
      return;
    }
    const values: Record<string, unknown> = { [fileArg.name]: this.files.map(() => null) };
    const scope = this.target.value;
    const owner = this.owner.value.trim();
    const wanted: Record<string, unknown> = {
      scope, agentId: scope === "PERSONAL" ? owner : undefined, teamId: scope === "TEAM" ? owner : undefined,
    };
    const vars = [`$${fileArg.name}: ${typeString(fileArg.type)}`];
    const pass = [`${fileArg.name}: $${fileArg.name}`];
    for (const arg of field.args) {
      if (arg === fileArg || wanted[arg.name] === undefined) continue;
      vars.push(`$${arg.name}: ${typeString(arg.type)}`);
      pass.push(`${arg.name}: $${arg.name}`);
      values[arg.name] = wanted[arg.name];
    }
    const type = namedType(field.type).name ?? "";
    const kind = this.caps.kindOf(type);
    const selection = kind === "SCALAR" || kind === "ENUM" ? "" : `{ ${this.caps.selection(type)} }`;
    const query = `mutation Upload(${vars.join(", ")}) { uploadDocuments(${pass.join(", ")}) ${selection} }`;
    const files = this.files.map((file, i) => ({ variable: `${fileArg.name}.${i}`, file }));
    this.submit.disabled = true;
    this.submit.textContent = "Uploading…";
    try {
      const data = await this.api.upload<{ uploadDocuments: unknown }>(query, values, files);
      const items = itemsIn(data.uploadDocuments);
      this.store.upsert(items);
      this.added(items);
      toastSuccess(`Uploaded ${this.files.length} file${this.files.length === 1 ? "" : "s"}; enrichment runs now`);
      this.dialog.close();
    } catch (err) {
      toastError(err, "Uploading");
    } finally {
      this.renderFiles();
    }
  }

  private setupRescan(): void {
    const field = this.caps.field("Mutation", "rescanWorkspace");
    if (!field || field.args.some((a) => a.type.kind === "NON_NULL")) {
      this.rescan.disabled = true;
      this.rescan.title = field ? "Rescan needs arguments this explorer does not know" : "Rescanning the workspace is not available on this server yet";
      return;
    }
    this.rescan.title = "Scan the workspace folder for new and changed files";
    this.rescan.addEventListener("click", async () => {
      const type = namedType(field.type).name ?? "";
      const kind = this.caps.kindOf(type);
      const selection = kind === "SCALAR" || kind === "ENUM" ? "" : `{ ${this.caps.selection(type)} }`;
      this.rescan.disabled = true;
      this.rescan.classList.add("spinning");
      const data = await attempt("Rescanning the workspace", () => this.api.request<{ rescanWorkspace: unknown }>(`mutation Rescan { rescanWorkspace ${selection} }`));
      this.rescan.disabled = false;
      this.rescan.classList.remove("spinning");
      if (!data) return;
      const text = summary(data.rescanWorkspace);
      toastSuccess(`Rescan started${text ? ` — ${text}` : ""}`);
      this.rescanned();
    });
  }
}
