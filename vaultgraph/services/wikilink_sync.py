"""Keeping an item's WIKILINK edges equal to its text: a diff (added, updated, removed; never rewritten) and the
resolution passes: outgoing (refs that name an existing note or document bind at once) and incoming (ghosts that
name this item bind to it, reclaiming fuzzy guesses). Runs inside the caller's transaction."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Item, Note
from vaultgraph.graph import links as cypher
from vaultgraph.graph.links import WriteCount
from vaultgraph.text.slugify import slugify
from vaultgraph.text.wikilinks import WikiLink, resolve, resolve_workspace


@dataclass(frozen=True, slots=True)
class LinkSync:
    added: int = 0
    removed: int = 0
    writes: int = 0  # relationship and property writes, from Neo4j's counters: 0 means nothing was touched


def safe_slug(text: str) -> str | None:
    try:
        return slugify(text)
    except ValueError:
        return None


def own_refs(item: Item) -> list[str]:
    """The refs that name this item: a note's slug and its last segment (Obsidian links by name); a document's
    path and basename, with and without suffix."""
    if isinstance(item, Note):
        return sorted({item.slug, item.slug.rsplit("/", 1)[-1]})
    path = PurePosixPath(item.path)
    names = {str(path), str(path.with_suffix("")), path.name, path.stem}
    return sorted({slug for name in names if (slug := safe_slug(name))})


def choose_note(ref: str, source_slug: str | None, candidates: list[tuple[str, str]]) -> str | None:
    """Obsidian's order (the text package's `resolve`) over (slug, id) candidates, slugs standing for vault paths:
    the exact path, else a note in the source's own folder, else the shortest path ending in the ref."""
    paths = {f"{slug}.md": id for slug, id in candidates}
    chosen = resolve(ref, f"{source_slug}.md" if source_slug else "", list(paths))
    return paths.get(chosen) if chosen else None


def canonical_ref(item: Item) -> str:
    """The ref a manual link to this item records: a note's slug, a document's path without its suffix."""
    if isinstance(item, Note):
        return item.slug
    return safe_slug(str(PurePosixPath(item.path).with_suffix(""))) or item.id


def target_owners(item: Item) -> list[str]:
    """Owners a wikilink of this item may bind to: its own, and the tenant's shared space."""
    return sorted({item.owner.key, "shared"})


def _desired(links: Sequence[WikiLink], self_ref: str) -> dict[str, dict[str, Any]]:
    """One edge per ref (the edge identity) counting its occurrences; the first occurrence gives label, heading and
    context. `[[#Heading]]` links the item to itself, as in Obsidian; a target with no letter or digit keeps its
    text as the ref, so `[[|]]` is still an (unresolvable) link."""
    rows: dict[str, dict[str, Any]] = {}
    for link in links:
        ref = (safe_slug(link.target) or link.target.strip()) if link.target else self_ref
        if not ref:
            continue
        if ref in rows:
            rows[ref]["count"] += 1
            continue
        heading = f"^{link.block}" if link.block else link.heading
        rows[ref] = {"ref": ref, "target": link.target, "label": link.alias, "heading": heading,
                     "context": link.context, "embed": link.embed, "count": 1}
    return rows


async def resolve_refs(tx: AsyncManagedTransaction, item: Item, rows: list[dict[str, Any]]) -> dict[str, str]:
    """ref → target id for the refs that name an existing note (own owner first, then Obsidian's order) or, failing
    that, a document (GoClaw's order: exact path, path + .md, basename, basename + .md)."""
    owners = target_owners(item)
    queries = [{"ref": row["ref"], "name": row["ref"].rsplit("/", 1)[-1]} for row in rows]
    by_ref: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for hit in await cypher.note_targets(tx, item.tenant_id, queries, owners):
        by_ref.setdefault(hit["ref"], {}).setdefault(hit["ownerKey"], []).append((hit["slug"], hit["id"]))
    source_slug = item.slug if isinstance(item, Note) else None
    found: dict[str, str] = {}
    for ref, per_owner in by_ref.items():
        for owner in sorted(per_owner, key=lambda key: key != item.owner.key):
            if chosen := choose_note(ref, source_slug, per_owner[owner]):
                found[ref] = chosen
                break
    rest = [r for r in rows if r["ref"] not in found]
    if rest:
        docs = []
        for row in rest:
            target = row["target"].casefold()
            name = PurePosixPath(target).name
            docs.append({"ref": row["ref"], "paths": [target, f"{target}.md"], "basenames": [name, f"{name}.md"]})
        candidates: dict[str, dict[str, str]] = {}
        for hit in await cypher.document_targets(tx, item.tenant_id, docs, owners):
            candidates.setdefault(hit["ref"], {})[hit["path"]] = hit["id"]
        for row in rest:
            paths = candidates.get(row["ref"], {})
            chosen_path = resolve_workspace(row["target"], list(paths)) if paths else None
            if chosen_path is not None:
                found[row["ref"]] = paths[chosen_path]
    return found


async def _claim_better_bindings(tx: AsyncManagedTransaction, writes: WriteCount, note: Note, refs: list[str]) -> None:
    """Wikilinks bound to another note move here when Obsidian's order prefers this one, so the result does not
    depend on the order notes were saved in (the best of all candidates is the best of the old and the new)."""
    moves = [
        row["linkId"]
        for row in await cypher.bound_by_name(tx, note.tenant_id, note.id, refs)
        if choose_note(row["ref"], row["sourceSlug"], [(row["targetSlug"], row["targetId"]), (note.slug, note.id)])
        == note.id
    ]
    if moves:
        await cypher.run_counted(tx, writes, cypher.MOVE_LINKS, tenant=note.tenant_id, id=note.id, linkIds=moves)


async def sync_wikilinks(
    tx: AsyncManagedTransaction, item: Item, links: Sequence[WikiLink] | None, bind_own_refs: bool
) -> LinkSync:
    """Diff the item's wikilink edges against `links` (None: text unchanged, leave them) and bind ghosts."""
    writes = WriteCount()
    added = removed = 0
    tenant = item.tenant_id
    if links is not None:
        desired = _desired(links, canonical_ref(item))
        existing = await cypher.wikilink_refs(tx, tenant, item.id)
        await cypher.run_counted(tx, writes, cypher.REMOVE_WIKILINKS, tenant=tenant, id=item.id, keep=list(desired))
        removed = writes.deleted
        kept = [row for ref, row in desired.items() if ref in existing]
        if kept:
            await cypher.run_counted(tx, writes, cypher.UPDATE_WIKILINKS, tenant=tenant, id=item.id, rows=kept)
        new = [row for ref, row in desired.items() if ref not in existing]
        if new:
            targets = await resolve_refs(tx, item, new)
            resolved: list[dict[str, Any]] = []
            ghosted: list[dict[str, Any]] = []
            for row in new:
                props = {**row, "id": f"lnk_{uuid.uuid4().hex}", "origin": "wikilink"}
                entry = {"type": "WIKILINK", "ref": row["ref"], "targetId": targets.get(row["ref"]), "props": props}
                (resolved if entry["targetId"] else ghosted).append(entry)
            if resolved:
                await cypher.run_counted(tx, writes, cypher.CREATE_RESOLVED, tenant=tenant, id=item.id, rows=resolved)
            if ghosted:
                await cypher.run_counted(tx, writes, cypher.CREATE_GHOSTED, tenant=tenant, id=item.id, rows=ghosted)
            added = len(new)
    if bind_own_refs:
        refs = own_refs(item)
        await cypher.run_counted(tx, writes, cypher.BIND_GHOSTS, tenant=tenant, id=item.id, refs=refs)
        await cypher.run_counted(tx, writes, cypher.RECLAIM_GUESSES, tenant=tenant, id=item.id, refs=refs)
        if isinstance(item, Note):
            await _claim_better_bindings(tx, writes, item, refs)
    return LinkSync(added=added, removed=removed, writes=writes.total)
