// The reading view: a note (or a text document) rendered whole, its properties as a table, its ![[embeds]] filled
// in (notes, sections of notes, images from the vault), its links live (a resolved one opens the target, an
// unresolved one starts the note, hovering one previews it), and attachments shown as they are (an image, an SVG
// as an image, anything else as a download).

import type { Api } from "./api";
import { fill, formatBytes, h } from "./dom";
import { isImagePath, renderInline, renderMarkdown, renderSection, type Resolve, stripFrontmatter } from "./markdown";
import { resolver } from "./resolve";
import type { Link, Store } from "./store";

export interface ReadingActions {
  /** Open an item (and scroll to a heading of it). */
  open: (id: string, heading: string | null) => void;
  /** Start a note with this title: an unresolved link was clicked. */
  create: (title: string) => void;
  /** Filter the list by this tag. */
  tag: (tag: string) => void;
}

/** What an embed or a hover preview needs of its target. */
interface Source {
  __typename: "Note" | "Document";
  id: string;
  title: string;
  body?: string;
  path?: string;
  docType?: string;
  sizeBytes?: number;
}

const SOURCE = `query EmbedSource($id: ID!) { node(id: $id) { __typename id
  ... on Item { title } ... on Note { body } ... on Document { path docType sizeBytes } } }`;
const CONTENT = `query DocumentContent($id: ID!) { node(id: $id) { ... on Document { content } } }`;
/** Document kinds whose `content` is their text (the others are attachments: their bytes come from /files). */
const TEXT_TYPES = new Set(["markdown", "text", "json", "yaml", "csv", "tsv", "html"]);
/** How deep embeds open inside embeds (a note embedding itself stops at once). */
const EMBED_DEPTH = 2;
const PREVIEW_CHARS = 1500;
const HOVER_DELAY_MS = 350;
/** What shows a preview on hover: a wikilink (resolved or not), or an element naming its target. */
const PREVIEWABLE = "a.wikilink[data-id], a.wikilink.unresolved, [data-preview-id], [data-preview-missing]";

export function isAttachment(item: { docType?: string }): boolean {
  return item.docType !== undefined && !TEXT_TYPES.has(item.docType);
}

export class Reader {
  private readonly sources = new Map<string, Promise<Source | null>>();
  private readonly texts = new Map<string, Promise<string | null>>();
  private urls: string[] = [];
  private readonly popover = h("div", { class: "hover-preview markdown", attrs: { id: "hover-preview", role: "tooltip" }, hidden: true });
  private hoverTimer = 0;
  private hideTimer = 0;
  private hoverFor: HTMLElement | null = null;

  constructor(private readonly api: Api, private readonly store: Store, private readonly actions: ReadingActions) {
    document.body.append(this.popover);
    this.popover.addEventListener("mouseenter", () => window.clearTimeout(this.hideTimer));
    this.popover.addEventListener("mouseleave", () => this.hideSoon());
    this.wire(this.popover);
  }

  /** Forget what the last item loaded (object URLs of its images, cached bodies that may have changed). */
  reset(): void {
    for (const url of this.urls) URL.revokeObjectURL(url);
    this.urls = [];
    this.sources.clear();
    this.texts.clear();
    this.hide();
  }

  /** A note's reading view: properties, then the body with embeds. */
  note(body: string, frontmatter: Record<string, unknown> | null | undefined, links: Link[], selfId: string): HTMLElement {
    const resolve = resolver(this.store, links);
    const host = h("div", { class: "reading markdown", attrs: { id: "reading-view" } });
    const properties = this.properties(frontmatter ?? {}, resolve);
    if (properties) host.append(properties);
    if (stripFrontmatter(body).trim()) host.append(renderMarkdown(body, resolve));
    else host.append(h("p", { class: "hint", text: "Empty note." }));
    this.wire(host);
    void this.hydrate(host, resolve, 1, new Set([selfId]));
    return host;
  }

  /** A document's view: its text rendered (markdown) or shown as it is, an image, or a download. */
  document(item: Source, links: Link[]): HTMLElement {
    const host = h("div", { class: "reading markdown", attrs: { id: "reading-view" } });
    this.wire(host);
    void this.fillDocument(host, item, resolver(this.store, links), 1, new Set([item.id]));
    return host;
  }

  private properties(frontmatter: Record<string, unknown>, resolve: Resolve): HTMLElement | null {
    const entries = Object.entries(frontmatter);
    if (!entries.length) return null;
    const value = (v: unknown): Node => {
      if (Array.isArray(v)) {
        return h("span", { class: "property-list" }, v.map((x) => h("span", { class: "property-item" }, value(x))));
      }
      if (typeof v === "string") return renderInline(v, resolve);
      if (v === null || v === undefined) return document.createTextNode("");
      return document.createTextNode(typeof v === "object" ? JSON.stringify(v) : String(v));
    };
    return h("table", { class: "properties", attrs: { "aria-label": "Properties" } },
      h("tbody", null, entries.map(([k, v]) => h("tr", null, h("th", { text: k, attrs: { scope: "row" } }), h("td", null, value(v))))));
  }

  private async fillDocument(host: HTMLElement, item: Source, resolve: Resolve, depth: number, seen: Set<string>): Promise<void> {
    const path = item.path ?? "";
    if (isAttachment(item)) {
      fill(host, isImagePath(path) ? await this.image(item) : this.download(item));
      return;
    }
    const text = await this.text(item.id);
    if (text === null) {
      fill(host, h("p", { class: "error-text", text: "The file could not be read." }));
      return;
    }
    if (item.docType === "markdown") {
      fill(host, renderMarkdown(text, resolve));
      await this.hydrate(host, resolve, depth, seen);
    } else fill(host, text.trim() ? h("pre", { class: "document-text", text }) : h("p", { class: "hint", text: "Empty file." }));
  }

  private async image(item: Source): Promise<HTMLElement> {
    try {
      const url = URL.createObjectURL(await this.api.file(item.id));
      this.urls.push(url);
      return h("img", { class: "attachment-image", attrs: { src: url, alt: item.title } });
    } catch (err) {
      return h("p", { class: "error-text", text: `The image could not be loaded: ${(err as Error).message}` });
    }
  }

  private download(item: Source): HTMLElement {
    const name = (item.path ?? item.title).split("/").pop() ?? item.title;
    const button = h("button", { class: "btn", attrs: { type: "button", "data-download": item.id },
      text: `Download ${name}${item.sizeBytes !== undefined ? ` (${formatBytes(item.sizeBytes)})` : ""}` });
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const url = URL.createObjectURL(await this.api.file(item.id));
        const a = h("a", { attrs: { href: url, download: name } });
        document.body.append(a);
        a.click();
        a.remove();
        window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
      } catch (err) {
        button.after(h("p", { class: "error-text", text: (err as Error).message }));
      } finally {
        button.disabled = false;
      }
    });
    return h("p", { class: "attachment" }, button);
  }

  /** Fill the embeds of `host`: notes and sections inline (to EMBED_DEPTH), images as images. */
  private async hydrate(host: HTMLElement, resolve: Resolve, depth: number, seen: Set<string>): Promise<void> {
    const images = [...host.querySelectorAll<HTMLImageElement>("img[data-embed-target]")];
    const embeds = [...host.querySelectorAll<HTMLElement>("span.embed[data-embed-id]:not(.embed-filled)")];
    await Promise.all([
      ...images.map(async (img) => {
        const target = img.dataset.embedTarget ?? "";
        const hit = resolve(target) ?? resolve(target.split("/").pop() ?? "");
        if (!hit) {
          img.replaceWith(h("span", { class: "embed unresolved", text: img.alt || target, title: `No attachment called “${target}”` }));
          return;
        }
        const source = await this.source(hit.id);
        if (source) img.replaceWith(await this.image(source));
      }),
      ...embeds.map(async (el) => {
        const id = el.dataset.embedId ?? "";
        if (seen.has(id) || depth > EMBED_DEPTH) return; // the link it holds stays
        const source = await this.source(id);
        if (!source) return;
        const inner = h("div", { class: "embed-body" });
        if (source.__typename === "Note") {
          const heading = el.dataset.heading;
          const part = heading ? renderSection(source.body ?? "", heading, resolve) : renderMarkdown(source.body ?? "", resolve);
          inner.append(part ?? h("p", { class: "hint", text: `“${source.title}” has no heading “${heading}”.` }));
          await this.hydrate(inner, resolve, depth + 1, new Set([...seen, id]));
        } else await this.fillDocument(inner, source, resolve, depth + 1, new Set([...seen, id]));
        el.classList.add("embed-filled");
        el.append(inner);
      }),
    ]);
  }

  private source(id: string): Promise<Source | null> {
    let found = this.sources.get(id);
    if (!found) {
      found = this.api.request<{ node: Source | null }>(SOURCE, { id }).then((d) => d.node, () => null);
      this.sources.set(id, found);
    }
    return found;
  }

  private text(id: string): Promise<string | null> {
    let found = this.texts.get(id);
    if (!found) {
      found = this.api.request<{ node: { content?: string } | null }>(CONTENT, { id }).then((d) => d.node?.content ?? null, () => null);
      this.texts.set(id, found);
    }
    return found;
  }

  /** Clicks and hovers on the links of rendered markdown, delegated to its container. */
  private wire(host: HTMLElement): void {
    host.addEventListener("click", (e) => {
      const link = (e.target as HTMLElement).closest<HTMLAnchorElement>("a.wikilink, a.tag");
      if (!link || !host.contains(link)) return;
      e.preventDefault();
      this.hide();
      if (link.classList.contains("tag")) this.actions.tag(link.dataset.tag ?? "");
      else if (link.dataset.self) {
        const reading = link.closest(".reading") ?? host;
        reading.querySelector(`[id="${CSS.escape(link.getAttribute("href")?.slice(1) ?? "")}"]`)?.scrollIntoView({ block: "start" });
      } else if (link.dataset.id) this.actions.open(link.dataset.id, link.dataset.heading ?? null);
      else if (link.classList.contains("unresolved")) this.actions.create(link.dataset.target ?? link.textContent ?? "");
    });
    this.previews(host);
  }

  /** Hover (or focus) previews for the links of `host`: wikilinks of rendered markdown, and any element that names
   * its target with `data-preview-id` (a backlink row) or a name not written yet with `data-preview-missing`. */
  previews(host: HTMLElement): void {
    const enter = (e: Event) => {
      const link = (e.target as HTMLElement).closest<HTMLElement>(PREVIEWABLE);
      if (link && host.contains(link) && link !== this.hoverFor) this.hoverSoon(link);
    };
    const leave = (e: Event) => {
      if ((e.target as HTMLElement).closest(PREVIEWABLE)) this.hideSoon();
    };
    host.addEventListener("mouseover", enter);
    host.addEventListener("focusin", enter);
    host.addEventListener("mouseout", leave);
    host.addEventListener("focusout", leave);
  }

  private hoverSoon(link: HTMLElement): void {
    window.clearTimeout(this.hoverTimer);
    window.clearTimeout(this.hideTimer);
    this.hoverFor = link;
    this.hoverTimer = window.setTimeout(() => void this.preview(link), HOVER_DELAY_MS);
  }

  private hideSoon(): void {
    window.clearTimeout(this.hoverTimer);
    window.clearTimeout(this.hideTimer);
    this.hideTimer = window.setTimeout(() => this.hide(), 250);
  }

  private hide(): void {
    window.clearTimeout(this.hoverTimer);
    this.popover.hidden = true;
    this.hoverFor = null;
    if (document.activeElement instanceof HTMLElement && this.popover.contains(document.activeElement)) document.activeElement.blur();
  }

  /** Hide the preview if one shows; whether it did (Esc closes it before anything else). */
  dismiss(): boolean {
    if (this.popover.hidden) return false;
    this.hide();
    return true;
  }

  private async preview(link: HTMLElement): Promise<void> {
    const id = link.dataset.id ?? link.dataset.previewId;
    const source = id ? await this.source(id) : null;
    if (this.hoverFor !== link || !link.isConnected) return;
    if (!id) {
      const name = link.dataset.previewMissing ?? link.dataset.target ?? link.textContent ?? "";
      fill(this.popover, h("div", { class: "hover-title", text: name }),
        h("p", { class: "hint", text: "Not created yet: nothing has this name. Click the link to start the note." }));
    } else if (!source) {
      fill(this.popover, h("p", { class: "hint", text: "This item could not be loaded." }));
    } else {
      const resolve = resolver(this.store);
      const heading = link.dataset.heading;
      const body = source.__typename === "Note"
        ? (heading ? renderSection(source.body ?? "", heading, resolve) : null)
          ?? renderMarkdown(stripFrontmatter(source.body ?? "").slice(0, PREVIEW_CHARS), resolve)
        : isAttachment(source) ? (isImagePath(source.path ?? "") ? await this.image(source) : h("p", { class: "hint", text: source.path ?? "" }))
          : h("p", { class: "hint", text: source.path ?? "" });
      fill(this.popover, h("div", { class: "hover-title", text: source.title }), body);
    }
    const box = link.getBoundingClientRect();
    const width = 360;
    this.popover.style.left = `${Math.max(8, Math.min(window.innerWidth - width - 8, box.left))}px`;
    this.popover.style.top = `${Math.min(window.innerHeight - 120, box.bottom + 6)}px`;
    this.popover.style.width = `${width}px`;
    this.popover.hidden = false;
  }
}
