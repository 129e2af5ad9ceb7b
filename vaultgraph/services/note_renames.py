"""What a rename does to the links that name the renamed note: Obsidian's "automatically update internal links".

Every note whose [[link]] is bound to the renamed note by a name it no longer has gets that link's target
rewritten in its body (alias, heading, embed and `.md` kept; code never touched: text/link_edits.py), saved through
the pipeline in the rename's transaction (SHA, tags, the link diff, which binds the new name), whoever owns it: the
graph and the bodies must keep agreeing. A workspace document's text file that links to it by the old name is
rewritten the same way, its stored hash and its wikilinks following in the transaction. The links still naming the
old name after that (all of them when the caller asks not to rewrite) become ghosts of the old name, which bind
again when a note takes it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document, Item, Note, Principal
from vaultgraph.graph import documents as document_cypher
from vaultgraph.graph import items as item_cypher
from vaultgraph.graph import notes as cypher
from vaultgraph.services.note_drafts import NoteDraft
from vaultgraph.services.wikilink_sync import body_key, key_in, resolve_refs, sync_wikilinks
from vaultgraph.text.link_edits import Retarget, retarget_links
from vaultgraph.text.resolve import document_key, key_name, link_key, note_rank
from vaultgraph.text.wikilinks import WikiLink, parse
from vaultgraph.workspace.files import Workspace, sha256_hex
from vaultgraph.workspace.formats import decode_text, is_text_name

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


async def name_leads_to(tx: AsyncManagedTransaction, source: Item, note: Note) -> bool:
    """Whether the renamed note's bare name, written in `source`, resolves to it: with another note that answers
    to that name first (one in the source's folder, a shorter path), Obsidian writes the path instead."""
    name, full = new_names(note)
    if name == full:
        return True
    key = key_in(source, name)
    return key is not None and (await resolve_refs(tx, source, [key])).get(key) == note.id


def _still_names(row: dict[str, Any], note: Note) -> bool:
    source_key = row["sourcePath"] if row["sourceIsNote"] else document_key(row["sourcePath"])
    return key_name(row["key"]) == key_name(note.slug) and note_rank(row["key"], source_key, note.slug) is not None


# The largest document file a rename rewrites: beyond it the link is left to become a ghost of the old name.
MAX_REWRITTEN_FILE_BYTES = 4 * 1024 * 1024


async def _rewrite_files(tx: AsyncManagedTransaction, workspace: Workspace, tenant: str, note: Note,
                         keys: dict[str, set[str]]) -> None:
    """Rewrite the links to `note` in the text files of the documents `keys` names (id → stale keys), then their
    hash and wikilinks in `tx`. The file is written before the commit: should the commit fail, the next rescan
    finds the file changed and syncs its links from it, so file and graph meet again."""
    found = await item_cypher.items_by_ids(tx, tenant, sorted(keys))
    for document in found.values():
        if not isinstance(document, Document) or not is_text_name(document.path):
            continue
        target = workspace.file_for(tenant, document.owner, document.path)
        try:
            text = decode_text(await workspace.read(target, MAX_REWRITTEN_FILE_BYTES + 1))
        except FileNotFoundError:
            continue
        if text is None or len(text.encode()) > MAX_REWRITTEN_FILE_BYTES:
            continue
        bare = await name_leads_to(tx, document, note)
        new_text, changed = retarget_links(text, retarget(document, keys[document.id], note, bare))
        if not changed:
            continue
        data = new_text.encode()
        await workspace.write(target, data)
        await document_cypher.set_content(tx, tenant, document.id, sha256_hex(data), len(data))
        await sync_wikilinks(tx, document, parse(new_text).links, bind_own_refs=False)


async def follow_rename(
    tx: AsyncManagedTransaction, principal: Principal, note: Note, rewrite: bool, save: SaveDrafts,
    workspace: Workspace | None = None,
) -> tuple[Note, ...]:
    """After `note` was renamed in `tx`: rewrite (when `rewrite`) and ghost the links to its old name, in notes and
    (given the `workspace`) in documents' files; the notes rewritten."""
    tenant = principal.tenant_id
    stale = [row for row in await cypher.inbound_wikilinks(tx, tenant, note.id) if not _still_names(row, note)]
    rewritten: list[Note] = []
    if rewrite:
        keys: dict[str, set[str]] = {}
        document_keys: dict[str, set[str]] = {}
        for row in stale:
            (keys if row["sourceIsNote"] else document_keys).setdefault(row["sourceId"], set()).add(row["key"])
        if document_keys and workspace is not None:
            await _rewrite_files(tx, workspace, tenant, note, document_keys)
        stored = await cypher.notes_by_ids(tx, tenant, sorted(keys)) if keys else {}
        drafts: list[NoteDraft] = []
        for source in stored.values():
            bare = await name_leads_to(tx, source, note)
            body, changed = retarget_links(source.body, retarget(source, keys[source.id], note, bare))
            if changed:
                drafts.append(NoteDraft(id=source.id, title=source.title, slug=source.slug, body=body,
                                        if_body_sha256=source.body_sha256, rewrite_links=False))
        rewritten = await save(tx, principal, drafts) if drafts else []
    if stale:  # a rewritten item's old edges are gone already; the others become ghosts
        await cypher.ghost_inbound(tx, tenant, note.id, [row["linkId"] for row in stale])
    return tuple(rewritten)
