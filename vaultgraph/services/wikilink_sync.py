"""Keeping items' WIKILINK edges equal to their text: a diff (added, updated, removed; never rewritten) and the
resolution passes: outgoing (refs that name an existing note or document bind at once) and incoming (ghosts that
name a new or renamed item bind to it, reclaiming fuzzy guesses). Runs inside the caller's transaction.

One code path for one item and for many: `sync_wikilinks` is `sync_wikilinks_many` with a list of one, and the
list costs the same handful of statements whatever its length (graph/wikilinks.py). Items synced together are each
other's targets: a link resolves against all of them, as if its item had been saved after the others."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Item, Note
from vaultgraph.graph import wikilinks as cypher
from vaultgraph.graph.links import WriteCount
from vaultgraph.text.slugify import slugify
from vaultgraph.text.wikilinks import WikiLink, resolve, resolve_workspace


@dataclass(frozen=True, slots=True)
class LinkSync:
    added: int = 0
    removed: int = 0
    # Relationship and property writes from Neo4j's counters when one item is synced; in a batch, where the
    # counters cover every item together, the edges this item's sync created, deleted, changed or moved.
    # Either way 0 means nothing was touched.
    writes: int = 0


@dataclass(frozen=True, slots=True)
class LinkJob:
    """One item of a sync: its links (None: its text did not change, leave its edges alone) and whether its names
    are new (a new or renamed item), so ghosts and bindings that name it move to it."""

    item: Item
    links: Sequence[WikiLink] | None
    bind_own_refs: bool


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


@dataclass(frozen=True, slots=True)
class _Target:
    """Where an edge points: a note (with its slug and owner, which later binding compares) or a document."""

    id: str
    slug: str | None  # None for a document: an edge bound to a document stays there
    owner: str = ""


def _target(item: Item) -> _Target:
    return _Target(item.id, item.slug if isinstance(item, Note) else None, item.owner.key)


async def resolve_refs(tx: AsyncManagedTransaction, item: Item, rows: list[dict[str, Any]]) -> dict[str, str]:
    """ref → target id for the refs (rows {ref, target}) that name an existing note or document."""
    [found] = await _resolve(tx, [(item, rows, 0)], {})
    return {ref: target.id for ref, target in found.items()}


async def _resolve(
    tx: AsyncManagedTransaction, wants: Sequence[tuple[Item, list[dict[str, Any]], int]], appears_at: dict[str, int]
) -> list[dict[str, _Target]]:
    """For each (item, rows {ref, target}, position) of one tenant: ref → target for the refs that name a note
    (own owner first, then Obsidian's order) or, failing that, a document (GoClaw's order: exact path, path + .md,
    basename, basename + .md). A note that `appears_at` a later position of the batch than the item is not there
    yet for it. Two statements for the whole list; the same name asked by many items is asked once."""
    if not wants:
        return []
    tenant = wants[0][0].tenant_id
    note_rows: list[dict[str, Any]] = []
    note_index: dict[tuple[str, tuple[str, ...]], int] = {}
    for item, rows, _ in wants:
        owners = target_owners(item)
        for row in rows:
            key = (row["ref"].rsplit("/", 1)[-1], tuple(owners))
            if key not in note_index:
                note_index[key] = len(note_rows)
                note_rows.append({"name": key[0], "owners": owners})
    note_hits: dict[int, list[dict[str, Any]]] = {}
    if note_rows:
        for hit in await cypher.note_targets(tx, tenant, note_rows):
            note_hits.setdefault(hit["i"], []).append(hit)
    found: list[dict[str, _Target]] = []
    for item, rows, position in wants:
        owners_key = tuple(target_owners(item))
        source_slug = item.slug if isinstance(item, Note) else None
        targets: dict[str, _Target] = {}
        for row in rows:
            per_owner: dict[str, dict[str, str]] = {}  # owner → {id: slug}
            for hit in note_hits.get(note_index[(row["ref"].rsplit("/", 1)[-1], owners_key)], []):
                if appears_at.get(hit["id"], -1) <= position:
                    per_owner.setdefault(hit["ownerKey"], {})[hit["id"]] = hit["slug"]
            for owner in sorted(per_owner, key=lambda key: key != item.owner.key):
                slugs = per_owner[owner]
                if chosen := choose_note(row["ref"], source_slug, [(slug, id) for id, slug in slugs.items()]):
                    targets[row["ref"]] = _Target(chosen, slugs[chosen], owner)
                    break
        found.append(targets)

    doc_rows: list[dict[str, Any]] = []
    doc_index: dict[tuple[str, tuple[str, ...]], int] = {}
    for (item, rows, _), targets in zip(wants, found, strict=True):
        owners = target_owners(item)
        for row in rows:
            target = row["target"].casefold()
            key = (target, tuple(owners))
            if row["ref"] in targets or key in doc_index:
                continue
            name = PurePosixPath(target).name
            doc_index[key] = len(doc_rows)
            doc_rows.append({"paths": [target, f"{target}.md"], "basenames": [name, f"{name}.md"], "owners": owners})
    if not doc_rows:
        return found
    doc_hits: dict[int, dict[str, str]] = {}
    for hit in await cypher.document_targets(tx, tenant, doc_rows):
        doc_hits.setdefault(hit["i"], {})[hit["path"]] = hit["id"]
    for (item, rows, _), targets in zip(wants, found, strict=True):
        owners_key = tuple(target_owners(item))
        for row in rows:
            if row["ref"] in targets:
                continue
            paths = doc_hits.get(doc_index[(row["target"].casefold(), owners_key)], {})
            chosen_path = resolve_workspace(row["target"], list(paths)) if paths else None
            if chosen_path is not None:
                targets[row["ref"]] = _Target(paths[chosen_path], None)
    return found


def _follow(ref: str, source_slug: str | None, source_owner: str, current: _Target | None, claimable: bool,
            binders: Sequence[Item], names: dict[str, list[str]], skip: str | None = None) -> _Target | None:
    """Where an edge naming `ref` ends up as the `binders` (new or renamed items) are saved one after another:
    unbound (a ghost edge, or a fuzzy guess, then bound to `skip`), the first that names it binds it if its owner
    may (the source's own owner, or shared); bound to a note, a wikilink (`claimable`) moves to a later note of
    the same owner when Obsidian's order prefers it (so the best of all candidates wins whatever the order). An
    edge bound to a document stays there."""
    for binder in binders:
        if ref not in names[binder.id] or binder.id == skip or (current is not None and binder.id == current.id):
            continue
        if current is None:
            if binder.owner.key in (source_owner, "shared"):
                current = _target(binder)
        elif (claimable and current.slug is not None and isinstance(binder, Note) and binder.owner.key == current.owner
              and choose_note(ref, source_slug, [(current.slug, current.id), (binder.slug, binder.id)]) == binder.id):
            current = _target(binder)
    return current


async def _bindings(
    tx: AsyncManagedTransaction, tenant: str, binders: list[Item], names: dict[str, list[str]], skip: set[str]
) -> list[dict[str, Any]]:
    """The edges already in the graph (not those in `skip`) that move to the new or renamed `binders`, saved in
    this order: ghost edges that name them, fuzzy guesses an exact name reclaims, and wikilinks bound to another
    note when Obsidian's order prefers one of these."""
    refs = sorted({ref for item in binders for ref in names[item.id]})
    moves: list[dict[str, Any]] = []
    for row in await cypher.ghost_edges_naming(tx, tenant, refs):
        if row["linkId"] in skip:
            continue
        final = _follow(row["ref"], row["sourceSlug"], row["sourceOwner"], None, row["claimable"], binders, names)
        if final is not None:
            moves.append({"sourceId": row["sourceId"], "linkId": row["linkId"], "targetId": final.id,
                          "reclaim": False})
    for row in await cypher.bound_edges_naming(tx, tenant, refs):
        if row["linkId"] in skip:
            continue
        bound = _Target(row["targetId"], row["targetSlug"], row["targetOwner"])
        if row["guessed"]:
            final = _follow(row["ref"], row["sourceSlug"], row["sourceOwner"], None, row["claimable"], binders,
                            names, skip=row["targetId"])
        else:
            final = _follow(row["ref"], row["sourceSlug"], row["sourceOwner"], bound, True, binders, names)
        if final is not None and final.id != row["targetId"]:
            moves.append({"sourceId": row["sourceId"], "linkId": row["linkId"], "targetId": final.id,
                          "reclaim": bool(row["guessed"])})
    return moves


async def sync_wikilinks(
    tx: AsyncManagedTransaction, item: Item, links: Sequence[WikiLink] | None, bind_own_refs: bool
) -> LinkSync:
    """Diff the item's wikilink edges against `links` (None: text unchanged, leave them) and bind ghosts."""
    [sync] = await sync_wikilinks_many(tx, [LinkJob(item, links, bind_own_refs)])
    return sync


async def sync_wikilinks_many(tx: AsyncManagedTransaction, jobs: Sequence[LinkJob]) -> list[LinkSync]:
    """`sync_wikilinks` for several items of one tenant (each at most once), in the order they were saved, with
    the end state of syncing them one after another: every removal and update, then every new edge, resolved
    against what was there when its item was saved and followed through the binding of the items saved after it,
    then the binding of the edges already in the graph to the new and renamed items."""
    if not jobs:
        return []
    tenant = jobs[0].item.tenant_id
    if any(job.item.tenant_id != tenant for job in jobs):
        raise ValueError("one tenant per wikilink sync")
    writes = WriteCount()
    added: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    touched: Counter[str] = Counter()  # edges changed or moved, by the item they belong to or move to
    appears_at = {job.item.id: position for position, job in enumerate(jobs) if job.bind_own_refs}
    binders = [job.item for job in jobs if job.bind_own_refs]
    names = {item.id: own_refs(item) for item in binders}
    created: set[str] = set()
    desired = {job.item.id: _desired(job.links, canonical_ref(job.item)) for job in jobs if job.links is not None}
    if desired:
        stored = await cypher.wikilink_refs(tx, tenant, list(desired))
        existing = {id: set(refs) for id, refs in stored.items()}
        for id, rows in desired.items():
            removed[id] = sum(1 for ref in stored[id] if ref not in rows)
        stale = [{"id": id, "keep": list(rows)} for id, rows in desired.items() if removed[id]]
        if stale:
            await cypher.remove_wikilinks(tx, writes, tenant, stale)
        kept = [{**row, "sourceId": id} for id, rows in desired.items() for ref, row in rows.items()
                if ref in existing[id]]
        if kept:
            touched.update(await cypher.update_wikilinks(tx, writes, tenant, kept))
        wants = [(job.item, [row for ref, row in desired[job.item.id].items() if ref not in existing[job.item.id]],
                  position) for position, job in enumerate(jobs) if job.links is not None]
        wants = [want for want in wants if want[1]]
        resolved: list[dict[str, Any]] = []
        ghosted: list[dict[str, Any]] = []
        for (item, new_rows, position), targets in zip(wants, await _resolve(tx, wants, appears_at), strict=True):
            later = [job.item for job in jobs[position + 1:] if job.bind_own_refs]
            source_slug = item.slug if isinstance(item, Note) else None
            for row in new_rows:
                target = targets.get(row["ref"])
                if later and (target is None or target.slug is not None):
                    target = _follow(row["ref"], source_slug, item.owner.key, target, True, later, names)
                props = {**row, "id": f"lnk_{uuid.uuid4().hex}", "origin": "wikilink"}
                created.add(props["id"])
                entry = {"sourceId": item.id, "type": "WIKILINK", "ref": row["ref"],
                         "targetId": target.id if target else None, "props": props}
                (resolved if target else ghosted).append(entry)
            added[item.id] = len(new_rows)
        await cypher.create_links(tx, writes, tenant, resolved, ghosted)
    if binders:
        moves = await _bindings(tx, tenant, binders, names, created)
        if moves:
            await cypher.move_edges(tx, writes, tenant, moves)
            touched.update(move["targetId"] for move in moves)
    if len(jobs) == 1:
        id = jobs[0].item.id
        return [LinkSync(added=added[id], removed=removed[id], writes=writes.total)]
    return [LinkSync(added=added[job.item.id], removed=removed[job.item.id],
                     writes=added[job.item.id] + removed[job.item.id] + touched[job.item.id]) for job in jobs]
