"""Cypher for the fuzzy link pass and the review of unresolved refs.

A guess only ever fills an empty slot: it moves one `WIKILINK` edge from its ghost to a note, marked `guessed: true`
with the candidate's score as `confidence`. It never touches a resolved, agent or suggestion edge, and an exact
match later reclaims it (`EDGES_NAMING` and `MOVE_EDGES` in graph/wikilinks.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.graph.links import drop_if_orphan

# Ghost edges of one item that no fuzzy pass has looked at yet, oldest first.
UNTRIED_GHOST_EDGES = """
MATCH (:Item {tenantId: $tenant, id: $id})-[r:WIKILINK {origin: 'wikilink'}]->(:Ghost {tenantId: $tenant})
WHERE r.fuzzyCheckedAt IS NULL
RETURN r.id AS linkId, r.key AS ref, r.ref AS text, r.context AS context
ORDER BY r.createdAt, r.id LIMIT $limit
"""

BIND_GUESS = """
CYPHER 25
MATCH (s:Item {tenantId: $tenant})-[r:WIKILINK {id: $linkId, origin: 'wikilink'}]->(g:Ghost {tenantId: $tenant})
MATCH (t:Item {tenantId: $tenant, id: $targetId})
CREATE (s)-[b:WIKILINK]->(t)
SET b = properties(r), b.guessed = true, b.confidence = $confidence, b.fuzzyCheckedAt = datetime()
DELETE r
WITH DISTINCT g
""" + drop_if_orphan("g")

# The model said none of the candidates is the linked note: ask once per edge, not on every save.
MARK_CHECKED = """
MATCH (:Item {tenantId: $tenant})-[r:WIKILINK {id: $linkId}]->(:Ghost)
SET r.fuzzyCheckedAt = datetime()
"""

# Each source once, in the order of its first link to the ref (an item can point at one ghost twice: a [[link]] in
# its text and a typed link by the same name); `links` counts every link. The first link is kept as the relationship
# itself (head of the ordered collect): an earlier form that collected [createdAt, id] pairs and ordered by their
# elements failed inside Neo4j 2026.08 twice in one fresh-clone run ("Index 33554418 out of bounds for length 1",
# Neo.DatabaseError.Statement.ExecutionFailed), though not when run alone.
GHOSTS = """
MATCH (g:Ghost {tenantId: $tenant})<-[r]-(s:Item {tenantId: $tenant})
WHERE ($ownerKeys IS NULL OR s.ownerKey IN $ownerKeys) AND s.archivedAt IS NULL AND s.deletedAt IS NULL
WITH g, r, s ORDER BY r.createdAt, r.id
WITH g, s, collect(r) AS rels
WITH g, s, head(rels) AS first, size(rels) AS links
WITH g, s, first, links ORDER BY first.createdAt, first.id
WITH g, collect(s.id) AS sources, head(collect(first.ref)) AS text, sum(links) AS links
RETURN g.ref AS ref, text, sources[..$perRef] AS sources, links
ORDER BY links DESC, ref LIMIT $limit
"""


@dataclass(frozen=True, slots=True)
class GhostEdge:
    link_id: str
    ref: str
    text: str
    context: str | None


@dataclass(frozen=True, slots=True)
class GhostRef:
    ref: str
    text: str
    source_ids: list[str]
    links: int


async def untried_ghost_edges(tx: AsyncManagedTransaction, tenant: str, id: str, limit: int) -> list[GhostEdge]:
    result = await tx.run(UNTRIED_GHOST_EDGES, tenant=tenant, id=id, limit=limit)
    return [GhostEdge(r["linkId"], r["ref"], r["text"], r["context"]) async for r in result]


async def bind_guess(tx: AsyncManagedTransaction, tenant: str, link_id: str, target_id: str, confidence: float) -> int:
    """Move the ghost edge to the target; 0 when it is no longer a ghost edge (bound meanwhile)."""
    summary = await (await tx.run(BIND_GUESS, tenant=tenant, linkId=link_id, targetId=target_id,
                                  confidence=confidence)).consume()
    return summary.counters.relationships_created


async def mark_checked(tx: AsyncManagedTransaction, tenant: str, link_id: str) -> None:
    await (await tx.run(MARK_CHECKED, tenant=tenant, linkId=link_id)).consume()


async def ghosts(tx: AsyncManagedTransaction, tenant: str, owner_keys: list[str] | None, limit: int,
                 per_ref: int) -> list[GhostRef]:
    params: dict[str, Any] = {"tenant": tenant, "ownerKeys": owner_keys, "limit": limit, "perRef": per_ref}
    result = await tx.run(GHOSTS, **params)
    return [GhostRef(r["ref"], r["text"], list(r["sources"]), r["links"]) async for r in result]
