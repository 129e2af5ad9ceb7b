// The upload dialog (drag and drop or browse, a target scope) and the rescan button: uploadDocuments (a GraphQL
// multipart request) and rescanWorkspace. On a server without them they say so and stay disabled.

import type { Api } from "./api";
import { type Capabilities, namedType } from "./capabilities";
import { byId, fill, formatBytes, h } from "./dom";
import { DOCUMENT_FIELDS } from "./queries";
import type { Item, Store } from "./store";
import { attempt, toastError, toastSuccess } from "./toast";

const MAX_FILES = 50;
const MAX_BYTES = 50 * 1024 * 1024;
// What the server accepts (it checks the content too: a binary file named .md is refused with the reason). The
// office formats and PDF need the server's formats extra; a server without it refuses them, naming the extra.
const ACCEPT = ".md,.txt,.json,.yaml,.yml,.csv,.tsv,.html,.pdf,.docx,.pptx,.xlsx";

const UPLOAD_DOCUMENTS = `mutation UploadDocuments($files: [Upload!]!, $scope: Scope!, $agentId: String, $teamId: String) {
  uploadDocuments(files: $files, scope: $scope, agentId: $agentId, teamId: $teamId) {
    files { filename path status document { id } }
    documents { ${DOCUMENT_FIELDS} }
  }
}`;

interface UploadPayload {
  files: { filename: string; path: string; status: "CREATED" | "UPDATED" | "UNCHANGED"; document: { id: string } }[];
  documents: Item[];
}

/** A report as counts (`seen: 12 · new: 2`): a list of paths counts its entries; ids say nothing to a person. */
function summary(value: unknown): string {
  if (!value || typeof value !== "object") return "";
  return Object.entries(value as Record<string, unknown>)
    .filter(([k, v]) => k !== "__typename" && !/id$/i.test(k)
      && (Array.isArray(v) || typeof v === "number" || typeof v === "string" || typeof v === "boolean"))
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.length : String(v)}`)
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
    const accepted = ACCEPT.split(",");
    for (const f of files) {
      const suffix = f.name.includes(".") ? f.name.slice(f.name.lastIndexOf(".")).toLowerCase() : "";
      if (!accepted.includes(suffix)) toastError(new Error(`${f.name}: only ${accepted.join(" ")} files can be uploaded`), "Upload");
      else if (f.size > MAX_BYTES) toastError(new Error(`${f.name} is larger than 50 MB`), "Upload");
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
    if (!this.available || !this.files.length) return;
    const scope = this.target.value as Item["scope"];
    const owner = this.owner.value.trim();
    if (scope !== "SHARED" && !owner) {
      toastError(new Error(`name the ${scope === "TEAM" ? "team" : "agent"} to upload to`), "Upload");
      this.owner.focus();
      return;
    }
    const variables = {
      files: this.files.map(() => null), scope,
      agentId: scope === "PERSONAL" ? owner : null, teamId: scope === "TEAM" ? owner : null,
    };
    const files = this.files.map((file, i) => ({ variable: `files.${i}`, file }));
    this.submit.disabled = true;
    this.submit.textContent = "Uploading…";
    try {
      const data = await this.api.upload<{ uploadDocuments: UploadPayload }>(UPLOAD_DOCUMENTS, variables, files);
      const { files: stored, documents } = data.uploadDocuments;
      this.store.upsert(documents);
      this.added(documents);
      const counts = (["CREATED", "UPDATED", "UNCHANGED"] as const)
        .map((status) => [status, stored.filter((f) => f.status === status).length] as const)
        .filter(([, n]) => n > 0).map(([status, n]) => `${n} ${status.toLowerCase()}`).join(", ");
      const renamed = stored.filter((f) => f.path.split("/").pop() !== f.filename).map((f) => `${f.filename} → ${f.path}`);
      toastSuccess(`Uploaded ${stored.length} file${stored.length === 1 ? "" : "s"} (${counts}); enrichment runs now`
        + (renamed.length ? `. Stored as: ${renamed.slice(0, 3).join(", ")}` : ""));
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
      // The mutation answers when the scan is over: new and changed files are queued for enrichment by then.
      toastSuccess(`Rescan finished${text ? ` — ${text}` : ""}; new and changed files are queued for enrichment`);
      this.rescanned();
    });
  }
}
