"""Cypher for typed edges: manual links, pages, counts and BFS levels (the wikilink diff and ghost binding, which
take many items at once, are graph/wikilinks.py).

Edges are native relationship types (validated before they reach a query; see services/links.py). Each edge keeps
`ref`, its target as authored (display only, never rewritten), and `key`, the resolution key (text/resolve.py
`link_key`) that binding, unbinding, ghosts and duplicate checks compare. A ghost is a `:Ghost {tenantId, ref,
name}` placeholder keyed by that key (its property is still called `ref`: the uniqueness constraint `ghost_ref`
holds it; `name` is the key's last segment, which the incoming pass looks ghosts up by): edges to it show in
outgoing lists, never in traversal or the graph view. Statements that name a relationship type from data use
Cypher 25's dynamic types, `[:$(type)]`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction, AsyncResult

from vaultgraph.domain import Direction, Item, Link
from vaultgraph.graph.records import item_from_node, item_map, link_from_record, link_map, vanished


@dataclass
class WriteCount:
    """Relationship and property writes of link statements, summed from Neo4j's own counters."""

    created: int = 0
    deleted: int = 0
    properties: int = 0

    @property
    def total(self) -> int:
        return self.created + self.deleted + self.properties

    async def add(self, result: AsyncResult) -> None:
        counters = (await result.consume()).counters
        self.created += counters.relationships_created
        self.deleted += counters.relationships_deleted
        self.properties += counters.properties_set


def drop_if_orphan(ghost: str) -> str:
    """Cypher that deletes the ghost bound to `ghost` if no edge points at it any more. It takes the ghost's write
    lock first (`SET … REMOVE`) and only then looks: a concurrent save that links to it holds that lock until it
    commits, so the look sees its edge (otherwise the delete fails at commit with "still has relationships"); the
    other order, a save that matched the ghost before it went, is retried by `Graph`."""
    return (f"SET {ghost}.deleting = true REMOVE {ghost}.deleting\n"
            f"WITH {ghost} WHERE NOT EXISTS {{ ({ghost})<--() }}\n"
            f"DELETE {ghost}\n")


def merge_ghost(ghost: str, key: str) -> str:
    """Cypher that binds `ghost` to the ghost of the key `key` (an expression), creating it with its name."""
    return (f"MERGE ({ghost}:Ghost {{tenantId: $tenant, ref: {key}}})\n"
            f"ON CREATE SET {ghost}.name = last(split({key}, '/'))\n")


# Every new edge carries its tenant and its key's last segment (the name it is written with), so the edges naming
# a name are an index seek (migration 255's `wikilink_name`), not a walk over every edge of the tenant; copies of an
# edge (moved to a new target or back to a ghost) keep both with the rest of its properties.
NAMED_EDGE = "r.tenantId = $tenant, r.linkName = last(split(row.props.key, '/'))"


def create_resolved(rows: str) -> str:
    """Cypher creating the edges of the rows in `$<rows>` to their targets (see CREATE_RESOLVED)."""
    return f"""UNWIND ${rows} AS row
MATCH (s:Item {{tenantId: $tenant, id: row.sourceId}}), (t:Item {{tenantId: $tenant, id: row.targetId}})
CREATE (s)-[r:$(row.type)]->(t)
SET r = row.props, r.createdAt = datetime(), """ + NAMED_EDGE + """
"""


def create_ghosted(rows: str) -> str:
    """Cypher creating the edges of the rows in `$<rows>` to the ghosts of their keys (see CREATE_GHOSTED)."""
    return f"""UNWIND ${rows} AS row
MATCH (s:Item {{tenantId: $tenant, id: row.sourceId}})
""" + merge_ghost("g", "row.key") + """CREATE (s)-[r:$(row.type)]->(g)
SET r = row.props, r.createdAt = datetime(), """ + NAMED_EDGE + """
"""


# New edges, each row {sourceId, type, key, targetId, props}: to its target, or to the ghost of its key.
CREATE_RESOLVED = "CYPHER 25\n" + create_resolved("rows")
CREATE_GHOSTED = "CYPHER 25\n" + create_ghosted("rows")

# Hard delete: inbound edges go back to ghosts of their key, so they re-bind if it comes back.
UNBIND_INBOUND = """
CYPHER 25
MATCH (n:Item {tenantId: $tenant, id: $id})<-[r]-(s:Item)
WHERE s.id <> n.id
""" + merge_ghost("g", "r.key") + """WITH s, r, g
CALL (s, r, g) {
  CREATE (s)-[b:$(type(r))]->(g)
  SET b = properties(r), b.confidence = null, b.guessed = null, b.fuzzyCheckedAt = null
}
DELETE r
"""

DELETE_ITEM = """
MATCH (n:Item {tenantId: $tenant, id: $id})
OPTIONAL MATCH (n)-->(g:Ghost)
WITH n, collect(DISTINCT g) AS ghosts
OPTIONAL MATCH (c:Chunk {tenantId: $tenant, itemId: $id})
DETACH DELETE c
WITH DISTINCT n, ghosts
OPTIONAL MATCH (t:Topic {tenantId: $tenant, itemId: $id})
DETACH DELETE t
WITH DISTINCT n, ghosts
DETACH DELETE n
WITH ghosts UNWIND ghosts AS g
WITH g
""" + drop_if_orphan("g")

LINK_BY_ID = """
MATCH (s:Item {tenantId: $tenant})-[r {id: $linkId}]->(t)
RETURN """ + f"{link_map('r')} AS r, {item_map('s')} AS s, {item_map('t')} AS t"

# Links of one type from one item with one key, each with its target's owner (null for a ghost), so the caller
# can tell a duplicate it may know of from one it may not.
LINKS_WITH_KEY = """
MATCH (:Item {tenantId: $tenant, id: $id})-[r {key: $key}]->(t) WHERE type(r) = $type
RETURN r.id AS id, CASE WHEN t:Item THEN t.ownerKey END AS targetOwner ORDER BY r.createdAt, r.id
"""

DELETE_LINK = """
MATCH (:Item {tenantId: $tenant})-[r {id: $linkId}]->(t)
DELETE r
WITH t WHERE t:Ghost
""" + drop_if_orphan("t")

# Pages of links for many items at once: one statement per batch, so N items cost one query, not N.
# Oldest first; between the cursors, read from `after` onward or (backward, Relay's last/before) from `before` back.
# No index orders a node's relationships by a property, so a page reads the `createdAt` of every edge of its item;
# the rest it reads only for the rows it keeps. The sort is by `createdAt` alone, and its rows stream through the
# tests of the other end (its labels, owner, deletion: the WHERE of that `WITH … ORDER BY`) into the page's own
# ORDER BY … LIMIT, which Neo4j then plans as a PartialTop: it breaks ties by id among the rows it takes and stops
# at the page. A top-k over both keys, after the tests, read the other end and the id of every one of a hub's
# 2,784 backlinks (PROFILE, bench/README.md: 19,126 db hits for the page, 8,146 now).
EDGE_FILTERS = """
  AND ($types IS NULL OR type(r) IN $types)
  AND ($afterTs IS NULL OR r.createdAt > datetime($afterTs) OR (r.createdAt = datetime($afterTs) AND r.id > $afterId))
  AND ($beforeTs IS NULL OR r.createdAt < datetime($beforeTs)
       OR (r.createdAt = datetime($beforeTs) AND r.id < $beforeId))"""

# The other end: an item or a ghost (outgoing; never a topic), the caller may see it, not deleted. Backlinks come
# from items only (a ghost or a topic has no edge out).
END_FILTERS = {
    True: "(other:Item OR other:Ghost) AND ($ownerKeys IS NULL OR other:Ghost OR other.ownerKey IN $ownerKeys)\n"
          "    AND (other:Ghost OR other.deletedAt IS NULL)",
    False: "other:Item AND ($ownerKeys IS NULL OR other.ownerKey IN $ownerKeys) AND other.deletedAt IS NULL",
}


def page_order(backward: bool) -> str:
    return "r.createdAt DESC, r.id DESC" if backward else "r.createdAt, r.id"


def page_rows(outgoing: bool, backward: bool) -> str:
    """Cypher from the item bound to `n` to its page: rows `r, other` in reading order, at most `$limit`."""
    arrow = "-[r]->" if outgoing else "<-[r]-"
    return f"""MATCH (n){arrow}(other)
  WHERE true{EDGE_FILTERS}
  WITH r, other ORDER BY r.createdAt{" DESC" if backward else ""}
  WHERE {END_FILTERS[outgoing]}
  WITH r, other ORDER BY {page_order(backward)} LIMIT $limit"""


def _pages(outgoing: bool, backward: bool) -> str:
    return f"""
UNWIND $ids AS id
CALL (id) {{
  MATCH (n:Item {{tenantId: $tenant, id: id}})
  {page_rows(outgoing, backward)}
  RETURN r, other
}}
RETURN id, {link_map('r')} AS r, {item_map('other')} AS other"""


OUTGOING_PAGES = _pages(outgoing=True, backward=False)
BACKLINK_PAGES = _pages(outgoing=False, backward=False)
# Relay's last/before: the rows nearest `before` first (services/pagination.py turns the page round).
PAGES_BACKWARD = {True: _pages(outgoing=True, backward=True), False: _pages(outgoing=False, backward=True)}

OUTGOING_COUNTS = """
UNWIND $ids AS id
OPTIONAL MATCH (:Item {tenantId: $tenant, id: id})-[r]->(other)
WHERE (other:Item OR other:Ghost) AND ($types IS NULL OR type(r) IN $types)
  AND ($ownerKeys IS NULL OR other:Ghost OR other.ownerKey IN $ownerKeys)
RETURN id, count(r) AS total
"""

BACKLINK_COUNTS = """
UNWIND $ids AS id
OPTIONAL MATCH (:Item {tenantId: $tenant, id: id})<-[r]-(other:Item)
WHERE ($types IS NULL OR type(r) IN $types) AND ($ownerKeys IS NULL OR other.ownerKey IN $ownerKeys)
RETURN id, count(r) AS total
"""

# BACKLINK_COUNTS with neither a type nor an owner to filter on (`counted_by_degree`): every edge into an item
# comes from an item, so the count is the item's incoming degree, which Neo4j keeps with the node and answers
# without reading an edge (PROFILE: `getDegree`, 1 db hit, against 5,570 for the hub's 2,784 backlinks).
DEGREE = "COUNT { (n)<--() }"
BACKLINK_DEGREES = f"""
UNWIND $ids AS id
OPTIONAL MATCH (n:Item {{tenantId: $tenant, id: id}})
RETURN id, CASE WHEN n IS NULL THEN 0 ELSE {DEGREE} END AS total
"""


def counted_by_degree(outgoing: bool, params: Mapping[str, Any]) -> bool:
    """Whether a connection's total, with these parameters, is its item's degree (BACKLINK_DEGREES)."""
    return not outgoing and params.get("types") is None and params.get("ownerKeys") is None


# One BFS level: every edge from the frontier to an unvisited, visible item; ghosts are not traversable.
# Each item comes once, by the first edge that reaches it in (fid, createdAt, id) order — with $ranked, the
# frontier's own order comes first — and at most $limit items come (BFS asks for one more than it can still take,
# so it tells "full" from "over"): a hub's level is cut in Neo4j, not after shipping its thousands of neighbours.
# `collect` keeps the order of the rows it is fed.
_LEVEL = """
UNWIND range(0, size($frontier) - 1) AS i
WITH i, $frontier[i] AS fid
MATCH (f:Item {tenantId: $tenant, id: fid}){pattern}(m:Item {tenantId: $tenant})
WHERE NOT m.id IN $visited AND m.deletedAt IS NULL AND m.archivedAt IS NULL
  AND ($types IS NULL OR type(r) IN $types)
  AND ($ownerKeys IS NULL OR m.ownerKey IN $ownerKeys)
WITH fid, f, r, m, CASE WHEN $ranked THEN i ELSE 0 END AS rank
ORDER BY rank, fid, r.createdAt, r.id
WITH m, collect({rank: rank, fid: fid, linkId: r.id, type: type(r), outgoing: startNode(r) = f,
                 at: r.createdAt})[0] AS via
WITH m, via ORDER BY via.rank, via.fid, via.at, via.linkId LIMIT coalesce($limit, 1000000000)
RETURN via.fid AS fid, via.linkId AS linkId, via.type AS type, via.outgoing AS outgoing, """ + item_map("m") + """ AS m
"""
LEVEL_QUERIES = {
    Direction.OUT: _LEVEL.replace("{pattern}", "-[r]->"),
    Direction.IN: _LEVEL.replace("{pattern}", "<-[r]-"),
    Direction.BOTH: _LEVEL.replace("{pattern}", "-[r]-"),
}

GLOBAL_GRAPH_NODES = """
MATCH (n:Item {tenantId: $tenant})
WHERE n.deletedAt IS NULL AND n.archivedAt IS NULL AND ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys)
WITH n ORDER BY n.createdAt DESC, n.id LIMIT $limit
RETURN """ + item_map("n") + " AS n"

# The endpoints are among the caller's nodes already: the links name them by id. The first $limit edges, and how
# many there are in all (so a cut view says so).
_AMONG = """
MATCH (s:Item {tenantId: $tenant})-[r]->(t:Item {tenantId: $tenant})
WHERE s.id IN $ids AND t.id IN $ids
"""
EDGES_AMONG = _AMONG + "WITH r ORDER BY r.createdAt, r.id LIMIT $limit\nRETURN " + link_map("r") + " AS r"
COUNT_EDGES_AMONG = _AMONG + "RETURN count(r) AS total"


async def run_counted(tx: AsyncManagedTransaction, writes: WriteCount, query: str, **params: Any) -> None:
    await writes.add(await tx.run(query, **params))


async def link_by_id(tx: AsyncManagedTransaction, tenant: str, link_id: str) -> Link | None:
    record = await (await tx.run(LINK_BY_ID, tenant=tenant, linkId=link_id)).single()
    return link_from_record(record["r"], record["s"], record["t"]) if record else None


async def links_with_key(
    tx: AsyncManagedTransaction, tenant: str, id: str, key: str, type: str
) -> list[tuple[str, str | None]]:
    """(link id, target owner key or None for a ghost) of each `type` link from `id` with this key."""
    result = await tx.run(LINKS_WITH_KEY, tenant=tenant, id=id, key=key, type=type)
    return [(record["id"], record["targetOwner"]) async for record in result]


async def link_pages(
    tx: AsyncManagedTransaction, outgoing: bool, backward: bool = False, **params: Any
) -> dict[str, list[Link]]:
    """Each item's page rows in reading order: backward, the nearest to `before` first."""
    statement = PAGES_BACKWARD[outgoing] if backward else OUTGOING_PAGES if outgoing else BACKLINK_PAGES
    result = await tx.run(statement, **params)
    pages: dict[str, list[Link]] = {id: [] for id in params["ids"]}
    async for record in result:
        pages[record["id"]].append(link_from_record(record["r"], record["other"]))
    return pages


async def link_pages_and_counts(
    tx: AsyncManagedTransaction, outgoing: bool, backward: bool = False, **params: Any
) -> tuple[dict[str, list[Link]], dict[str, int]]:
    """Pages and their totals in one transaction, for a connection that asks for both."""
    pages = await link_pages(tx, outgoing, backward, **params)
    return pages, await link_counts(tx, outgoing, **params)


async def link_counts(tx: AsyncManagedTransaction, outgoing: bool, **params: Any) -> dict[str, int]:
    statement = (BACKLINK_DEGREES if counted_by_degree(outgoing, params)
                 else OUTGOING_COUNTS if outgoing else BACKLINK_COUNTS)
    result = await tx.run(statement, **params)
    return {record["id"]: record["total"] async for record in result}


async def bfs_level(
    tx: AsyncManagedTransaction, direction: Direction, limit: int | None = None, ranked: bool = False, **params: Any
) -> list[dict[str, Any]]:
    """The items one step from `frontier`, each once; `limit` caps them, `ranked` prefers earlier frontier ids."""
    result = await tx.run(LEVEL_QUERIES[direction], limit=limit, ranked=ranked, **params)
    return [
        {**dict(record), "item": item_from_node(record["m"])}
        async for record in result if not vanished(record["m"])
    ]


async def global_graph(
    tx: AsyncManagedTransaction, tenant: str, owner_keys: list[str] | None, node_limit: int, edge_limit: int
) -> tuple[list[Item], bool, list[Link], int]:
    """The newest `node_limit` visible items (and whether there are more), the first `edge_limit` resolved edges
    among them, and how many edges there are among them in all."""
    result = await tx.run(GLOBAL_GRAPH_NODES, tenant=tenant, ownerKeys=owner_keys, limit=node_limit + 1)
    nodes = [item_from_node(record["n"]) async for record in result if not vanished(record["n"])]
    more = len(nodes) > node_limit
    nodes = nodes[:node_limit]
    edges, total = await edges_among(tx, tenant, nodes, edge_limit)
    return nodes, more, edges, total


async def edges_among(
    tx: AsyncManagedTransaction, tenant: str, nodes: list[Item], limit: int
) -> tuple[list[Link], int]:
    """The first `limit` resolved edges among these items, each with its endpoints taken from `nodes`, and how many
    there are in all."""
    by_id = {node.id: node for node in nodes}
    result = await tx.run(EDGES_AMONG, tenant=tenant, ids=list(by_id), limit=limit)
    edges = [link_from_record(record["r"], items=by_id) async for record in result]
    total = await (await tx.run(COUNT_EDGES_AMONG, tenant=tenant, ids=list(by_id))).single(strict=True)
    return edges, int(total["total"])


# The shortest path between two items along resolved links (ghosts are not items, so never on it), through items
# the caller can see that are neither deleted nor archived: GQL's SHORTEST 1 over a quantified path pattern, which
# Neo4j searches breadth-first with the predicates applied as it goes. The bound on hops must be a literal.
_PATH_STEP = {Direction.OUT: "-[r]->", Direction.IN: "<-[r]-", Direction.BOTH: "-[r]-"}


def shortest_path_query(direction: Direction, max_hops: int) -> str:
    if not 1 <= max_hops <= 5:  # services/links.py checks it; spliced into the statement, so checked here too
        raise ValueError(f"max_hops {max_hops} outside 1-5")
    step = _PATH_STEP[direction]
    return f"""
CYPHER 25
MATCH (a:Item {{tenantId: $tenant, id: $from}}), (b:Item {{tenantId: $tenant, id: $to}})
MATCH p = SHORTEST 1 (a) ((x){step}(m:Item)
  WHERE m.tenantId = $tenant AND m.deletedAt IS NULL AND m.archivedAt IS NULL
    AND ($ownerKeys IS NULL OR m.ownerKey IN $ownerKeys) AND ($types IS NULL OR type(r) IN $types)){{1,{max_hops}}} (b)
RETURN [n IN nodes(p) | {item_map('n')}] AS nodes, [rel IN relationships(p) | {link_map('rel')}] AS links
"""


async def shortest_path(
    tx: AsyncManagedTransaction, direction: Direction, max_hops: int, **params: Any
) -> tuple[list[Item], list[Link]] | None:
    """The items along the path, `from` first, and its links in order; None when no path is that short."""
    record = await (await tx.run(shortest_path_query(direction, max_hops), **params)).single()
    if record is None:
        return None
    nodes = [item_from_node(n) for n in record["nodes"]]
    by_id = {n.id: n for n in nodes}
    return nodes, [link_from_record(rel, items=by_id) for rel in record["links"]]
