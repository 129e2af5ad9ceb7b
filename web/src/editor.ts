// The note editor: markdown in a textarea with a live preview, `[[` completing note titles, Ctrl+S saving through
// saveNote (the one write path for notes, guarded by the body hash so a concurrent edit is a CONFLICT, not a loss).
// A text document (an uploaded or workspace .md or .txt file) opens in it too and saves through updateDocument,
// which rewrites its file unless the file no longer holds the text opened here (ifContentHash: a CONFLICT, not a loss).

import { type Api, ApiError } from "./api";
import { byId, fill, h } from "./dom";
import { renderMarkdown } from "./markdown";
import { resolver } from "./resolve";
import { DOCUMENT_FOR_EDIT, NOTE_FOR_EDIT, NOTE_TITLES, SAVE_NOTE, UPDATE_DOCUMENT } from "./queries";
import type { Item, Store } from "./store";
import { attempt, toastError, toastSuccess } from "./toast";

interface EditableNote extends Item {
  body: string;
  bodySha256: string;
}

interface EditableDocument extends Item {
  content: string;
  contentHash?: string | null; // of the text loaded here: updateDocument refuses the save if the file changed since
}

/** Document kinds the editor opens: text whose preview is markdown, or plain text. */
export const EDITABLE_DOC_TYPES = new Set(["markdown", "text"]);

interface SavePayload {
  saveNote: {
    created: boolean; changed: boolean; indexed: boolean; linksAdded: number; linksRemoved: number;
    note: EditableNote;
  };
}

interface Title {
  id: string;
  title: string;
  slug: string;
  kind: string;
}

export interface EditorActions {
  saved: (note: Item, created: boolean) => void;
  open: (id: string) => void;
}

const OPEN_LINK = /\[\[([^\]\[|#\n]{0,80})$/;

/** Pixel position of a textarea's caret, measured on an off-screen copy with the same text metrics. */
function caretPosition(area: HTMLTextAreaElement): { left: number; top: number; height: number } {
  const style = getComputedStyle(area);
  const mirror = document.createElement("div");
  for (const prop of ["fontFamily", "fontSize", "fontWeight", "lineHeight", "letterSpacing", "paddingTop", "paddingLeft",
    "paddingRight", "paddingBottom", "borderTopWidth", "borderLeftWidth", "boxSizing", "tabSize", "wordSpacing"] as const) {
    mirror.style[prop] = style[prop];
  }
  Object.assign(mirror.style, {
    position: "absolute", visibility: "hidden", whiteSpace: "pre-wrap", overflowWrap: "break-word",
    width: `${area.clientWidth}px`, top: "0", left: "-9999px",
  });
  mirror.textContent = area.value.slice(0, area.selectionStart);
  const marker = document.createElement("span");
  marker.textContent = "\u200b";
  mirror.append(marker);
  document.body.append(mirror);
  const pos = { left: marker.offsetLeft, top: marker.offsetTop - area.scrollTop, height: parseFloat(style.lineHeight) || 20 };
  mirror.remove();
  return pos;
}

export class NoteEditor {
  private readonly pane = byId("editor-pane");
  private readonly form = byId<HTMLFormElement>("editor-form");
  private readonly title = byId<HTMLInputElement>("editor-title");
  private readonly kind = byId<HTMLSelectElement>("editor-kind");
  private readonly text = byId<HTMLTextAreaElement>("editor-text");
  private readonly preview = byId("editor-preview");
  private readonly status = byId("editor-status");
  private readonly save = byId<HTMLButtonElement>("editor-save");
  private readonly popup = byId<HTMLUListElement>("autocomplete");
  private note: EditableNote | null = null;
  /** The text document open instead of a note, if one is. */
  private doc: EditableDocument | null = null;
  private dirty = false;
  private titles: Title[] = [];
  private titlesLoaded: Promise<void> | null = null;
  private matches: Title[] = [];
  private active = 0;
  private previewTimer = 0;

  constructor(private readonly api: Api, private readonly store: Store, private readonly actions: EditorActions) {
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.saveNote();
    });
    this.text.addEventListener("input", () => this.onInput());
    this.title.addEventListener("input", () => this.markDirty());
    this.kind.addEventListener("change", () => this.markDirty());
    this.text.addEventListener("keydown", (e) => this.onKey(e));
    this.text.addEventListener("blur", () => window.setTimeout(() => this.closePopup(), 150));
    this.text.addEventListener("click", () => this.updatePopup());
    this.pane.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") {
        e.preventDefault();
        void this.saveNote();
      }
    });
    this.preview.addEventListener("click", (e) => {
      const link = (e.target as HTMLElement).closest<HTMLAnchorElement>("a.wikilink, a.tag");
      if (!link) return;
      e.preventDefault();
      if (link.dataset.id) this.actions.open(link.dataset.id);
    });
    window.addEventListener("beforeunload", (e) => {
      if (this.dirty) e.preventDefault();
    });
    store.on("items", () => this.titlesLoaded && this.mergeStoreTitles());
  }

  get isDirty(): boolean {
    return this.dirty;
  }

  get noteId(): string | null {
    return this.note?.id ?? null;
  }

  /** Open a note for editing, or a blank one for a new note (titled `title`: an unresolved link being written). */
  async open(id: string | null, title = ""): Promise<void> {
    if (this.dirty && !window.confirm("Discard the unsaved changes of the note being edited?")) return;
    void this.loadTitles();
    if (!id) {
      this.note = null;
      this.showDocument(null);
      this.title.value = title;
      this.text.value = "";
      this.kind.value = "note";
      this.setClean(title ? `New note “${title}” — write it, then Save (Ctrl+S).` : "New note — write a title, then Save (Ctrl+S).");
      this.renderPreview();
      (title ? this.text : this.title).focus();
      return;
    }
    const data = await attempt("Opening the note", () => this.api.request<{ node: EditableNote | null }>(NOTE_FOR_EDIT, { id }));
    if (!data?.node) return;
    this.fillFrom(data.node);
    this.text.focus();
  }

  /** Reload the open note from the server when it changed elsewhere (a capture) and nothing is unsaved here. */
  async refreshIfOpen(note: EditableNote): Promise<void> {
    if (this.note?.id !== note.id || this.dirty) return;
    this.fillFrom(note);
  }

  /** Open a text document (docType markdown or text) for editing: its title and its file's text. */
  async openDocument(id: string): Promise<void> {
    if (this.dirty && !window.confirm("Discard the unsaved changes of the note being edited?")) return;
    void this.loadTitles();
    const data = await attempt("Opening the document",
      () => this.api.request<{ node: EditableDocument | null }>(DOCUMENT_FOR_EDIT, { id }));
    if (!data?.node) return;
    this.note = null;
    this.showDocument(data.node);
    this.title.value = data.node.title;
    this.text.value = data.node.content;
    this.setClean(`Editing the document ${data.node.path} — Save rewrites its file`);
    this.renderPreview();
    this.text.focus();
  }

  /** The editor shows this document (no kind: a document has a docType), or a note again with null. */
  private showDocument(doc: EditableDocument | null): void {
    this.doc = doc;
    this.kind.hidden = doc !== null;
    this.pane.dataset.editing = doc ? "document" : "note";
  }

  private fillFrom(note: EditableNote): void {
    this.showDocument(null);
    this.note = note;
    this.title.value = note.title;
    this.text.value = note.body;
    if (![...this.kind.options].some((o) => o.value === note.kind)) this.kind.append(h("option", { attrs: { value: note.kind ?? "note" }, text: note.kind ?? "note" }));
    this.kind.value = note.kind ?? "note";
    this.setClean(`Editing ${note.slug}`);
    this.renderPreview();
  }

  private setClean(message: string): void {
    this.dirty = false;
    this.save.disabled = false;
    this.pane.dataset.dirty = "false";
    this.status.textContent = message;
  }

  private markDirty(): void {
    if (!this.dirty) {
      this.dirty = true;
      this.pane.dataset.dirty = "true";
      this.status.textContent = "Unsaved changes";
    }
  }

  private onInput(): void {
    this.markDirty();
    this.updatePopup();
    window.clearTimeout(this.previewTimer);
    this.previewTimer = window.setTimeout(() => this.renderPreview(), 150);
  }

  private renderPreview(): void {
    if (!this.text.value.trim()) fill(this.preview, h("p", { class: "hint", text: "The preview shows here." }));
    else if (this.doc && this.doc.docType !== "markdown") fill(this.preview, h("pre", { class: "document-text", text: this.text.value }));
    else fill(this.preview, renderMarkdown(this.text.value, resolver(this.store)));
  }

  async saveNote(): Promise<void> {
    if (this.doc) return this.saveDocument(this.doc);
    const title = this.title.value.trim();
    if (!title) {
      toastError(new Error("A note needs a title"), "Saving the note");
      this.title.focus();
      return;
    }
    this.closePopup();
    const input: Record<string, unknown> = { title, body: this.text.value, kind: this.kind.value || "note" };
    if (this.note) {
      input.id = this.note.id;
      input.ifBodySha256 = this.note.bodySha256;
      input.scope = this.note.scope;
      if (this.note.agentId) input.agentId = this.note.agentId;
      if (this.note.teamId) input.teamId = this.note.teamId;
    }
    this.save.disabled = true;
    this.status.textContent = "Saving…";
    let result: SavePayload["saveNote"];
    try {
      result = (await this.api.request<SavePayload>(SAVE_NOTE, { input })).saveNote;
    } catch (err) {
      this.save.disabled = false;
      if (this.note && err instanceof ApiError && err.code === "CONFLICT" && err.errors[0]?.extensions?.id === this.note.id) {
        this.offerConflict(this.note.id);
        return;
      }
      this.status.textContent = "Not saved";
      toastError(err, "Saving the note");
      return;
    }
    this.note = result.note;
    const parts = [result.created ? "Created" : result.changed ? "Saved" : "No changes to save"];
    if (result.linksAdded || result.linksRemoved) parts.push(`${result.linksAdded} link${result.linksAdded === 1 ? "" : "s"} added, ${result.linksRemoved} removed`);
    if (!result.indexed) parts.push("not indexed for vector search yet");
    this.setClean(`${parts.join(" · ")} — ${new Date().toLocaleTimeString()}`);
    this.store.upsert([result.note]);
    this.actions.saved(result.note, result.created);
    toastSuccess(`${result.created ? "Created" : "Saved"} “${result.note.title}”`);
  }

  /** updateDocument with the title and the whole text: the document's file is rewritten and enriched again. */
  private async saveDocument(doc: EditableDocument): Promise<void> {
    const content = this.text.value;
    const title = this.title.value.trim();
    this.save.disabled = true;
    this.status.textContent = "Saving…";
    let saved: Item;
    try {
      const guard = doc.contentHash ? { ifContentHash: doc.contentHash } : {};
      saved = (await this.api.request<{ updateDocument: EditableDocument }>(UPDATE_DOCUMENT,
        { id: doc.id, input: { content, ...guard, ...(title && title !== doc.title ? { title } : {}) } })).updateDocument;
    } catch (err) {
      this.save.disabled = false;
      // CONFLICT: the file changed since it was opened here; the text stays in the editor, nothing is overwritten.
      this.status.textContent = err instanceof ApiError && err.code === "CONFLICT"
        ? "Not saved: the file changed since it was opened (open it again to see it; your text is still here)"
        : "Not saved";
      toastError(err, "Saving the document");
      return;
    }
    if (this.doc?.id !== doc.id) return; // another item was opened meanwhile
    this.showDocument({ ...saved, content });
    this.title.value = saved.title;
    this.setClean(`Saved ${saved.path} — ${new Date().toLocaleTimeString()}`);
    this.store.upsert([saved]);
    this.actions.saved(saved, false);
    toastSuccess(`Saved “${saved.title}”`);
  }

  /** The note changed on the server since it was opened here (another tab, an agent, a capture): say so, and let
   * the person take the saved version, overwrite it with theirs, or merge the two by hand. */
  private offerConflict(id: string): void {
    const latest = async (): Promise<EditableNote | null> => {
      const data = await attempt("Reading the saved note", () => this.api.request<{ node: EditableNote | null }>(NOTE_FOR_EDIT, { id }));
      return data?.node ?? null;
    };
    const button = (text: string, idName: string, act: (saved: EditableNote) => void) =>
      h("button", { class: "btn btn-small", text, attrs: { type: "button", id: idName }, on: { click: async () => {
        const saved = await latest();
        if (saved && this.note?.id === id) act(saved);
      } } });
    fill(this.status, h("span", { class: "conflict", attrs: { role: "alert", id: "editor-conflict" } },
      "Not saved: this note changed since you opened it. ",
      button("Reload the saved version", "conflict-reload", (saved) => this.fillFrom(saved)),
      " ",
      button("Overwrite with mine", "conflict-overwrite", (saved) => {
        this.note = saved; // the text stays this editor's; the save is now checked against what is stored
        void this.saveNote();
      }),
      " ",
      button("Merge by hand", "conflict-merge", (saved) => {
        const mine = this.text.value;
        this.note = saved; // the next save is checked against the version merged in
        this.text.value = `<<<<<<< yours\n${mine}\n=======\n${saved.body}\n>>>>>>> saved\n`;
        this.markDirty();
        this.renderPreview();
        this.status.textContent = "Both versions are in the text: keep what you want, remove the markers, then Save.";
        this.text.focus();
      })));
  }

  // --- [[ autocomplete ---------------------------------------------------------------------------------------

  private async loadTitles(): Promise<void> {
    this.titlesLoaded ??= (async () => {
      let after: string | null = null;
      for (let page = 0; page < 20; page++) {
        const data: { notes: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Title[] } } | null =
          await attempt("Loading note titles", () => this.api.request(NOTE_TITLES, { first: 100, after }));
        if (!data) break;
        this.titles.push(...data.notes.nodes);
        if (!data.notes.pageInfo.hasNextPage) break;
        after = data.notes.pageInfo.endCursor;
      }
      this.mergeStoreTitles();
    })();
    return this.titlesLoaded;
  }

  private mergeStoreTitles(): void {
    const known = new Set(this.titles.map((t) => t.id));
    for (const item of this.store.items.values()) {
      if (item.__typename === "Note" && !known.has(item.id)) {
        this.titles.push({ id: item.id, title: item.title, slug: item.slug ?? "", kind: item.kind ?? "note" });
      }
    }
  }

  private query(): string | null {
    const before = this.text.value.slice(0, this.text.selectionStart);
    if (this.text.selectionStart !== this.text.selectionEnd) return null;
    const m = OPEN_LINK.exec(before);
    return m ? m[1] : null;
  }

  private updatePopup(): void {
    const q = this.query();
    if (q === null) {
      this.closePopup();
      return;
    }
    void this.loadTitles().then(() => this.showMatches(q));
  }

  private showMatches(q: string): void {
    if (this.query() !== q) return;
    const needle = q.trim().toLowerCase();
    const own = this.note?.id;
    const scored = this.titles
      .filter((t) => t.id !== own)
      .map((t) => {
        const title = t.title.toLowerCase();
        const rank = !needle ? 2 : title.startsWith(needle) ? 0 : title.includes(needle) || t.slug.includes(needle) ? 1 : -1;
        return { t, rank };
      })
      .filter((x) => x.rank >= 0)
      .sort((a, b) => a.rank - b.rank || a.t.title.localeCompare(b.t.title))
      .slice(0, 8)
      .map((x) => x.t);
    this.matches = scored;
    this.active = 0;
    if (!scored.length) {
      fill(this.popup, h("li", { class: "ac-empty", text: needle ? `No note called “${q}” yet — it will be a ghost link until it exists` : "No notes yet" }));
    } else {
      fill(this.popup, scored.map((t, i) => h("li", {
        class: "ac-option", attrs: { role: "option", id: `ac-${i}`, "aria-selected": String(i === 0) },
        on: { mousedown: (e) => { e.preventDefault(); this.accept(i); } },
      }, h("span", { class: "ac-title", text: t.title }), h("span", { class: "ac-slug", text: t.slug }))));
    }
    const pos = caretPosition(this.text);
    const box = this.text.getBoundingClientRect();
    const host = this.pane.getBoundingClientRect();
    this.popup.style.left = `${Math.min(box.left - host.left + pos.left, box.width - 260)}px`;
    this.popup.style.top = `${box.top - host.top + pos.top + pos.height + 4}px`;
    this.popup.hidden = false;
    this.text.setAttribute("aria-expanded", "true");
    this.text.setAttribute("aria-activedescendant", scored.length ? "ac-0" : "");
  }

  private closePopup(): void {
    this.popup.hidden = true;
    this.matches = [];
    this.text.setAttribute("aria-expanded", "false");
  }

  private move(delta: number): void {
    if (!this.matches.length) return;
    this.active = (this.active + delta + this.matches.length) % this.matches.length;
    this.popup.querySelectorAll("li.ac-option").forEach((li, i) => li.setAttribute("aria-selected", String(i === this.active)));
    this.text.setAttribute("aria-activedescendant", `ac-${this.active}`);
  }

  /** Replace the typed `[[query` with the chosen title and close the brackets. */
  private accept(index: number): void {
    const choice = this.matches[index];
    if (!choice) return;
    const caret = this.text.selectionStart;
    const before = this.text.value.slice(0, caret);
    const after = this.text.value.slice(caret);
    const start = before.lastIndexOf("[[") + 2;
    const closing = after.startsWith("]]") ? "" : "]]";
    this.text.value = before.slice(0, start) + choice.title + closing + after;
    const at = start + choice.title.length + 2;
    this.text.setSelectionRange(at, at);
    this.closePopup();
    this.onInput();
    this.closePopup();
  }

  private onKey(e: KeyboardEvent): void {
    if (this.popup.hidden) return;
    if (e.key === "ArrowDown") this.move(1);
    else if (e.key === "ArrowUp") this.move(-1);
    else if ((e.key === "Enter" || e.key === "Tab") && this.matches.length) this.accept(this.active);
    else if (e.key === "Escape") this.closePopup();
    else return;
    e.preventDefault();
    e.stopPropagation();
  }
}
