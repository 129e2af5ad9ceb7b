"""Cypher for keeping items' WIKILINK edges equal to their text, for many items of one tenant at once.

Every statement takes a list (`UNWIND`), so a batch of notes costs the same handful of statements as one note; the
single save is the batch of one (services/wikilink_sync.py). Ghosts, binding and the orphan rule are those of
graph/links.py (`drop_if_orphan`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.graph.links import (
    CREATE_GHOSTED,
    CREATE_RESOLVED,
    WriteCount,
    create_ghosted,
    create_resolved,
    drop_if_orphan,
)

# A write lock per (tenant, name) for the rest of the transaction: resolving a link by a name and binding the edges
# that name a new item read what the other writes; two saves at once would each miss the other (a ghost left beside
# the note it names). `SET … REMOVE` takes the node's lock and stores nothing; MERGE under the `name_lock`
# constraint makes one node per name even when two transactions make it at once.
LOCK_NAMES = """
UNWIND $names AS name
MERGE (l:NameLock {tenantId: $tenant, name: name})
SET l.locked = true REMOVE l.locked
"""

# One row per wikilink edge the text wrote (an item may have two edges with one key only through a race).
WIKILINK_KEYS = """
UNWIND $ids AS id
MATCH (:Item {tenantId: $tenant, id: id})-[r:WIKILINK {origin: 'wikilink'}]->()
RETURN id, r.key AS key
"""

REMOVE_WIKILINKS = """
UNWIND $items AS item
MATCH (:Item {tenantId: $tenant, id: item.id})-[r:WIKILINK {origin: 'wikilink'}]->(t)
WHERE NOT r.key IN item.keep
DELETE r
WITH DISTINCT t WHERE t:Ghost
""" + drop_if_orphan("t")

# Returns the source of each edge it changed, so a batch can say which items it touched. The authored `ref` follows
# the text's first occurrence of the key (the author respelled it); the key, the edge's identity, stays.
UPDATE_WIKILINKS = """
UNWIND $rows AS row
MATCH (:Item {tenantId: $tenant, id: row.sourceId})-[r:WIKILINK {origin: 'wikilink', key: row.key}]->()
WHERE coalesce(r.label, '') <> coalesce(row.label, '') OR coalesce(r.heading, '') <> coalesce(row.heading, '')
   OR coalesce(r.context, '') <> coalesce(row.context, '') OR r.ref <> row.ref
   OR coalesce(r.embed, false) <> row.embed OR coalesce(r.count, 1) <> row.count
SET r.label = row.label, r.heading = row.heading, r.context = row.context, r.ref = row.ref,
    r.embed = row.embed, r.count = row.count
RETURN row.sourceId AS id
"""

# Outgoing pass: every note and document in the owners a source may link to whose name (a note's `slugName`, a
# document's `linkName`: text/resolve.py `key_name`) is the last segment of a key; which of them the key names,
# and which wins, is ranked in Python (services/wikilink_sync.py). Items written earlier in the same transaction
# are candidates too: links within a batch bind to each other.
_LINK_TARGETS = """UNWIND range(0, size($rows) - 1) AS i
WITH i, $rows[i] AS row
CALL (row) {
  MATCH (t:Note {tenantId: $tenant, slugName: row.name}) WHERE t.ownerKey IN row.owners
  RETURN t
  UNION
  MATCH (t:Document {tenantId: $tenant, linkName: row.name}) WHERE t.ownerKey IN row.owners AND t.deletedAt IS NULL
  RETURN t
}
"""
_TARGET = {"i": "i", "id": "t.id", "isNote": "t:Note", "path": "coalesce(t.slug, t.path)", "ownerKey": "t.ownerKey",
           "kind": "t.kind"}


def _columns(fields: dict[str, str]) -> str:
    return ", ".join(f"{expression} AS {name}" for name, expression in fields.items())


def _map(fields: dict[str, str]) -> str:
    return "{" + ", ".join(f"{name}: {expression}" for name, expression in fields.items()) + "}"


LINK_TARGETS = _LINK_TARGETS + "RETURN " + _columns(_TARGET) + "\n"

_SOURCE = {"sourceId": "s.id", "linkId": "r.id", "key": "r.key", "type": "type(r)", "sourceIsNote": "s:Note",
           "sourcePath": "coalesce(s.slug, s.path)", "sourceOwner": "s.ownerKey",
           "sourceTeams": "coalesce(s.linkTeams, [])", "claimable": "type(r) = 'WIKILINK' AND r.origin = 'wikilink'"}


# Incoming pass, what may move to the items being bound (decided in Python): edges to the ghosts of their names…
def _ghost_edges(names: str) -> str:
    return f"""UNWIND ${names} AS name
MATCH (g:Ghost {{tenantId: $tenant, name: name}})<-[r]-(s:Item {{tenantId: $tenant}})
"""


GHOST_EDGES_NAMING = _ghost_edges("names") + "RETURN " + _columns(_SOURCE) + "\n"


# …and edges bound to an item already under one of those names: fuzzy guesses (an exact name reclaims them) and
# wikilinks (the ranking may prefer a new item), both WIKILINK edges (graph/guesses.py), found by the name they are
# written with through the `wikilink_name` index (a walk over the tenant's every edge before: 96k db hits and
# 75 ms a save in a tenant of 1,000 notes).
def _bound_edges(names: str) -> str:
    return f"""UNWIND ${names} AS name
MATCH (s:Item {{tenantId: $tenant}})-[r:WIKILINK {{tenantId: $tenant, linkName: name}}]->(t:Item)
WHERE r.guessed = true OR (r.origin = 'wikilink' AND r.guessed IS NULL)
"""


_BOUND = {**_SOURCE, "targetId": "t.id", "targetIsNote": "t:Note", "targetPath": "coalesce(t.slug, t.path)",
          "targetOwner": "t.ownerKey", "guessed": "coalesce(r.guessed, false)"}

# A save's lookups, one statement (one round trip) where they took two or three: the names' locks (LOCK_NAMES; the
# count waits for every lock before anything is read), then under them the outgoing pass's candidates (`$rows`, as
# LINK_TARGETS) and the incoming pass's edges naming `$bindNames` (as GHOST_EDGES_NAMING, and `_bound_edges`),
# each as one list.
_LOCKED = LOCK_NAMES + "WITH count(*) AS locked\n"
_TARGETS = "CALL () {\n" + _LINK_TARGETS + "RETURN collect(" + _map(_TARGET) + ") AS targets\n}\n"
_EDGES = ("CALL () {\n" + _ghost_edges("bindNames") + "RETURN collect(" + _map(_SOURCE) + ") AS ghosts\n}\n"
          "CALL () {\n" + _bound_edges("bindNames") + "RETURN collect(" + _map(_BOUND) + ") AS bound\n}\n")
LOCKED_TARGETS = _LOCKED + _TARGETS + "RETURN targets, [] AS ghosts, [] AS bound\n"
LOCKED_TARGETS_AND_EDGES = _LOCKED + _TARGETS + _EDGES + "RETURN targets, ghosts, bound\n"
LOCKED_EDGES = _LOCKED + _EDGES + "RETURN [] AS targets, ghosts, bound\n"
EDGES_NAMING = _EDGES + "RETURN [] AS targets, ghosts, bound\n"

# Each edge becomes the same edge to its new target (a reclaimed guess loses its confidence); a ghost left
# without edges goes.
_MOVE_EDGES = """UNWIND $moves AS m
MATCH (s:Item {tenantId: $tenant, id: m.sourceId})-[r]->(old)
WHERE r.id = m.linkId
MATCH (n:Item {tenantId: $tenant, id: m.targetId})
CALL (s, r, n, m) {
  CREATE (s)-[b:$(type(r))]->(n)
  SET b = properties(r)
  FOREACH (_ IN CASE WHEN m.reclaim THEN [1] ELSE [] END | SET b.confidence = null, b.guessed = null)
}
DELETE r
WITH DISTINCT old WHERE old:Ghost
""" + drop_if_orphan("old")
MOVE_EDGES = "CYPHER 25\n" + _MOVE_EDGES

# A sync's writes after its lookups, one statement where they took up to three: the new edges (`$resolved`, then
# `$ghosted`, as CREATE_RESOLVED and CREATE_GHOSTED) and then the moves (`$moves`, as MOVE_EDGES); an empty list
# writes nothing. The moves never name a new edge (services/wikilink_sync.py `_bindings` skips those).
WRITE_EDGES = ("CYPHER 25\nCALL () {\n" + create_resolved("resolved") + "}\nCALL () {\n" + create_ghosted("ghosted")
               + "}\nCALL () {\n" + _MOVE_EDGES + "}\n")


async def wikilink_keys(tx: AsyncManagedTransaction, tenant: str, ids: list[str]) -> dict[str, list[str]]:
    result = await tx.run(WIKILINK_KEYS, tenant=tenant, ids=ids)
    keys: dict[str, list[str]] = {id: [] for id in ids}
    async for record in result:
        keys[record["id"]].append(record["key"])
    return keys


async def remove_wikilinks(
    tx: AsyncManagedTransaction, writes: WriteCount, tenant: str, items: list[dict[str, Any]]
) -> None:
    """`items`: {id, keep}: each item's text-made edges whose key is not in `keep` go."""
    await writes.add(await tx.run(REMOVE_WIKILINKS, tenant=tenant, items=items))


async def update_wikilinks(
    tx: AsyncManagedTransaction, writes: WriteCount, tenant: str, rows: list[dict[str, Any]]
) -> list[str]:
    """The source id of every edge changed (one entry per edge)."""
    result = await tx.run(UPDATE_WIKILINKS, tenant=tenant, rows=rows)
    changed = [record["id"] async for record in result]
    await writes.add(result)
    return changed


async def lock_names(tx: AsyncManagedTransaction, tenant: str, names: list[str]) -> None:
    """Hold the names' locks until the transaction ends; sorted, so two transactions take them in one order."""
    if names:
        await (await tx.run(LOCK_NAMES, tenant=tenant, names=sorted(set(names)))).consume()


@dataclass(frozen=True, slots=True)
class Lookup:
    """What a sync reads under its names' locks, as the statements that read each alone give it: link candidates
    (LINK_TARGETS rows) and the edges naming the items it binds (GHOST_EDGES_NAMING, BOUND_EDGES_NAMING rows)."""

    targets: list[dict[str, Any]] = field(default_factory=list)
    ghosts: list[dict[str, Any]] = field(default_factory=list)
    bound: list[dict[str, Any]] = field(default_factory=list)


async def locked_lookup(
    tx: AsyncManagedTransaction, tenant: str, names: list[str], rows: list[dict[str, Any]], bind_names: list[str]
) -> Lookup:
    """`lock_names(names)`, then under those locks `link_targets(rows)` and, with `bind_names`, the edges naming
    them (`edges_naming`): one statement."""
    if bind_names:
        query = LOCKED_TARGETS_AND_EDGES if rows else LOCKED_EDGES
    elif rows:
        query = LOCKED_TARGETS
    else:
        await lock_names(tx, tenant, names)
        return Lookup()
    result = await tx.run(query, tenant=tenant, names=sorted(set(names)), rows=rows, bindNames=bind_names)
    record = await result.single(strict=True)
    return Lookup(record["targets"], record["ghosts"], record["bound"])


async def edges_naming(tx: AsyncManagedTransaction, tenant: str, names: list[str]) -> Lookup:
    """`ghost_edges_naming` and `bound_edges_naming` in one statement."""
    record = await (await tx.run(EDGES_NAMING, tenant=tenant, bindNames=names)).single(strict=True)
    return Lookup(ghosts=record["ghosts"], bound=record["bound"])


async def link_targets(tx: AsyncManagedTransaction, tenant: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`rows`: {name, owners}; each candidate says the index of its row as `i`."""
    result = await tx.run(LINK_TARGETS, tenant=tenant, rows=rows)
    return [dict(record) async for record in result]


async def create_links(
    tx: AsyncManagedTransaction, writes: WriteCount, tenant: str, resolved: list[dict[str, Any]],
    ghosted: list[dict[str, Any]],
) -> None:
    """Rows {sourceId, type, key, targetId, props}: to their target, or to the ghost of their key."""
    await write_edges(tx, writes, tenant, resolved, ghosted, [])


async def write_edges(
    tx: AsyncManagedTransaction, writes: WriteCount, tenant: str, resolved: list[dict[str, Any]],
    ghosted: list[dict[str, Any]], moves: list[dict[str, Any]],
) -> None:
    """`create_links(resolved, ghosted)`, then `move_edges(moves)`: one statement, or none when all are empty."""
    if resolved and not ghosted and not moves:
        await writes.add(await tx.run(CREATE_RESOLVED, tenant=tenant, rows=resolved))
    elif ghosted and not resolved and not moves:
        await writes.add(await tx.run(CREATE_GHOSTED, tenant=tenant, rows=ghosted))
    elif moves and not resolved and not ghosted:
        await move_edges(tx, writes, tenant, moves)
    elif resolved or ghosted or moves:
        await writes.add(await tx.run(WRITE_EDGES, tenant=tenant, resolved=resolved, ghosted=ghosted, moves=moves))


async def ghost_edges_naming(tx: AsyncManagedTransaction, tenant: str, names: list[str]) -> list[dict[str, Any]]:
    result = await tx.run(GHOST_EDGES_NAMING, tenant=tenant, names=names)
    return [dict(record) async for record in result]


async def move_edges(tx: AsyncManagedTransaction, writes: WriteCount, tenant: str, moves: list[dict[str, Any]]) -> None:
    """`moves`: {sourceId, linkId, targetId, reclaim}."""
    await writes.add(await tx.run(MOVE_EDGES, tenant=tenant, moves=moves))
