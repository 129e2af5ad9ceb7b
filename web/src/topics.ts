// A document's topics in the detail pane: its sections as enrichment split them (`Document.topics`, by headings,
// the chat model, or length), each with its place in the heading tree and its keywords; a click scrolls the reading
// view to the section's heading when the rendered text has it. Empty until enrichment has run.

import type { Api } from "./api";
import type { Capabilities } from "./capabilities";
import { fill, h } from "./dom";
import { headingId } from "./markdown";
import { toastWarning } from "./toast";

export interface Topic {
  id: string;
  name: string;
  depth: number;
  path: string[];
  labels: string[];
}

const TOPICS = `query DocumentTopics($id: ID!) {
  node(id: $id) { ... on Document { topics(first: 100) { id name depth path labels } } }
}`;

/** The heading a topic was cut from: `Name (2/3)` is a part of the section `Name`. */
export function topicHeading(name: string): string {
  return name.replace(/ \(\d+\/\d+\)$/, "");
}

/** Scroll `root`'s reading view to the topic's section; false when the rendered text has no such heading. */
export function jumpToTopic(root: ParentNode, topic: Pick<Topic, "name" | "depth">): boolean {
  const view = root.querySelector<HTMLElement>("#reading-view");
  if (!view) return false;
  const target = view.querySelector<HTMLElement>(`[id="${CSS.escape(headingId(topicHeading(topic.name)))}"]`)
    ?? (topic.depth === 0 ? view : null); // the text before any heading starts the view
  if (!target) return false;
  target.scrollIntoView({ block: "start" });
  return true;
}

export class TopicsSection {
  constructor(private readonly api: Api, private readonly caps: Capabilities) {}

  /** The section for the document `id` (nothing on a server without Document.topics), filled once read. */
  render(id: string, root: ParentNode): HTMLElement | null {
    if (!this.caps.has("Document", "topics")) return null;
    const host = h("section", { class: "detail-section", attrs: { id: "document-topics", "aria-live": "polite" } },
      h("h3", { text: "Topics" }), h("p", { class: "hint", text: "Reading the topics…" }));
    void this.load(host, id, root);
    return host;
  }

  private async load(host: HTMLElement, id: string, root: ParentNode): Promise<void> {
    let topics: Topic[];
    try {
      const data = await this.api.request<{ node: { topics?: Topic[] } | null }>(TOPICS, { id });
      topics = data.node?.topics ?? [];
    } catch (err) {
      fill(host, h("h3", { text: "Topics" }), h("p", { class: "error-text", text: (err as Error).message }));
      return;
    }
    fill(host, h("h3", null, "Topics", h("span", { class: "count", text: String(topics.length), title: "Sections found by enrichment" })),
      topics.length ? h("ul", { class: "topics" }, topics.map((t) => this.row(t, root)))
        : h("p", { class: "hint", text: "No topics yet: enrichment splits the document into them." }));
  }

  private row(topic: Topic, root: ParentNode): HTMLLIElement {
    const within = topic.path.slice(1, -1); // the document's title first, the topic's own heading last
    const open = () => {
      if (!jumpToTopic(root, topic)) toastWarning(`“${topicHeading(topic.name)}” is not a heading of the text shown`);
    };
    return h("li", { class: "topic-row", data: { topicId: topic.id, depth: String(topic.depth) },
      attrs: { style: `margin-left:${Math.min(topic.depth, 4) * 12}px` } },
    h("button", { class: "link-button", text: topic.name, attrs: { type: "button" },
      title: within.length ? `In ${within.join(" › ")}` : "Show this section", on: { click: open } }),
    within.length ? h("span", { class: "topic-path", text: within.join(" › ") }) : null,
    topic.labels.length ? h("span", { class: "topic-labels" }, topic.labels.map((l) => h("span", { class: "chip-small", text: l }))) : null);
  }
}
