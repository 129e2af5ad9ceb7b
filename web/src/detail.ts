// The detail panel: what an item is (title, summary, category, tags, enrichment stage), how it links (outgoing
// links and backlinks with their context), a form for a manual link, and, for notes, link suggestions to accept.

import type { Api } from "./api";
import { type Capabilities, typeString } from "./capabilities";
import { byId, fill, formatBytes, h, marked, relativeTime } from "./dom";
import { headingId } from "./markdown";
import { EDITABLE_DOC_TYPES } from "./editor";
import { MentionsSection } from "./mentions";
import { edgeStyle, stageClass, typeColor, typeLabel } from "./palette";
import { CREATE_LINK, DELETE_LINK, ITEM_DETAIL, LINK_TYPES, itemFieldsFor } from "./queries";
import { isAttachment, Reader } from "./reading";
import { type Item, type Link, type Store, typeKey } from "./store";
import { attempt, toastError, toastSuccess } from "./toast";
import { TopicsSection } from "./topics";

interface Detail extends Item {
  outgoing: { totalCount: number; nodes: Link[] };
  backlinks: { totalCount: number; nodes: Link[] };
  contentHash?: string;
  sizeBytes?: number;
  body?: string;
  frontmatter?: Record<string, unknown>;
  createdAt?: string;
  archivedAt?: string | null;
  createdByAgentId?: string | null;
}

export interface DetailActions {
  linkCreated: (link: Link) => void;
  linkDeleted: (id: string) => void;
  expand: (id: string) => Promise<number>;
  edit: (id: string) => void;
  /** Open a text document in the editor. */
  editDocument: (id: string) => void;
  /** Start a new note with this title (an unresolved link was clicked). */
  create: (title: string) => void;
  /** Filter the list by a tag (a #tag was clicked). */
  tag: (tag: string) => void;
}

type Suggestion = Record<string, unknown>;

const TERMINAL = new Set(["DONE", "FAILED", "SKIPPED"]);

export class DetailPanel {
  private readonly pane = byId("detail-pane");
  private readonly body = byId("detail-body");
  private current: Detail | null = null;
  private seq = 0;
  private readonly reader: Reader;
  private readonly mentions: MentionsSection;
  private readonly topics: TopicsSection;
  /** A heading to scroll to once the item opening now is drawn ([[Note#Heading]]). */
  private heading: string | null = null;

  constructor(private readonly api: Api, private readonly caps: Capabilities, private readonly store: Store,
              private readonly actions: DetailActions) {
    this.reader = new Reader(api, store, {
      open: (id, heading) => this.openAt(id, heading),
      create: (title) => actions.create(title),
      tag: (tag) => actions.tag(tag),
    });
    this.mentions = new MentionsSection(api, caps, store);
    this.topics = new TopicsSection(api, caps);
    this.mentions.linked = () => {
      if (!this.current) return;
      void actions.expand(this.current.id); // the new edge, into the graph
      this.reload();
    };
    store.on("select", (id) => void this.show(id));
    store.on("section", ({ id, heading }) => this.openAt(id, heading));
    store.on("item", (id) => this.onItemChanged(id));
    byId("detail-close").addEventListener("click", () => store.select(null));
  }

  async show(id: string | null): Promise<void> {
    const seq = ++this.seq;
    if (!id) {
      this.current = null;
      this.pane.hidden = true;
      document.body.classList.remove("has-detail");
      return;
    }
    this.pane.hidden = false;
    document.body.classList.add("has-detail");
    const cached = this.store.items.get(id);
    if (!this.current || this.current.id !== id) fill(this.body, h("p", { class: "hint", text: cached ? `Loading ${cached.title}…` : "Loading…" }));
    const data = await attempt("Opening the item", () => this.api.request<{ node: Detail | null }>(ITEM_DETAIL, { id }));
    if (seq !== this.seq) return;
    if (!data?.node) {
      // Only an item this page has seen can have gone; an id from a stale or mistyped URL never existed here.
      const text = !data ? "The item could not be loaded." : cached ? `“${cached.title}” no longer exists (deleted, or no longer visible to you).`
        : `No item has the id “${id}”. The link may be mistyped, or the item is not visible to you.`;
      fill(this.body, h("p", { class: "hint", text, attrs: { id: "detail-missing" } }));
      return;
    }
    // Each list leaves out the end that is this item; put it back so every link reads the same.
    const self = { __typename: data.node.__typename, id: data.node.id, title: data.node.title };
    for (const link of data.node.outgoing.nodes) link.from = self;
    for (const link of data.node.backlinks.nodes) link.to = self;
    // A new item, or this document's file rewritten (an edit): what the reader cached of the old one goes.
    if (this.current?.id !== data.node.id || this.current.contentHash !== data.node.contentHash) this.reader.reset();
    this.current = data.node;
    this.store.upsert([data.node], true);
    this.render(data.node);
    this.scrollToHeading();
    if (data.node.__typename === "Note") void this.loadSuggestions(data.node.id, seq);
  }

  private openAt(id: string, heading: string | null): void {
    this.heading = heading;
    if (this.store.selectedId === id) this.scrollToHeading();
    else this.store.select(id);
  }

  /** Scroll to the heading asked for; a document's text arrives after the panel is drawn, so wait a little for it. */
  private scrollToHeading(tries = 30): void {
    const heading = this.heading;
    if (!heading) return;
    const target = this.body.querySelector(`#reading-view [id="${CSS.escape(headingId(heading))}"]`);
    if (target || tries <= 0) {
      this.heading = null;
      target?.scrollIntoView({ block: "start" });
      return;
    }
    const seq = this.seq;
    window.setTimeout(() => { if (seq === this.seq) this.scrollToHeading(tries - 1); }, 100);
  }

  /** Esc closes the hover preview first, then the panel: one layer per key press. */
  dismissPreview(): boolean {
    return this.reader.dismiss();
  }

  reload(): void {
    if (this.current) void this.show(this.current.id);
  }

  private onItemChanged(id: string): void {
    if (!this.current || this.current.id !== id) return;
    const item = this.store.items.get(id);
    const stage = item?.enrichment?.stage;
    for (const badge of this.body.querySelectorAll<HTMLElement>("[data-stage-for]")) {
      if (stage && badge.dataset.stage !== stage) {
        badge.className = stageClass(stage);
        badge.textContent = stage.toLowerCase();
        badge.dataset.stage = stage;
        badge.title = item?.enrichment?.error ?? `Enrichment: ${stage.toLowerCase()}`;
      }
    }
    // A finished enrichment brings a summary, a category and maybe links: fetch them.
    if (stage && TERMINAL.has(stage) && this.current.enrichment?.stage !== stage) this.reload();
  }

  private render(item: Detail): void {
    const key = typeKey(item);
    const isDoc = item.__typename === "Document";
    const stage = item.enrichment?.stage;
    const owner = item.scope === "SHARED" ? "shared" : item.scope === "TEAM" ? `team ${item.teamId}` : `agent ${item.agentId}`;
    fill(this.body,
      h("div", { class: "detail-kind" },
        h("i", { class: "dot", attrs: { style: `background:${typeColor(key)}` } }),
        h("span", { text: isDoc ? `Document · ${typeLabel(key)}` : item.kind && item.kind !== "note" ? `Note · ${item.kind}` : "Note" })),
      h("h2", { class: "detail-title", text: item.title, attrs: { id: "detail-title", tabindex: "-1" } }),
      h("div", { class: "detail-meta" },
        h("span", { class: "mono", text: isDoc ? item.path ?? "" : item.slug ?? "" }),
        h("span", { text: owner }),
        item.updatedAt ? h("span", { text: `updated ${relativeTime(item.updatedAt)}`, title: item.updatedAt }) : null,
        isDoc && item.sizeBytes !== undefined ? h("span", { text: formatBytes(item.sizeBytes) }) : null),
      h("div", { class: "detail-badges" },
        stage ? h("span", { class: stageClass(stage), text: stage.toLowerCase(), data: { stageFor: item.id, stage },
          title: item.enrichment?.error ?? `Enrichment: ${stage.toLowerCase()}` }) : null,
        item.category ? h("span", { class: "badge", text: item.category, title: "Category" }) : null,
        !isDoc ? h("span", { class: item.indexed ? "badge" : "badge badge-warn", text: item.indexed ? "indexed" : "not indexed",
          title: item.indexed ? "Embedded for vector search" : "Saved, but no embedding model worked; keyword search still finds it" }) : null,
        item.archivedAt ? h("span", { class: "badge badge-warn", text: "archived" }) : null,
        item.createdByAgentId ? h("span", { class: "badge badge-agent", text: `written by agent ${item.createdByAgentId}`,
          attrs: { id: "detail-written-by" }, title: "Written through the API or MCP by this agent" }) : null),
      item.enrichment?.error ? h("p", { class: "error-text", text: item.enrichment.error }) : null,
      this.actionsRow(item),
      isDoc && !isAttachment(item) ? h("section", { class: "detail-section" }, h("h3", { text: "Summary" }),
        item.summary ? h("p", { class: "summary", text: item.summary })
          : h("p", { class: "hint", text: stage && !TERMINAL.has(stage) ? "The summary appears when enrichment gets there." : "No summary." }))
        : null,
      isDoc && !isAttachment(item) ? this.topics.render(item.id, this.body) : null, // an outline before the text
      h("section", { class: "detail-section" }, h("h3", { text: isDoc ? (isAttachment(item) ? "Attachment" : "Content") : "Note" }),
        isDoc ? this.reader.document({ __typename: "Document", id: item.id, title: item.title, path: item.path, docType: item.docType,
          sizeBytes: item.sizeBytes }, item.outgoing.nodes)
          : this.reader.note(item.body ?? "", item.frontmatter, item.outgoing.nodes, item.id)),
      item.tags?.length ? h("div", { class: "tags" }, item.tags.map((t) => h("span", { class: "tag", text: `#${t}` }))) : null,
      this.linkSection("Outgoing links", item.outgoing, "out"),
      this.linkSection("Backlinks", item.backlinks, "in"),
      item.__typename === "Note" ? this.mentions.render(item.id) : null,
      this.linkForm(item),
      item.__typename === "Note" ? h("section", { class: "detail-section", attrs: { id: "suggestions" } },
        h("h3", { text: "Suggested links" }), h("p", { class: "hint", text: "Looking for related notes…" })) : null,
    );
  }

  private actionsRow(item: Detail): HTMLElement {
    const expand = h("button", { class: "btn", text: "Expand neighbourhood", attrs: { type: "button", id: "detail-expand" },
      title: "Add this item's one-hop neighbours to the graph (or double-click the node)" });
    expand.addEventListener("click", async () => {
      expand.disabled = true;
      const added = await this.actions.expand(item.id);
      expand.disabled = false;
      expand.textContent = added ? `Expanded (+${added})` : "Expand neighbourhood";
    });
    const buttons: HTMLElement[] = [expand];
    if (item.__typename === "Note") {
      buttons.push(h("button", { class: "btn btn-primary", text: "Edit note", attrs: { type: "button", id: "detail-edit" },
        on: { click: () => this.actions.edit(item.id) } }));
    } else {
      if (item.docType && EDITABLE_DOC_TYPES.has(item.docType) && this.caps.inputFields("DocumentUpdateInput").some((f) => f.name === "content")) {
        buttons.push(h("button", { class: "btn btn-primary", text: "Edit document", attrs: { type: "button", id: "detail-edit" },
          on: { click: () => this.actions.editDocument(item.id) } }));
      }
      const field = this.caps.field("Mutation", "reenrich");
      const button = h("button", { class: "btn", text: "Re-enrich", attrs: { type: "button", id: "detail-reenrich" } });
      if (!field) {
        button.setAttribute("disabled", "");
        button.title = "Re-enrichment is not available on this server yet";
      } else button.addEventListener("click", () => void this.reenrich(item.id, button));
      buttons.push(button);
    }
    return h("div", { class: "detail-actions" }, buttons);
  }

  private async reenrich(id: string, button: HTMLButtonElement): Promise<void> {
    const type = this.caps.fieldTypeName("Mutation", "reenrich") ?? "";
    const kind = this.caps.kindOf(type);
    const selection = kind === "SCALAR" || kind === "ENUM" ? "" : `{ ${this.caps.selection(type)} }`;
    button.disabled = true;
    const done = await attempt("Re-enriching", () => this.api.request(`mutation Reenrich($ids: [ID!]) { reenrich(ids: $ids) ${selection} }`, { ids: [id] }));
    button.disabled = false;
    if (done) {
      toastSuccess("Queued for enrichment again");
      this.store.updateOne(id, { enrichment: { stage: "QUEUED", error: null, updatedAt: new Date().toISOString() } });
    }
  }

  private linkSection(title: string, links: { totalCount: number; nodes: Link[] }, direction: "out" | "in"): HTMLElement {
    const rows = links.nodes.map((link) => this.linkRow(link, direction));
    const more = links.totalCount > links.nodes.length ? h("li", { class: "hint", text: `…and ${links.totalCount - links.nodes.length} more` }) : null;
    const section = h("section", { class: "detail-section", data: { links: direction } },
      h("h3", null, title, h("span", { class: "count", text: String(links.totalCount) })),
      rows.length ? h("ul", { class: "links" }, rows, more)
        : h("p", { class: "hint", text: direction === "out" ? "No links from here yet." : "Nothing links here yet." }));
    this.reader.previews(section); // hovering a row's target previews it, as a link in the text does
    return section;
  }

  private linkRow(link: Link, direction: "out" | "in"): HTMLLIElement {
    const other = direction === "out" ? link.to : link.from;
    const style = edgeStyle(link.type);
    const target = other
      ? h("button", { class: "link-button", text: other.title ?? other.id, attrs: { type: "button" }, data: { previewId: other.id },
        on: { click: () => this.store.select(other.id) } })
      : h("span", { class: "ghost", text: `[[${link.ref}]]`, data: { previewMissing: link.ref ?? "" },
        title: "Unresolved: nothing has this name yet. Ghosts show here, never in the graph." });
    const remove = direction === "out" ? h("button", { class: "icon-button", text: "×", title: "Delete this link",
      attrs: { type: "button", "aria-label": `Delete the ${style.label} link to ${other?.title ?? link.ref}` },
      on: { click: () => void this.deleteLink(link) } }) : null;
    const origin = link.origin.toLowerCase() + (link.confidence !== null && link.confidence !== undefined ? ` · ${link.confidence.toFixed(2)}` : "");
    const classes = ["link-row", link.isGhost ? "ghost-row" : "", link.origin === "AGENT" ? "agent-row" : ""].filter(Boolean);
    return h("li", { class: classes.join(" "), data: { linkId: link.id, origin: link.origin } },
      h("div", { class: "link-head" },
        h("span", { class: "link-type", text: style.label, attrs: { style: `border-color:${style.color}` } }),
        direction === "out" ? "→" : "←", target, h("span", { class: "link-origin", text: origin }),
        link.origin === "AGENT" ? h("span", { class: "badge badge-agent", text: "agent", data: { agentLink: link.id },
          title: "Made by an agent (enrichment's classifier, or an agent's link_items)" }) : null, remove),
      link.context ? h("div", { class: "link-context" }, marked(link.context.replace(/!?\[\[[^\]]*\]\]/g, "**$&**"))) : null);
  }

  private async deleteLink(link: Link): Promise<void> {
    if (!window.confirm(`Delete the ${edgeStyle(link.type).label} link to “${link.to?.title ?? link.ref}”?`)) return;
    const done = await attempt("Deleting the link", () => this.api.request(DELETE_LINK, { id: link.id }));
    if (!done) return;
    this.actions.linkDeleted(link.id);
    toastSuccess("Link deleted");
    this.reload();
  }

  private linkForm(item: Detail): HTMLElement {
    const type = h("select", { attrs: { id: "link-type", "aria-label": "Link type" } },
      LINK_TYPES.map((t) => h("option", { attrs: { value: t }, text: edgeStyle(t).label })));
    const options = [...this.store.items.values()].filter((i) => i.id !== item.id)
      .map((i) => h("option", { attrs: { value: this.optionLabel(i) } }));
    const target = h("input", { attrs: { id: "link-target", list: "link-targets", placeholder: "Target: a title (or a name not written yet)",
      "aria-label": "Link target", autocomplete: "off", required: true } });
    const context = h("input", { attrs: { id: "link-context", placeholder: "Why (optional context)", "aria-label": "Context" } });
    const submit = h("button", { class: "btn btn-primary", text: "Create link", attrs: { type: "submit", id: "link-submit" } });
    const form = h("form", { class: "link-form", attrs: { id: "link-form" } },
      h("datalist", { attrs: { id: "link-targets" } }, options),
      h("div", { class: "row" }, type, target), h("div", { class: "row" }, context, submit));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const text = target.value.trim();
      if (!text) return;
      const match = [...this.store.items.values()].find((i) => i.id !== item.id && (this.optionLabel(i) === text || i.title === text));
      const input = {
        from: item.id, type: type.value, to: match?.id ?? null, ref: match ? null : text,
        context: context.value.trim() || null,
      };
      submit.disabled = true;
      try {
        const data = await this.api.request<{ createLink: Link }>(CREATE_LINK, { input });
        this.actions.linkCreated(data.createLink);
        toastSuccess(data.createLink.to ? `Linked to ${data.createLink.to.title}` : `Linked to “${text}” (unresolved until it exists)`);
        target.value = context.value = "";
        this.reload();
      } catch (err) {
        toastError(err, "Creating the link");
      } finally {
        submit.disabled = false;
      }
    });
    return h("section", { class: "detail-section" }, h("h3", { text: "New link" }), form);
  }

  private optionLabel(item: Item): string {
    return `${item.title} · ${item.__typename === "Document" ? item.path : item.slug}`;
  }

  private async loadSuggestions(id: string, seq: number): Promise<void> {
    const host = this.body.querySelector<HTMLElement>("#suggestions");
    if (!host) return;
    const field = this.caps.field("Note", "suggestions");
    if (!field) {
      fill(host, h("h3", { text: "Suggested links" }),
        h("p", { class: "hint", text: "Link suggestions are not available on this server yet." }));
      return;
    }
    const type = this.caps.fieldTypeName("Note", "suggestions") ?? "";
    const hasLimit = field.args.some((a) => a.name === "limit");
    const query = `query Suggestions($id: ID!) { node(id: $id) { ... on Note { suggestions${hasLimit ? "(limit: 8)" : ""} { ${this.suggestionSelection(type)} } } } }`;
    let suggestions: Suggestion[] = [];
    try {
      const data = await this.api.request<{ node: { suggestions?: Suggestion[] } | null }>(query, { id });
      suggestions = data.node?.suggestions ?? [];
    } catch (err) {
      if (seq !== this.seq) return;
      fill(host, h("h3", { text: "Suggested links" }), h("p", { class: "error-text", text: (err as Error).message }));
      return;
    }
    if (seq !== this.seq) return;
    const accept = this.caps.field("Mutation", "acceptSuggestion");
    fill(host, h("h3", null, "Suggested links", h("span", { class: "count", text: String(suggestions.length) })),
      suggestions.length ? h("ul", { class: "links" }, suggestions.map((s) => this.suggestionRow(id, s, !!accept)))
        : h("p", { class: "hint", text: "No suggestions: nothing similar that is not linked already." }),
      accept ? null : h("p", { class: "hint", text: "Accepting suggestions is not available on this server yet." }));
  }

  private suggestionSelection(type: string): string {
    const parts = [this.caps.selection(type)];
    for (const name of ["target", "item", "note", "to"]) {
      const inner = this.caps.fieldTypeName(type, name);
      if (inner && this.caps.has(inner, "title")) parts.push(`${name} { ${itemFieldsFor(inner)} }`);
    }
    return parts.join(" ");
  }

  private suggestionTarget(s: Suggestion): Item | null {
    for (const name of ["target", "item", "note", "to"]) {
      const v = s[name] as Item | undefined;
      if (v && typeof v === "object" && "id" in v) return v;
    }
    return null;
  }

  private suggestionRow(noteId: string, s: Suggestion, canAccept: boolean): HTMLLIElement {
    const target = this.suggestionTarget(s);
    const score = [s.score, s.similarity, s.confidence].find((v) => typeof v === "number") as number | undefined;
    const type = typeof s.type === "string" ? s.type : typeof s.linkType === "string" ? s.linkType : "RELATED";
    const button = h("button", { class: "btn btn-small", text: "Accept", attrs: { type: "button" } });
    if (!canAccept || !target) button.disabled = true;
    button.addEventListener("click", () => void this.accept(noteId, s, target, type, button));
    return h("li", { class: "link-row suggestion-row" },
      h("div", { class: "link-head" },
        h("span", { class: "link-type", text: edgeStyle(type).label,
          attrs: { style: `border-color:${edgeStyle(type).color}` } }),
        "→",
        target ? h("button", { class: "link-button", text: target.title, attrs: { type: "button" }, on: { click: () => this.store.select(target.id) } })
          : h("span", { text: "?" }),
        score !== undefined ? h("span", { class: "link-origin", text: `similarity ${score.toFixed(2)}` }) : null,
        button),
      typeof s.passage === "string" && s.passage ? h("div", { class: "link-context" }, marked(s.passage))
        : typeof s.reason === "string" ? h("div", { class: "link-context", text: s.reason }) : null);
  }

  /** acceptSuggestion's arguments are matched by name: the note, the target, the type. */
  private async accept(noteId: string, s: Suggestion, target: Item | null, type: string, button: HTMLButtonElement): Promise<void> {
    const field = this.caps.field("Mutation", "acceptSuggestion");
    if (!field || !target) return;
    const valueFor = (name: string): unknown => {
      if (/^(noteId|note|from|fromId|source|sourceId|id)$/i.test(name)) return noteId;
      if (/^(to|toId|target|targetId|item|itemId)$/i.test(name)) return target.id;
      if (/type/i.test(name)) return type;
      return s[name];
    };
    const vars: string[] = [];
    const pass: string[] = [];
    const values: Record<string, unknown> = {};
    for (const arg of field.args) {
      let t = arg.type;
      while (t.ofType) t = t.ofType;
      const inputFields = this.caps.inputFields(t.name ?? "");
      const value = inputFields.length
        ? Object.fromEntries(inputFields.map((f) => [f.name, valueFor(f.name)]).filter(([, v]) => v !== undefined))
        : valueFor(arg.name);
      if (value === undefined) continue;
      vars.push(`$${arg.name}: ${typeString(arg.type)}`);
      pass.push(`${arg.name}: $${arg.name}`);
      values[arg.name] = value;
    }
    const returned = this.caps.fieldTypeName("Mutation", "acceptSuggestion") ?? "";
    const kind = this.caps.kindOf(returned);
    const selection = kind === "SCALAR" || kind === "ENUM" ? "" : `{ ${this.caps.selection(returned)} }`;
    button.disabled = true;
    const done = await attempt("Accepting the suggestion",
      () => this.api.request<Record<string, unknown>>(`mutation Accept(${vars.join(", ")}) { acceptSuggestion(${pass.join(", ")}) ${selection} }`, values));
    if (!done) {
      button.disabled = false;
      return;
    }
    toastSuccess(`Linked to ${target.title}`);
    const link = done.acceptSuggestion as Partial<Link> | undefined;
    if (link && typeof link === "object" && link.id && link.from && link.to) this.actions.linkCreated(link as Link);
    else await this.actions.expand(noteId); // the payload is not a link: fetch the new edge with the neighbourhood
    this.reload();
  }
}

