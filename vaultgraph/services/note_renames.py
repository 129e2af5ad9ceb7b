"""What a rename does to the links that name the renamed note: Obsidian's "automatically update internal links".

Every note whose [[link]] is bound to the renamed note by a name it no longer has gets that link's target
rewritten in its body (alias, heading, embed and `.md` kept; code never touched: text/link_edits.py), saved through
the pipeline in the rename's transaction (SHA, tags, the link diff, which binds the new name), whoever owns it: the
graph and the bodies must keep agreeing. A workspace document's text file that links to it by the old name is
rewritten the same way, its stored hash and its wikilinks following in the transaction. The links still naming the
old name after that (all of them when the caller asks not to rewrite) become ghosts of the old name, which bind
again when a note takes it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document, Item, Note, Principal
from vaultgraph.graph import documents as document_cypher
from vaultgraph.graph import items as item_cypher
from vaultgraph.graph import notes as cypher
from vaultgraph.services.note_drafts import NoteDraft
from vaultgraph.services.wikilink_sync import body_key, key_in, resolve_refs_many, sync_document_text
from vaultgraph.text.link_edits import Retarget, retarget_links
from vaultgraph.text.resolve import document_key, key_name, link_key, note_rank
from vaultgraph.text.wikilinks import WikiLink
from vaultgraph.workspace.files import Workspace, sha256_hex
from vaultgraph.workspace.formats import decode_text, is_text_name

log = structlog.get_logger(__name__)

# Saves drafts of existing notes in the transaction; the saved notes.
SaveDrafts = Callable[[AsyncManagedTransaction, Principal, list[NoteDraft]], Awaitable[list[Note]]]


def new_names(note: Note) -> tuple[str, str]:
    """The texts a link to the renamed `note` may take: its name (the title when it spells the slug's name,
    `New Name`, else that name) and its path (the name in the note's folders)."""
    folder, _, slug_name = note.slug.rpartition("/")
    name = note.title if link_key(note.title) == slug_name else slug_name
    return name, f"{folder}/{name}" if folder else name


def retarget(source: Item, keys: Collection[str], note: Note, bare: bool = True) -> Retarget:
    """For the links of `source` whose key is one of `keys` (the keys its edges to `note` no longer name it by):
    the new target text, the note's name where `bare` (the name alone leads there from `source`), else its path;
    a link written as a path keeps a path."""
    name, full = new_names(note)

    def new_target(link: WikiLink) -> str | None:
        if not link.target or body_key(source, link) not in keys:
            return None
        return full if "/" in link.target or not bare else name

    return new_target


async def names_lead_to(tx: AsyncManagedTransaction, sources: Sequence[Item], note: Note) -> dict[str, bool]:
    """Source id → whether the renamed note's bare name, written in that source, resolves to it: with another note
    that answers to that name first (one in the source's folder, a shorter path), Obsidian writes the path instead.
    One statement for all the sources."""
    name, full = new_names(note)
    if name == full:
        return {source.id: True for source in sources}
    keys = {source.id: key for source in sources if (key := key_in(source, name)) is not None}
    asked = [source for source in sources if source.id in keys]
    found = await resolve_refs_many(tx, [(source, [keys[source.id]]) for source in asked])
    leads = {source.id: refs.get(keys[source.id]) == note.id for source, refs in zip(asked, found, strict=True)}
    return {source.id: leads.get(source.id, False) for source in sources}


def _still_names(row: dict[str, Any], note: Note) -> bool:
    source_key = row["sourcePath"] if row["sourceIsNote"] else document_key(row["sourcePath"])
    return key_name(row["key"]) == key_name(note.slug) and note_rank(row["key"], source_key, note.slug) is not None


@dataclass(frozen=True, slots=True)
class DocumentFiles:
    """Where a rename rewrites the links in workspace documents' files, and the largest file it reads (the
    enrichment limit: a larger file was never enriched, so it holds no bound links unless it grew since)."""

    workspace: Workspace
    max_bytes: int


async def _rewrite_files(tx: AsyncManagedTransaction, files: DocumentFiles, tenant: str, note: Note,
                         keys: dict[str, set[str]]) -> None:
    """Rewrite the links to `note` in the text files of the documents `keys` names (id → stale keys), then their
    hash and wikilinks in `tx`. The file is written before the commit: should the commit fail, the next rescan
    finds the file changed and syncs its links from it, so file and graph meet again. A file grown past the limit
    is left alone, with a warning: its links become ghosts of the old name, as a rename without rewriting leaves
    them, and its next rescan skips it."""
    found = await item_cypher.items_by_ids(tx, tenant, sorted(keys))
    texts: dict[str, tuple[Document, Path, str]] = {}
    for document in found.values():
        if not isinstance(document, Document) or not is_text_name(document.path):
            continue
        target = files.workspace.file_for(tenant, document.owner, document.path)
        try:
            data = await files.workspace.read(target, files.max_bytes + 1)
        except FileNotFoundError:
            continue
        if len(data) > files.max_bytes:
            log.warning("rename left a file's links as ghosts: the file is over the limit", tenant=tenant,
                        path=document.path, max_bytes=files.max_bytes)
            continue
        text = decode_text(data)
        if text is not None:
            texts[document.id] = (document, target, text)
    bare = await names_lead_to(tx, [document for document, _, _ in texts.values()], note)
    for document, target, text in texts.values():
        new_text, changed = retarget_links(text, retarget(document, keys[document.id], note, bare[document.id]))
        if not changed:
            continue
        data = new_text.encode()
        await files.workspace.write(target, data)
        await document_cypher.set_content(tx, tenant, document.id, sha256_hex(data), len(data))
        await sync_document_text(tx, document, new_text)


async def follow_rename(
    tx: AsyncManagedTransaction, principal: Principal, note: Note, rewrite: bool, save: SaveDrafts,
    files: DocumentFiles | None = None,
) -> tuple[Note, ...]:
    """After `note` was renamed in `tx`: rewrite (when `rewrite`) and ghost the links to its old name, in notes and
    (given `files`) in documents' files; the notes rewritten."""
    tenant = principal.tenant_id
    stale = [row for row in await cypher.inbound_wikilinks(tx, tenant, note.id) if not _still_names(row, note)]
    rewritten: list[Note] = []
    if rewrite:
        keys: dict[str, set[str]] = {}
        document_keys: dict[str, set[str]] = {}
        for row in stale:
            (keys if row["sourceIsNote"] else document_keys).setdefault(row["sourceId"], set()).add(row["key"])
        if document_keys and files is not None:
            await _rewrite_files(tx, files, tenant, note, document_keys)
        stored = await cypher.notes_by_ids(tx, tenant, sorted(keys)) if keys else {}
        bare = await names_lead_to(tx, list(stored.values()), note)
        drafts: list[NoteDraft] = []
        for source in stored.values():
            body, changed = retarget_links(source.body, retarget(source, keys[source.id], note, bare[source.id]))
            if changed:
                drafts.append(NoteDraft(id=source.id, title=source.title, slug=source.slug, body=body,
                                        if_body_sha256=source.body_sha256, rewrite_links=False))
        rewritten = await save(tx, principal, drafts) if drafts else []
    if stale:  # a rewritten item's old edges are gone already; the others become ghosts
        await cypher.ghost_inbound(tx, tenant, note.id, [row["linkId"] for row in stale])
    return tuple(rewritten)
