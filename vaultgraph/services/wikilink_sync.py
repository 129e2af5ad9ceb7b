"""Keeping items' WIKILINK edges equal to their text: a diff (added, updated, removed; never rewritten) and the
resolution passes: outgoing (keys that name an existing note or document bind at once) and incoming (ghosts and
bindings that name a new or renamed item move to it when it ranks better, reclaiming fuzzy guesses). Runs inside
the caller's transaction.

Both passes compare resolution keys (text/resolve.py `link_key`) and rank candidates with one function (`_rank`):
notes before documents, the source's own owner before the shared space before a team, then Obsidian's order
(notes) or GoClaw's (documents). A wikilink ends at the best-ranked item it names, whichever was written first, so
the same bodies give the same graph in every order.

One code path for one item and for many: `sync_wikilinks` is `sync_wikilinks_many` with a list of one, and the
list costs the same handful of statements whatever its length (graph/wikilinks.py). Items synced together are each
other's targets."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Item, Note, Scope
from vaultgraph.graph import wikilinks as cypher
from vaultgraph.graph.links import WriteCount
from vaultgraph.text.resolve import document_key, document_name, document_rank, key_name, link_key, note_rank
from vaultgraph.text.wikilinks import WikiLink, parse


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
    new: bool = False  # created in this transaction: it has no edges yet, so none are read


def item_key(item: Item) -> str:
    """The key that names exactly this item: a note's slug, a document's path in key space."""
    return item.slug if isinstance(item, Note) else document_key(item.path)


def item_name(item: Item) -> str:
    """The last segment every key naming this item ends in (what candidates and ghosts are looked up by): a
    note's `slugName`, a document's `linkName`."""
    return key_name(item.slug) if isinstance(item, Note) else document_name(item.path)


def canonical_ref(item: Item) -> str:
    """The `ref` of a link made to this item by id (nothing was authored): the text that names it exactly, a
    note's slug or a document's path."""
    return item.slug if isinstance(item, Note) else item.path


def key_in(item: Item, target: str) -> str | None:
    """`link_key` of a target written in this item (`./` and `../` start from the item's folder)."""
    return link_key(target, item_key(item).rpartition("/")[0])


def body_key(item: Item, link: WikiLink) -> str | None:
    """The key of one link of this item's text: `[[#Heading]]` names the item itself, as in Obsidian; a target
    with no letter or digit keeps its trimmed text as its key, so `[[|]]` is still an (unresolvable) link."""
    if not link.target:
        return item_key(item)
    return key_in(item, link.target) or link.target.strip() or None


def link_owners(owner_key: str, teams: Iterable[str] = ()) -> list[str]:
    """Owners a link from an item of this owner may bind to: its own and the tenant's shared space; for a personal
    item, also the teams recorded on it (`Note.link_teams`: the teams of the agent that saved it), since that
    agent sees their items. A team item links within its team and the shared space; a shared item, shared only."""
    owners = {owner_key, "shared"}
    if owner_key.startswith("agent:"):
        owners.update(f"team:{team}" for team in teams)
    return sorted(owners)


def target_owners(item: Item) -> list[str]:
    """`link_owners` of this item."""
    teams = item.link_teams if isinstance(item, Note) and item.owner.scope is Scope.PERSONAL else ()
    return link_owners(item.owner.key, teams)


@dataclass(frozen=True, slots=True)
class _Target:
    """An item a key may name: a note (`path` its slug) or a document (`path` its path), its owner and, for a
    note, its kind."""

    id: str
    is_note: bool
    path: str
    owner: str
    kind: str | None = None


# Edge types that bind only to notes of one kind: a meeting's attendee (services/meetings.py) is a person, never a
# document or an ordinary note that happens to share the name. Every other type binds to whatever the key names.
BINDS_ONLY_TO_KIND = {"ATTENDED": "person"}


def binds_to(edge_type: str, target: _Target) -> bool:
    kind = BINDS_ONLY_TO_KIND.get(edge_type)
    return kind is None or (target.is_note and target.kind == kind)


@dataclass(frozen=True, slots=True)
class _Source:
    """Where a link is written: its item's key path (for Obsidian's "same folder" step) and owners."""

    key_path: str
    owner: str
    owners: tuple[str, ...]


def _as_target(item: Item) -> _Target:
    return _Target(item.id, isinstance(item, Note), item.slug if isinstance(item, Note) else item.path,
                   item.owner.key, item.kind if isinstance(item, Note) else None)


def _as_source(item: Item) -> _Source:
    return _Source(item_key(item), item.owner.key, tuple(target_owners(item)))


def _source_of(row: dict[str, Any]) -> _Source:
    path = row["sourcePath"]
    return _Source(path if row["sourceIsNote"] else document_key(path), row["sourceOwner"],
                   tuple(link_owners(row["sourceOwner"], row["sourceTeams"])))


def _rank(key: str, source: _Source, target: _Target) -> tuple[Any, ...] | None:
    """Where `target` stands for a link `key` written in `source` (lower is better), or None when the key does
    not name it or the source may not link there. The one ranking both passes use."""
    if target.owner not in source.owners:
        return None
    inner = note_rank(key, source.key_path, target.path) if target.is_note else document_rank(key, target.path)
    if inner is None:
        return None
    owner = 0 if target.owner == source.owner else 1 if target.owner == "shared" else 2
    return (not target.is_note, owner, inner, target.owner, target.id)


def _best(key: str, source: _Source, targets: Iterable[_Target], edge_type: str = "WIKILINK") -> _Target | None:
    ranked = [(rank, target) for target in targets
              if binds_to(edge_type, target) and (rank := _rank(key, source, target)) is not None]
    return min(ranked, key=lambda pair: pair[0])[1] if ranked else None


def _desired(item: Item, links: Sequence[WikiLink]) -> dict[str, dict[str, Any]]:
    """One edge per key (the edge identity) counting its occurrences; the first occurrence gives the authored ref,
    label, heading and context."""
    rows: dict[str, dict[str, Any]] = {}
    for link in links:
        key = body_key(item, link)
        if key is None:
            continue
        if key in rows:
            rows[key]["count"] += 1
            continue
        heading = f"^{link.block}" if link.block else link.heading
        rows[key] = {"key": key, "ref": link.target.strip(), "label": link.alias, "heading": heading,
                     "context": link.context, "embed": link.embed, "count": 1}
    return rows


def body_keys(item: Item, links: Sequence[WikiLink]) -> set[str]:
    """The keys of the wikilink edges this text gives the item (what `deleteLink` checks a wikilink against)."""
    return set(_desired(item, links))


async def resolve_refs(
    tx: AsyncManagedTransaction, item: Item, keys: list[str], edge_type: str = "WIKILINK"
) -> dict[str, str]:
    """key → target id for the keys that name an existing note or document an `edge_type` edge of the item may
    bind to. In a write transaction that then links by these keys, `lock_names` them first (`key_name`), as the
    sync does."""
    [found] = await resolve_refs_many(tx, [(item, keys)], edge_type)
    return found


async def resolve_refs_many(
    tx: AsyncManagedTransaction, wants: Sequence[tuple[Item, list[str]]], edge_type: str = "WIKILINK"
) -> list[dict[str, str]]:
    """`resolve_refs` for several (item, keys) of one tenant, in one statement."""
    return [{key: target.id for key, target in found.items()} for found in await _resolve(tx, wants, edge_type)]


Ask = tuple[str, tuple[str, ...]]  # a name and the owners a link may bind to


def _ask_rows(asks: Iterable[Ask]) -> tuple[list[Ask], list[dict[str, Any]]]:
    """The asks, each once, and the rows that ask them of LINK_TARGETS (a hit's `i` is its ask's index)."""
    unique = list(dict.fromkeys(asks))
    return unique, [{"name": name, "owners": list(owners)} for name, owners in unique]


def _hits(unique: list[Ask], hits: Iterable[dict[str, Any]]) -> dict[Ask, list[_Target]]:
    """The items each ask names, from LINK_TARGETS' rows."""
    found: dict[int, list[_Target]] = {}
    for hit in hits:
        found.setdefault(hit["i"], []).append(_Target(hit["id"], hit["isNote"], hit["path"], hit["ownerKey"],
                                                      hit["kind"]))
    return {ask: found.get(i, []) for i, ask in enumerate(unique)}


async def _named(tx: AsyncManagedTransaction, tenant: str, asks: Iterable[Ask]) -> dict[Ask, list[_Target]]:
    """The items each (name, owners) names: one statement for all of them, the same ask asked once."""
    unique, rows = _ask_rows(asks)
    return _hits(unique, await cypher.link_targets(tx, tenant, rows) if rows else [])


def _sources(wants: Sequence[tuple[Item, list[str]]]) -> list[tuple[_Source, list[str]]]:
    return [(_as_source(item), keys) for item, keys in wants]


def _asks(sources: list[tuple[_Source, list[str]]]) -> Iterator[Ask]:
    return ((key_name(key), source.owners) for source, keys in sources for key in keys)


async def _resolve(
    tx: AsyncManagedTransaction, wants: Sequence[tuple[Item, list[str]]], edge_type: str = "WIKILINK"
) -> list[dict[str, _Target]]:
    """For each (item, keys) of one tenant: key → the best-ranked item it names. One statement for the whole list."""
    if not wants:
        return []
    sources = _sources(wants)
    return _choose(sources, await _named(tx, wants[0][0].tenant_id, _asks(sources)), edge_type)


def _choose(sources: list[tuple[_Source, list[str]]], named: dict[Ask, list[_Target]],
            edge_type: str = "WIKILINK") -> list[dict[str, _Target]]:
    """`_resolve`'s answer from the items each ask names."""
    found: list[dict[str, _Target]] = []
    for source, keys in sources:
        targets: dict[str, _Target] = {}
        for key in keys:
            best = _best(key, source, named[(key_name(key), source.owners)], edge_type)
            if best is not None:
                targets[key] = best
        found.append(targets)
    return found


async def rebind_ghosts(tx: AsyncManagedTransaction, tenant: str, names: list[str]) -> None:
    """Ghost edges of these names go to the best item each key still names: after a hard delete, a `[[Beta]]` falls
    to the next note called Beta, as saving the same bodies without the deleted item would bind it."""
    await cypher.lock_names(tx, tenant, names)
    ghosts = [(row, _source_of(row)) for row in await cypher.ghost_edges_naming(tx, tenant, names)]
    named = await _named(tx, tenant, ((key_name(row["key"]), source.owners) for row, source in ghosts))
    moves = []
    for row, source in ghosts:
        best = _best(row["key"], source, named[(key_name(row["key"]), source.owners)], row["type"])
        if best is not None:
            moves.append({"sourceId": row["sourceId"], "linkId": row["linkId"], "targetId": best.id,
                          "reclaim": False})
    if moves:
        await cypher.move_edges(tx, WriteCount(), tenant, moves)


def _bindings(binders: list[Item], edges: cypher.Lookup, skip: set[str]) -> list[dict[str, Any]]:
    """The edges already in the graph (not those in `skip`) that move to the new or renamed `binders`: ghost edges
    they name, fuzzy guesses an exact name reclaims, and wikilinks bound elsewhere when a binder ranks better.
    `edges`: the edges naming the binders (`cypher.edges_naming`)."""
    candidates = [_as_target(item) for item in binders]
    moves: list[dict[str, Any]] = []
    for row in edges.ghosts:
        if row["linkId"] in skip:
            continue
        best = _best(row["key"], _source_of(row), candidates, row["type"])
        if best is not None:
            moves.append({"sourceId": row["sourceId"], "linkId": row["linkId"], "targetId": best.id,
                          "reclaim": False})
    for row in edges.bound:
        if row["linkId"] in skip:
            continue
        source = _source_of(row)
        if row["guessed"]:
            # A guess is an empty slot: any binder the key names takes it, except the guessed note itself.
            best = _best(row["key"], source, [c for c in candidates if c.id != row["targetId"]])
        else:
            bound = _Target(row["targetId"], row["targetIsNote"], row["targetPath"], row["targetOwner"])
            best = _best(row["key"], source, [bound, *candidates])
        if best is not None and best.id != row["targetId"]:
            moves.append({"sourceId": row["sourceId"], "linkId": row["linkId"], "targetId": best.id,
                          "reclaim": bool(row["guessed"])})
    return moves


async def sync_wikilinks(
    tx: AsyncManagedTransaction, item: Item, links: Sequence[WikiLink] | None, bind_own_refs: bool
) -> LinkSync:
    """Diff the item's wikilink edges against `links` (None: text unchanged, leave them) and bind ghosts."""
    [sync] = await sync_wikilinks_many(tx, [LinkJob(item, links, bind_own_refs)])
    return sync


async def sync_document_text(tx: AsyncManagedTransaction, document: Item, text: str) -> LinkSync:
    """A document's text changed (enriched or rewritten by a rename): its WIKILINK edges follow the links parsed
    from it. Its own names did not change, so nothing else moves to it."""
    return await sync_wikilinks(tx, document, parse(text).links, bind_own_refs=False)


async def sync_wikilinks_many(tx: AsyncManagedTransaction, jobs: Sequence[LinkJob]) -> list[LinkSync]:
    """`sync_wikilinks` for several items of one tenant (each at most once), in the order they were saved, with
    the end state of syncing them one after another: every removal and update, then every new edge, bound to the
    best item it names, then the binding of the edges already in the graph to the new and renamed items."""
    if not jobs:
        return []
    tenant = jobs[0].item.tenant_id
    if any(job.item.tenant_id != tenant for job in jobs):
        raise ValueError("one tenant per wikilink sync")
    writes = WriteCount()
    added: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    touched: Counter[str] = Counter()  # edges changed or moved, by the item they belong to or move to
    binders = [job.item for job in jobs if job.bind_own_refs]
    bind_names = sorted({item_name(item) for item in binders})
    edges: cypher.Lookup | None = None  # the edges naming the binders, once read
    created: set[str] = set()
    desired = {job.item.id: _desired(job.item, job.links) for job in jobs if job.links is not None}
    if desired:
        new = {job.item.id for job in jobs if job.new}
        stored: dict[str, list[str]] = {id: [] for id in desired if id in new}
        if len(stored) < len(desired):
            stored.update(await cypher.wikilink_keys(tx, tenant, [id for id in desired if id not in new]))
        existing = {id: set(keys) for id, keys in stored.items()}
        for id, rows in desired.items():
            removed[id] = sum(1 for key in stored[id] if key not in rows)
        stale = [{"id": id, "keep": list(rows)} for id, rows in desired.items() if removed[id]]
        if stale:
            await cypher.remove_wikilinks(tx, writes, tenant, stale)
        kept = [{**row, "sourceId": id} for id, rows in desired.items() for key, row in rows.items()
                if key in existing[id]]
        if kept:
            touched.update(await cypher.update_wikilinks(tx, writes, tenant, kept))
        # Every item of the batch is in the graph already, so a new edge binds at once to the best item it names
        # (what saving the items one after another ends with: the incoming pass moves a wikilink to a better item).
        wants = [(job.item, [key for key in desired[job.item.id] if key not in existing[job.item.id]])
                 for job in jobs if job.links is not None]
        wants = [want for want in wants if want[1]]
        # Before anything is looked up by name: the names this sync resolves and those its new items bind. The
        # edges naming the binders are read under those locks too, unless this sync removed some (then after): the
        # edges it creates next are never moved (`created`), and those it updates keep their keys.
        sources = _sources(wants)
        unique, asked = _ask_rows(_asks(sources))
        lookup = await cypher.locked_lookup(tx, tenant, [key_name(key) for _, keys in wants for key in keys]
                                            + bind_names, asked, [] if stale else bind_names)
        if binders and not stale:
            edges = lookup
        resolved: list[dict[str, Any]] = []
        ghosted: list[dict[str, Any]] = []
        for (item, new_keys), targets in zip(wants, _choose(sources, _hits(unique, lookup.targets)), strict=True):
            for key in new_keys:
                target = targets.get(key)
                props = {**desired[item.id][key], "id": f"lnk_{uuid.uuid4().hex}", "origin": "wikilink"}
                created.add(props["id"])
                entry = {"sourceId": item.id, "type": "WIKILINK", "key": key,
                         "targetId": target.id if target else None, "props": props}
                (resolved if target else ghosted).append(entry)
            added[item.id] = len(new_keys)
        # Read before the new edges, the moves go with them, after them (they never move a new one).
        moves = _bindings(binders, edges, created) if edges is not None else []
        await cypher.write_edges(tx, writes, tenant, resolved, ghosted, moves)
        touched.update(move["targetId"] for move in moves)
    if binders and edges is None:
        edges = (await cypher.edges_naming(tx, tenant, bind_names) if desired
                 else await cypher.locked_lookup(tx, tenant, bind_names, [], bind_names))
        moves = _bindings(binders, edges, created)
        if moves:
            await cypher.move_edges(tx, writes, tenant, moves)
            touched.update(move["targetId"] for move in moves)
    if len(jobs) == 1:
        id = jobs[0].item.id
        return [LinkSync(added=added[id], removed=removed[id], writes=writes.total)]
    return [LinkSync(added=added[job.item.id], removed=removed[job.item.id],
                     writes=added[job.item.id] + removed[job.item.id] + touched[job.item.id]) for job in jobs]
