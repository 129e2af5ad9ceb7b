"""The in-memory model of one tenant's link graph: which notes, documents and typed links exist, and where every
[[wikilink]] of every body must point by Obsidian's rules. Pure: no I/O; the ids are the server's, learned as the
writes answer.

Bodies are parsed with the product's own parser (vaultgraph.text.wikilinks, which has conformance tests of its own);
resolution is written here again, independently of vaultgraph/text/resolve.py, from the design's words: that is
where this model earns its keep (resolution, ghosts, renames and deletes).

The choices made where the contract leaves room (design.md and issue 18):
- A note's vault path is its slug + ``.md`` (``projects/beta.md``): a note in a folder is saved with the slug
  ``<folder>/<title>``. Keys are slugs: the key of ``[[Gamma RAY#H|x]]`` is ``gamma-ray``.
- One WIKILINK edge per (source, key), however often the body names it; the first occurrence gives ``ref`` (the
  target exactly as authored: ``Gamma RAY``), ``label`` (alias) and ``heading``. ``[[T#^block]]`` has heading
  ``^block``.
- Resolution, a function of the current state only (never of the write order): notes first, by Obsidian's order
  (the exact vault path, else the source's own folder, else the shortest path ending in the key, ties
  alphabetical); failing a note, a document in GoClaw's order (exact path, path + ``.md``, basename, basename +
  ``.md``; case-insensitive, exact case first, then the shortest path).
- A link is a ghost exactly when its target does not exist or cannot be seen (design.md). An archived note exists
  and can be read (``node(id)``): links to it stay resolved and new links bind to it; it keeps its slug. Like the
  explorer, ``traverse``, ``graph`` and ``canvas`` leave archived items (and their edges) out.
- A hard-deleted note's inbound wikilinks re-resolve by the rules above: ghosts unless another note or document
  answers to their key (Obsidian shows ``[[Beta]]`` pointing at ``projects/Beta.md`` once ``Beta.md`` is gone).
- A rename (saveNote with the id, a new title and slug): with ``rewriteLinks`` (the default) every other note's
  wikilink that pointed at it is rewritten to point at it under the new name, alias, heading and embed kept,
  nothing else in the body touched (the renamed note's own self-links may or may not be); with
  ``rewriteLinks: false`` no body changes and the old links re-resolve (ghosts of the old name, or another note
  that answers to it).
- A typed link made by id stays with its target through renames. When its target is hard-deleted it becomes a
  ghost of its key ("loose"): from then on it may bind to an item that answers to that key, and must be a ghost
  while none does; which one it binds to is not predicted (the design gives typed ghosts no resolution order).
- A workspace document's text (``createDocument``, ``updateDocument(content)``) holds wikilinks like a note's body,
  resolved by the same rules from the document's own folder; enrichment syncs them (its WIKILINKS stage), so they
  are compared once the document's enrichment has finished. A rename with ``rewriteLinks`` rewrites them too.
- ``deleteLink`` of a wikilink the body holds is refused with ``LINK_OWNED_BY_BODY`` and changes nothing.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from vaultgraph.text.slugify import slugify
from vaultgraph.text.wikilinks import WikiLink, parse


def key_of(target: str) -> str:
    """The resolution key of a link target: its slug (a target with no letter or digit keeps its text)."""
    try:
        return slugify(target)
    except ValueError:
        return target.strip()


def note_slug(folder: str, title: str) -> str:
    return slugify(f"{folder}/{title}" if folder else title)


@dataclass
class Note:
    id: str
    folder: str
    title: str
    body: str
    archived: bool = False

    @property
    def slug(self) -> str:
        return note_slug(self.folder, self.title)


@dataclass
class Document:
    id: str
    path: str
    attachment: bool  # imported from a vault folder (exported again with the vault), not a workspace document
    content: str = ""  # the text of a workspace document (its [[wikilinks]] are synced by enrichment)

    @property
    def folder(self) -> str:
        """The folder its links are written in (``./`` and Obsidian's "the source's own folder" start there)."""
        return posixpath.dirname(self.path)

    @property
    def slug(self) -> str:  # what messages name it by
        return self.path

    @property
    def body(self) -> str:
        return "" if self.attachment else self.content

    def names(self) -> set[str]:
        """The keys that name it: path and basename, with and without suffix."""
        stem = posixpath.splitext(self.path)[0]
        return {key_of(name) for name in (self.path, stem, posixpath.basename(self.path), posixpath.basename(stem))}


@dataclass
class TypedLink:
    id: str
    source: str
    type: str
    target: str | None  # the item it was made to; None once that item was hard-deleted (then `key` names it)
    key: str


@dataclass(frozen=True)
class Expected:
    """One wikilink edge the body of `source` implies."""

    source: str
    key: str
    ref: str
    label: str | None
    heading: str | None
    target: str | None  # item id, None for a ghost


def body_links(body: str) -> list[WikiLink]:
    """The links a body holds, self-links (``[[#H]]``) left out (the generator writes none)."""
    return [link for link in parse(body).all_links if link.target]


def _heading(link: WikiLink) -> str | None:
    return f"^{link.block}" if link.block else link.heading


def resolve_note(key: str, folder: str, slugs: Iterable[str]) -> str | None:
    """Obsidian's order among note paths (slugs): exact path, else the source's folder, else the shortest."""
    candidates = sorted(s for s in slugs if s == key or s.endswith("/" + key))
    if key in candidates:
        return key
    beside = f"{folder}/{key}" if folder else key
    if beside in candidates:
        return beside
    return min(candidates, key=lambda s: (len(s), s)) if candidates else None


def resolve_document(target: str, paths: Iterable[str]) -> str | None:
    """GoClaw's order among document paths: exact path, path + .md, basename, basename + .md."""
    wanted = target.strip().removeprefix("./").lstrip("/")
    if not wanted:
        return None
    paths = list(paths)
    base = posixpath.basename(wanted)
    for name, by_base in ((wanted, False), (wanted + ".md", False), (base, True), (base + ".md", True)):
        hits = [p for p in paths if (posixpath.basename(p) if by_base else p).casefold() == name.casefold()]
        if hits:
            return min(hits, key=lambda p: ((posixpath.basename(p) if by_base else p) != name, len(p), p))
    return None


@dataclass
class Vault:
    """One tenant as it should be."""

    notes: dict[str, Note] = field(default_factory=dict)
    documents: dict[str, Document] = field(default_factory=dict)
    typed: dict[str, TypedLink] = field(default_factory=dict)

    def by_slug(self, slug: str) -> Note | None:
        return next((n for n in self.notes.values() if n.slug == slug), None)

    def by_path(self, path: str) -> Document | None:
        return next((d for d in self.documents.values() if d.path == path), None)

    def item_ids(self) -> set[str]:
        return set(self.notes) | set(self.documents)

    def active(self) -> set[str]:
        """Items the traversal and the graph view show."""
        return {i for i, n in self.notes.items() if not n.archived} | set(self.documents)

    def resolve(self, target: str, source_folder: str) -> str | None:
        """The item a link to `target` written in a note of `source_folder` points at, or None (a ghost)."""
        slugs = {n.slug: n.id for n in self.notes.values()}
        slug = resolve_note(key_of(target), source_folder, slugs)
        if slug is not None:
            return slugs[slug]
        paths = {d.path: d.id for d in self.documents.values()}
        path = resolve_document(target, paths)
        return paths[path] if path is not None else None

    def answers_to(self, key: str) -> set[str]:
        """Items a loose typed link keyed `key` may bind to."""
        notes = {i for i, n in self.notes.items() if n.slug == key or n.slug.endswith("/" + key)}
        return notes | {i for i, d in self.documents.items() if key in d.names()}

    def wikilinks(self, source: Note | Document) -> dict[str, Expected]:
        """key → the edge the note's body (a document's text) implies."""
        out: dict[str, Expected] = {}
        for link in body_links(source.body):
            key = key_of(link.target)
            if key not in out:
                out[key] = Expected(source.id, key, link.target, link.alias, _heading(link),
                                    self.resolve(link.target, source.folder))
        return out

    def sources(self) -> list[Note | Document]:
        """Every item whose text holds wikilinks: the notes and the workspace documents."""
        return [*self.notes.values(), *(d for d in self.documents.values() if not d.attachment)]

    def all_wikilinks(self) -> list[Expected]:
        return [e for source in self.sources() for e in self.wikilinks(source).values()]

    def hard_delete(self, note_id: str) -> None:
        del self.notes[note_id]
        for link_id, link in list(self.typed.items()):
            if link.source == note_id:
                del self.typed[link_id]
            elif link.target == note_id:
                link.target = None
