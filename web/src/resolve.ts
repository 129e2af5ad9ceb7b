// What a [[ref]] in rendered markdown points at. The server resolves links when a note is saved (Obsidian's rules,
// one parser); its answer, the note's outgoing links, comes first. Refs it has no edge for (an editor preview not
// saved yet, a note with more links than one page) fall back to the items the explorer has loaded, matched by the
// same keys: a note's slug or title, a document's path or file name, case-insensitive, `.md` optional.

import type { LinkTarget, Resolve } from "./markdown";
import type { Item, Link, Store } from "./store";

function key(ref: string): string {
  return ref.trim().toLowerCase().replace(/\.md$/, "");
}

function target(item: Pick<Item, "id" | "title" | "__typename" | "path" | "docType">): LinkTarget {
  return { id: item.id, title: item.title, kind: item.__typename, path: item.path, docType: item.docType };
}

export function resolver(store: Store, links: Link[] = []): Resolve {
  const fromEdges = new Map<string, LinkTarget>();
  for (const link of links) {
    if (!link.to || link.isGhost) continue;
    const known = store.items.get(link.to.id);
    const kind = (link.to.__typename ?? known?.__typename ?? "Note") as Item["__typename"];
    fromEdges.set(key(link.ref), target({ id: link.to.id, title: link.to.title ?? known?.title ?? link.ref, __typename: kind,
      path: known?.path, docType: known?.docType }));
  }
  let byName: Map<string, LinkTarget> | null = null;
  const loaded = (): Map<string, LinkTarget> => {
    if (byName) return byName;
    byName = new Map();
    for (const item of store.items.values()) {
      const names = item.__typename === "Note" ? [item.slug ?? "", item.title]
        : [item.path ?? "", (item.path ?? "").split("/").pop() ?? "", item.title];
      for (const name of names) if (name && !byName.has(key(name))) byName.set(key(name), target(item));
    }
    return byName;
  };
  return (ref) => fromEdges.get(key(ref)) ?? loaded().get(key(ref)) ?? null;
}
