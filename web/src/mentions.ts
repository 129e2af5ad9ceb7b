// Unlinked mentions in the detail pane (Obsidian's backlinks pane): the notes that write this note's title or an
// alias as plain text, each mention with its snippet and a "Link" button that turns it into the [[wikilink]] the
// server offers, saved through saveNote with the hash of the body the mention was read in (an edit made meanwhile
// answers CONFLICT, and the list is read again: no text is lost).

import { type Api, ApiError } from "./api";
import type { Capabilities } from "./capabilities";
import { fill, h, marked } from "./dom";
import { NOTE_FIELDS, SAVE_NOTE } from "./queries";
import type { Item, Store } from "./store";
import { toastError, toastSuccess } from "./toast";

interface TextMention { start: number; end: number; text: string; snippet: string; link: string }
interface Source extends Item { body: string; bodySha256: string }
interface UnlinkedMention { from: Source; count: number; mentions: TextMention[] }
interface MentionPage {
  node: { unlinkedMentions: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: UnlinkedMention[] } } | null;
}

const PAGE = 20;
const MENTIONS = `query UnlinkedMentions($id: ID!, $first: Int, $after: String) {
  node(id: $id) { ... on Note { unlinkedMentions(first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { count from { ${NOTE_FIELDS} body bodySha256 } mentions { start end text snippet link } }
  } } }
}`;

/** `body` with the characters `start` to `end` (Unicode code points, as the API counts them) replaced by `link`;
 * null when they no longer read `text` (the offsets are not this body's). */
export function replaceMention(body: string, mention: TextMention, link: string): string | null {
  const chars = Array.from(body);
  if (chars.slice(mention.start, mention.end).join("") !== mention.text) return null;
  return chars.slice(0, mention.start).join("") + link + chars.slice(mention.end).join("");
}

export class MentionsSection {
  /** Called after a mention became a link (the note that now links here, saved). */
  linked: (noteId: string) => void = () => {};

  constructor(private readonly api: Api, private readonly caps: Capabilities, private readonly store: Store) {}

  /** The section for the note `id`, filled once its first page is read. */
  render(id: string): HTMLElement {
    const host = h("section", { class: "detail-section", attrs: { id: "unlinked-mentions", "aria-live": "polite" } },
      h("h3", { text: "Unlinked mentions" }), h("p", { class: "hint", text: "Looking for mentions…" }));
    if (!this.caps.field("Note", "unlinkedMentions")) {
      fill(host, h("h3", { text: "Unlinked mentions" }), h("p", { class: "hint", text: "Unlinked mentions are not available on this server yet." }));
    } else void this.load(host, id);
    return host;
  }

  private async load(host: HTMLElement, id: string, after: string | null = null, shown: UnlinkedMention[] = []): Promise<void> {
    let page: NonNullable<MentionPage["node"]>["unlinkedMentions"];
    try {
      const data = await this.api.request<MentionPage>(MENTIONS, { id, first: PAGE, after });
      if (!data.node) return;
      page = data.node.unlinkedMentions;
    } catch (err) {
      fill(host, h("h3", { text: "Unlinked mentions" }), h("p", { class: "error-text", text: (err as Error).message }));
      return;
    }
    const all = [...shown, ...page.nodes];
    this.store.upsert(page.nodes.map((m) => m.from));
    const more = page.pageInfo.hasNextPage && page.pageInfo.endCursor
      ? h("button", { class: "btn btn-small", text: "More mentions", attrs: { type: "button", id: "mentions-more" },
        on: { click: () => void this.load(host, id, page.pageInfo.endCursor, all) } })
      : null;
    const count = all.length + (page.pageInfo.hasNextPage ? "+" : "");
    fill(host, h("h3", null, "Unlinked mentions", h("span", { class: "count", text: count, title: "Notes that mention this one without linking it" })),
      all.length ? h("ul", { class: "links" }, all.map((m) => this.row(host, id, m)))
        : page.pageInfo.hasNextPage ? null : h("p", { class: "hint", text: "No note mentions this one without linking it." }),
      more);
  }

  private row(host: HTMLElement, id: string, found: UnlinkedMention): HTMLLIElement {
    const rest = found.count - found.mentions.length;
    return h("li", { class: "link-row mention-row", data: { mentionFrom: found.from.id } },
      h("div", { class: "link-head" },
        h("button", { class: "link-button", text: found.from.title, attrs: { type: "button" },
          on: { click: () => this.store.select(found.from.id) } }),
        h("span", { class: "link-origin", text: `${found.count} mention${found.count === 1 ? "" : "s"}` })),
      h("ul", { class: "mentions" }, found.mentions.map((mention) => {
        const button = h("button", { class: "btn btn-small", text: "Link", title: `Replace “${mention.text}” with ${mention.link}`,
          attrs: { type: "button", "aria-label": `Link this mention of “${mention.text}” in ${found.from.title}` } });
        button.addEventListener("click", () => void this.link(host, id, found.from, mention, button));
        return h("li", { class: "mention" }, h("span", { class: "link-context" }, marked(mention.snippet)), button);
      }), rest > 0 ? h("li", { class: "hint", text: `…and ${rest} more in this note` }) : null));
  }

  private async link(host: HTMLElement, id: string, source: Source, mention: TextMention, button: HTMLButtonElement): Promise<void> {
    const body = replaceMention(source.body, mention, mention.link);
    if (body === null) {
      toastError(new Error("The note changed: the mentions are read again"), "Linking the mention");
      void this.load(host, id);
      return;
    }
    const input: Record<string, unknown> = { id: source.id, title: source.title, body, ifBodySha256: source.bodySha256, scope: source.scope };
    if (source.agentId) input.agentId = source.agentId;
    if (source.teamId) input.teamId = source.teamId;
    button.disabled = true;
    try {
      const saved = await this.api.request<{ saveNote: { note: Item } }>(SAVE_NOTE, { input });
      this.store.upsert([saved.saveNote.note]);
      toastSuccess(`Linked “${mention.text}” in ${source.title}`);
      this.linked(source.id);
    } catch (err) {
      if (err instanceof ApiError && err.code === "CONFLICT") {
        // The button stays disabled: it carries the old text's hash, and the list read again replaces it.
        toastError(new Error(`“${source.title}” changed since its mentions were read; they are read again, nothing was saved`), "Linking the mention");
        void this.load(host, id);
        return;
      }
      button.disabled = false;
      toastError(err, "Linking the mention");
    }
  }
}
