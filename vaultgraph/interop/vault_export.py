"""Export to an Obsidian vault: every note the caller sees (archived ones too) as a markdown file, every document as
its file, typed links in each note's and markdown document's frontmatter (interop/vault_meta.py; those of other
files in the vault's `.vaultgraph/links.json`), names from interop/names.py made unique.

A file that cannot be written (a name the file system refuses, a folder in its way, a document whose file is gone) is
skipped and reported with why; the rest is written. A title no file name can carry (a NUL, a `:`) is kept in the
frontmatter, so nothing is lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from vaultgraph.domain import Document, Item, Link, LinkOrigin, Note, Principal
from vaultgraph.interop import vault_meta
from vaultgraph.interop.names import is_markdown, split_owner, unique_names, vault_file
from vaultgraph.services.documents import MAX_FILE_BYTES, DocumentFilter, DocumentService, title_from
from vaultgraph.services.links import LinkService
from vaultgraph.services.notes import NoteFilter, NoteService
from vaultgraph.services.wikilink_sync import canonical_ref
from vaultgraph.text.slugify import slugify

PAGE = 100


@dataclass
class ExportReport:
    written: list[str] = field(default_factory=list)  # notes
    attachments: list[str] = field(default_factory=list)  # documents
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (the name it would have had, the name written)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)


def _write_inside(root: Path, relative: str, data: bytes) -> None:
    """Write `data` at `relative` under `root`; ValueError for a path that resolves outside it (or holds a NUL),
    OSError for one the file system refuses."""
    target = (root / relative).resolve()
    if not target.is_relative_to(root):
        raise ValueError("the name leads outside the export folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def _why(exc: Exception) -> str:
    return f"cannot write it: {exc}"


def _slug_or_none(text: str) -> str | None:
    try:
        return slugify(text)
    except ValueError:  # no slug at all: the note's own slug must be written out
        return None


def note_meta(note: Note, relative: str, links: list[dict[str, Any]]) -> dict[str, Any]:
    """The `vaultgraph:` key for `note` written at `relative`: only what the file would not give back alone."""
    _, inner = split_owner(relative)
    own = vault_meta.from_properties(note.frontmatter)
    meta: dict[str, Any] = {}
    if note.title != PurePosixPath(inner).stem:
        meta["title"] = note.title
    if note.slug != _slug_or_none(inner[:-3]):
        meta["slug"] = note.slug
    if note.kind != (own.kind or "note"):
        meta["kind"] = note.kind
    if note.note_date != own.note_date:
        meta["date"] = note.note_date.isoformat() if note.note_date else None
    if note.pinned != bool(own.pinned):
        meta["pinned"] = note.pinned
    if note.archived_at is not None:
        meta["archived"] = True  # the state; when it was archived is not kept (import archives it anew)
    if links:
        meta["links"] = links
    return meta


def link_entry(link: Link, files: dict[str, str]) -> dict[str, Any]:
    """A typed link as the frontmatter holds it: its type, the file it points at (or its ref while a ghost, or
    when it was made by a ref other than the target's own), and the properties it has."""
    entry: dict[str, Any] = {"type": link.type}
    target = files.get(link.target_id) if link.target_id else None
    if target is not None:
        entry["to"] = target
    if target is None or (link.target is not None and link.ref != canonical_ref(link.target)):
        entry["ref"] = link.ref
    for name in ("label", "heading", "context", "confidence"):
        if getattr(link, name) is not None:
            entry[name] = getattr(link, name)
    return entry


class VaultExporter:
    def __init__(self, notes: NoteService, documents: DocumentService, links: LinkService) -> None:
        self.notes = notes
        self.documents = documents
        self.links = links

    async def export(self, principal: Principal, root: Path,
                     progress: Callable[[int, int, str], None] | None = None) -> ExportReport:
        """Write the files; `progress(done, total, file)` after each."""
        root = await asyncio.to_thread(root.resolve)
        await asyncio.to_thread(root.mkdir, parents=True, exist_ok=True)
        items: list[Item] = [*await self._documents(principal), *await self._notes(principal)]
        # Documents first (a path is a document's identity), then notes; within each, a stable order, so the same
        # graph always gives the same names.
        items.sort(key=lambda i: (isinstance(i, Note), vault_file(i).casefold(), i.id))
        wanted = [vault_file(item) for item in items]
        report = ExportReport()
        files: dict[str, str] = {}
        for item, want, name in zip(items, wanted, unique_names(wanted), strict=True):
            files[item.id] = name
            if name != want:
                report.renamed.append((want, name))
        typed = await self._typed_links(principal, [item.id for item in items])
        unfenced: dict[str, list[dict[str, Any]]] = {}  # files with no frontmatter for their typed links
        for done, item in enumerate(items, 1):
            relative = files[item.id]
            if progress is not None:
                progress(done, len(items), relative)
            links = [link_entry(link, files) for link in typed.get(item.id, [])]
            try:
                if isinstance(item, Note):
                    text = vault_meta.add_block(item.body, note_meta(item, relative, links))
                    await asyncio.to_thread(_write_inside, root, relative, text.encode("utf-8"))
                    report.written.append(relative)
                else:
                    data = await self._document_file(principal, item, relative, links)
                    await asyncio.to_thread(_write_inside, root, relative, data)
                    report.attachments.append(relative)
                    if links and not is_markdown(relative):
                        unfenced[relative] = links
            except (OSError, ValueError) as exc:
                report.skipped.append((relative, _why(exc)))
        if unfenced:
            try:
                await asyncio.to_thread(_write_inside, root, vault_meta.LINKS_FILE, vault_meta.links_file(unfenced))
            except (OSError, ValueError) as exc:
                report.skipped.extend((relative, f"its typed links: {_why(exc)}") for relative in unfenced)
        return report

    async def _notes(self, principal: Principal) -> list[Note]:
        notes: list[Note] = []
        after = None
        while True:
            page = await self.notes.page(principal, NoteFilter(include_archived=True), PAGE, after)
            notes.extend(note for _, note in page.items)
            if not page.has_next_page:
                return notes
            after = page.items[-1][0]

    async def _documents(self, principal: Principal) -> list[Document]:
        documents: list[Document] = []
        after = None
        while True:
            page = await self.documents.page(principal, DocumentFilter(), PAGE, after)
            documents.extend(document for _, document in page.items)
            if not page.has_next_page:
                return documents
            after = page.items[-1][0]

    async def _document_file(self, principal: Principal, document: Document, relative: str,
                             links: list[dict[str, Any]]) -> bytes:
        """The document's file; a markdown one gets `document: true` in its frontmatter, so import makes it a
        document again rather than a note (and its title, when the file would not give it back, and its typed
        links; another file's typed links go to the vault's links file)."""
        workspace = self.documents.workspace
        data = await workspace.read(workspace.file_for(principal.tenant_id, document.owner, document.path),
                                    MAX_FILE_BYTES)
        if not is_markdown(relative):
            return data
        text = data.decode("utf-8")
        meta: dict[str, Any] = {"document": True}
        if document.title != title_from(document.path, text):
            meta["title"] = document.title
        if links:
            meta["links"] = links
        return vault_meta.add_block(text, meta).encode("utf-8")

    async def _typed_links(self, principal: Principal, note_ids: Sequence[str]) -> dict[str, list[Link]]:
        """Each item's outgoing links that its text does not make (createLink, accepted suggestions…)."""
        found: dict[str, list[Link]] = {}
        for start in range(0, len(note_ids), PAGE):
            todo: dict[str, str | None] = dict.fromkeys(note_ids[start : start + PAGE])
            while todo:
                after = next(iter(todo.values()))
                ids = [i for i, a in todo.items() if a == after]
                pages = await self.links.pages(principal, ids, True, None, self.links.max_page_size, after)
                for item_id in ids:
                    page = pages.get(item_id)
                    found.setdefault(item_id, []).extend(
                        link for _, link in (page.items if page else []) if link.origin is not LinkOrigin.WIKILINK)
                    if page is not None and page.has_next_page:
                        todo[item_id] = page.items[-1][0]
                    else:
                        del todo[item_id]
        return found
