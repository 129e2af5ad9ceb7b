// The folder tree: the folders of the loaded items (a document's path, a note's slug when it has folders, as
// `daily/…` does), nested, with counts and a sort (by name or by size). A folder filters the list, the graph and
// search like the chips do; its subfolders are in it.

import { byId, fill, h } from "./dom";
import { folderOf, type Store } from "./store";

interface Folder {
  name: string;
  path: string;
  count: number;
  children: Map<string, Folder>;
}

export class FolderPane {
  private readonly list = byId("folder-list");
  private readonly sort = byId<HTMLSelectElement>("folder-sort");

  constructor(private readonly store: Store) {
    store.on("items", () => this.render());
    store.on("filters", () => this.render());
    this.sort.addEventListener("change", () => this.render());
  }

  private tree(): Folder {
    const root: Folder = { name: "", path: "", count: 0, children: new Map() };
    for (const item of this.store.items.values()) {
      let node = root;
      const parts = folderOf(item).split("/").filter(Boolean);
      parts.forEach((part, i) => {
        let next = node.children.get(part);
        if (!next) node.children.set(part, next = { name: part, path: parts.slice(0, i + 1).join("/"), count: 0, children: new Map() });
        next.count++;
        node = next;
      });
    }
    return root;
  }

  render(): void {
    const current = this.store.filters.folder;
    const bySize = this.sort.value === "count";
    const order = (a: Folder, b: Folder) => (bySize ? b.count - a.count : 0) || a.name.localeCompare(b.name);
    const branch = (folder: Folder): HTMLElement => h("ul", { class: "folder-tree", attrs: { role: "group" } },
      [...folder.children.values()].sort(order).map((child) => h("li", null,
        h("button", { class: "folder", attrs: { type: "button", "aria-pressed": String(child.path === current) }, data: { folder: child.path },
          on: { click: () => this.store.setFilters({ folder: child.path === current ? "" : child.path }) } },
          child.name, h("span", { class: "count", text: String(child.count) })),
        child.children.size ? branch(child) : null)));
    const root = this.tree();
    fill(this.list, root.children.size ? branch(root) : h("p", { class: "hint", text: "No folders: every item is at the top." }));
  }
}
