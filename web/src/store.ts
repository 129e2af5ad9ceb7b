// Shared state of the explorer: the items loaded so far, the selection and the filters. Panes talk through it
// (events), never to each other, so each one can be read alone.

export type Stage =
  | "QUEUED" | "PREPARE" | "SUMMARIZE" | "EMBED" | "CLASSIFY" | "WIKILINKS" | "DONE" | "FAILED" | "SKIPPED";

export interface Item {
  __typename: "Document" | "Note";
  id: string;
  title: string;
  scope: "PERSONAL" | "TEAM" | "SHARED";
  agentId: string | null;
  teamId: string | null;
  updatedAt?: string;
  // Document
  path?: string;
  docType?: string;
  summary?: string | null;
  category?: string | null;
  enrichment?: { stage: Stage; error: string | null; updatedAt: string | null };
  // Note
  slug?: string;
  kind?: string;
  tags?: string[];
  indexed?: boolean;
  noteDate?: string | null;
  pinned?: boolean;
}

export interface LinkRef {
  __typename?: string;
  id: string;
  title?: string;
}

export interface Link {
  id: string;
  type: string;
  ref: string;
  label: string | null;
  heading: string | null;
  context: string | null;
  origin: string;
  confidence: number | null;
  isGhost: boolean;
  createdAt?: string;
  from: LinkRef;
  to: LinkRef | null;
}

export interface Filters {
  /** Type keys shown (`note`, or a document's docType); empty = all. */
  types: Set<string>;
  scope: "" | Item["scope"];
  agent: string;
  team: string;
  /** Only items with this tag (or a nested tag under it: `a` takes `a/b`); empty = all. */
  tag: string;
  /** Only items in this folder or below it (`guides` takes `guides/setup.md`); empty = all. */
  folder: string;
}

export interface PathStep {
  linkId?: string;
  type?: string;
  fromId: string;
  toId: string;
}

type Events = {
  items: void;
  item: string;
  select: string | null;
  filters: void;
  path: { hitId: string; steps: PathStep[]; label?: string } | null;
  edit: string | null;
  /** Open an item at one of its sections (a search hit's topic): the detail scrolls to that heading. */
  section: { id: string; heading: string };
};

type Listener<T> = (value: T) => void;

/** The colour-and-chip key of an item: a note's kind folds to "note" (daily notes keep theirs), else the docType. */
export function typeKey(item: Pick<Item, "__typename" | "kind" | "docType">): string {
  if (item.__typename === "Note") return item.kind === "daily" ? "daily" : "note";
  return item.docType ?? "document";
}

/** The folder an item sits in: a document's path without its file name, a note's slug without its last part. */
export function folderOf(item: Pick<Item, "__typename" | "path" | "slug">): string {
  const where = (item.__typename === "Document" ? item.path : item.slug) ?? "";
  return where.includes("/") ? where.slice(0, where.lastIndexOf("/")) : "";
}

/** Whether the item carries `tag` or a tag nested under it, case-insensitive (Obsidian's tag search). */
export function hasTag(item: Pick<Item, "tags">, tag: string): boolean {
  const want = tag.toLowerCase();
  return (item.tags ?? []).some((t) => {
    const have = t.toLowerCase();
    return have === want || have.startsWith(`${want}/`);
  });
}

export class Store {
  readonly items = new Map<string, Item>();
  selectedId: string | null = null;
  filters: Filters = { types: new Set(), scope: "", agent: "", team: "", tag: "", folder: "" };
  private readonly listeners = new Map<keyof Events, Listener<never>[]>();

  on<K extends keyof Events>(event: K, fn: Listener<Events[K]>): void {
    const list = this.listeners.get(event) ?? [];
    list.push(fn as Listener<never>);
    this.listeners.set(event, list);
  }

  emit<K extends keyof Events>(event: K, value: Events[K]): void {
    for (const fn of (this.listeners.get(event) ?? []) as Listener<Events[K]>[]) {
      try {
        fn(value);
      } catch (err) {
        console.error(`explorer: a ${event} listener failed`, err);
      }
    }
  }

  /** Merge items (a fresher copy wins field by field) and tell the panes once. */
  upsert(items: Item[], quiet = false): void {
    for (const item of items) this.items.set(item.id, { ...this.items.get(item.id), ...item });
    if (!quiet) this.emit("items", undefined);
  }

  updateOne(id: string, patch: Partial<Item>): void {
    const current = this.items.get(id);
    if (!current) return;
    this.items.set(id, { ...current, ...patch });
    this.emit("item", id);
  }

  remove(id: string): void {
    if (this.items.delete(id)) this.emit("items", undefined);
    if (this.selectedId === id) this.select(null);
  }

  select(id: string | null): void {
    if (this.selectedId === id) return;
    this.selectedId = id;
    this.emit("select", id);
  }

  setFilters(patch: Partial<Filters>): void {
    this.filters = { ...this.filters, ...patch };
    this.emit("filters", undefined);
  }

  matches(item: Item): boolean {
    const f = this.filters;
    if (f.types.size && !f.types.has(typeKey(item))) return false;
    if (f.scope && item.scope !== f.scope) return false;
    if (f.agent && item.agentId !== f.agent) return false;
    if (f.team && item.teamId !== f.team) return false;
    if (f.tag && !hasTag(item, f.tag)) return false;
    if (f.folder && !`${folderOf(item)}/`.startsWith(`${f.folder}/`)) return false;
    return true;
  }
}
