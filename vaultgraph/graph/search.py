"""Cypher for search: the full-text channel, the vector channel, the substring fallback, and link suggestions.

Every channel returns raw rows `[itemId, score, chunkText, topicId, visible]`: a chunk or topic hit names its item
(and a topic hit itself), and `visible` says whether the item passes the caller's filters (owner keys, scope, types,
tags, not archived or deleted). Rows stay in the answer even when not visible, so the service can tell "the index
ran dry" from "the filters ate the page" and fetch deeper only in the second case. The rows come collected in one
record, in the index's order: a channel reads up to 400 rows for `limit: 100`, and the async driver's cost per
streamed record was three times the statement's own (bench/README.md, search at depth).

Tenancy: the vector index carries `tenantId` and `scope`, so `SEARCH … WHERE` filters inside the index and
returns k of the tenant's own nodes. The full-text index holds `tenantId` as a field (migration 2), so the Lucene
query itself is restricted to the tenant; `node.tenantId = $tenant` is checked again here all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.graph.migrations import FULLTEXT_INDEX, WORDS_INDEX, embedded_label, vector_index_name
from vaultgraph.graph.search_text import SEARCH_TEXT_FIELD
from vaultgraph.graph.vectors import VectorModel, from_model

# Fields of the full-text index a user's words are matched in (tenantId is not one of them).
FULLTEXT_FIELDS = (SEARCH_TEXT_FIELD,)

# The item a node stands for (a chunk or topic stands for its item, looked up; an item for itself, no lookup: at
# depth most rows are items, and the seek per row was a fifth of the statement's db hits), and whether the caller
# may see it with these filters (the vector channel adds one: the query's model made the node's vector).
_VISIBLE_TEMPLATE = """
WITH node, score, node:Chunk OR node:Topic AS part
WITH node, score, part, CASE WHEN part THEN node.itemId ELSE node.id END AS itemId
OPTIONAL CALL (part, itemId) {
  WITH part, itemId WHERE part
  MATCH (owner:Item {tenantId: $tenant, id: itemId})
  RETURN owner
}
WITH node, score, part, itemId, CASE WHEN part THEN owner WHEN node:Item THEN node END AS item
WITH node, score, part, itemId, item,
     node.tenantId = $tenant AND item IS NOT NULL AND item.deletedAt IS NULL AND item.archivedAt IS NULL
     AND ($ownerKeys IS NULL OR item.ownerKey IN $ownerKeys)
     AND ($scope IS NULL OR item.scope = $scope)
     AND (($labels IS NULL AND $kinds IS NULL)
          OR any(label IN labels(item) WHERE label IN coalesce($labels, []))
          OR coalesce(item.docType, item.kind) IN coalesce($kinds, []))
     AND ($tags IS NULL OR any(tag IN coalesce(item.tags, []) WHERE tag IN $tags))
     AND ($categories IS NULL OR item.category IN $categories)
     AND NOT itemId IN $exclude {extra} AS visible
RETURN collect([itemId, score, CASE WHEN visible AND part THEN node.text END,
                CASE WHEN visible AND node:Topic THEN node.id END, visible]) AS rows
"""
_VISIBLE = _VISIBLE_TEMPLATE.replace("{extra}", "")
_VISIBLE_FROM_MODEL = _VISIBLE_TEMPLATE.replace("{extra}", "AND " + from_model("node"))

KEYWORD_HITS = """
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $limit}) YIELD node, score
WHERE score > 0
""" + _VISIBLE

# The substring fallback when Lucene finds no word of the query (GoClaw's ILIKE pass, for cross-language queries and
# parts of words): the index of words as written proposes the tenant's nodes with a word containing a keyword
# (text/lucene.py `fallback_query`), and their text decides: the score is the share of keywords the text contains,
# in [0, 1]. A scan of the tenant's text did this before, at a cost growing with the tenant (bench/README.md, search
# under an import).
FALLBACK_HITS = """
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $limit}) YIELD node
WITH node, toLower(coalesce(node.""" + SEARCH_TEXT_FIELD + """, '')) AS hay
WITH node, size([keyword IN $keywords WHERE hay CONTAINS keyword]) AS found
WHERE found > 0
WITH node, toFloat(found) / size($keywords) AS score
ORDER BY score DESC
""" + _VISIBLE


def _vector_statement(dimensions: int, scoped: bool) -> str:
    # The index name and label come from an int; the SEARCH filter allows only property predicates joined by AND.
    # Neo4j's cosine score is (1 + cos) / 2; the statement turns it back into the cosine.
    where = "node.tenantId = $tenant" + (" AND node.scope = $scope" if scoped else "")
    return f"""
CYPHER 25
MATCH (node:{embedded_label(dimensions)})
SEARCH node IN (VECTOR INDEX {vector_index_name(int(dimensions))} FOR $vector WHERE {where} LIMIT $limit)
SCORE AS similarity
WITH node, 2 * similarity - 1 AS score
""" + _VISIBLE_FROM_MODEL


# What GoClaw's merge rules need to know of a fused hit: whose it is and which text it holds (a document's
# contentHash and a note's bodySha256 are both the SHA-256 of the text, so a note and a file of the same text match).
ITEM_IDENTITIES = """
MATCH (item:Item {tenantId: $tenant}) WHERE item.id IN $ids
RETURN item.id AS id, item.ownerKey AS ownerKey, coalesce(item.contentHash, item.bodySha256) AS contentHash
"""

# How many items the tenant holds: the number of chances an unrelated item has to look similar by luck
# (services/similarity_floor.py). Served by the (tenantId, createdAt) index.
ITEM_COUNT = "MATCH (n:Item {tenantId: $tenant}) WHERE n.deletedAt IS NULL RETURN count(n) AS items"

NOTES_LINKED_TO = """
MATCH (n:Item {tenantId: $tenant, id: $id})-[r]-(m:Item {tenantId: $tenant})
RETURN collect(DISTINCT m.id) AS ids
"""


@dataclass(frozen=True, slots=True)
class RawHit:
    item_id: str
    score: float
    chunk_text: str | None
    visible: bool
    topic_id: str | None = None  # the topic that matched, when the row is a topic's


@dataclass(frozen=True, slots=True)
class ItemIdentity:
    owner_key: str
    content_hash: str | None  # None for a document not read yet


@dataclass(frozen=True, slots=True)
class HitFilter:
    tenant: str
    owner_keys: list[str] | None
    scope: str | None = None
    labels: list[str] | None = None
    kinds: list[str] | None = None
    tags: list[str] | None = None
    exclude: list[str] | None = None
    categories: list[str] | None = None  # documents of these taxonomy categories (notes have none)

    def params(self) -> dict[str, Any]:
        return {"tenant": self.tenant, "ownerKeys": self.owner_keys, "scope": self.scope, "labels": self.labels,
                "kinds": self.kinds, "tags": self.tags, "exclude": self.exclude or [], "categories": self.categories}


# Which of these names a visible note kind or document type has in the tenant: a type filter naming none of them
# could never match, and is refused rather than answered with nothing.
TYPES_IN_USE = """
UNWIND $types AS type
WITH type
WHERE EXISTS { MATCH (n:Note {tenantId: $tenant}) WHERE n.kind = type
                 AND ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys) }
   OR EXISTS { MATCH (d:Document {tenantId: $tenant}) WHERE d.docType = type AND d.deletedAt IS NULL
                 AND ($ownerKeys IS NULL OR d.ownerKey IN $ownerKeys) }
RETURN type
"""


async def types_in_use(tx: AsyncManagedTransaction, tenant: str, types: list[str],
                       owner_keys: list[str] | None) -> set[str]:
    result = await tx.run(TYPES_IN_USE, tenant=tenant, types=types, ownerKeys=owner_keys)
    return {record["type"] async for record in result}


async def _rows(tx: AsyncManagedTransaction, statement: str, **params: Any) -> list[RawHit]:
    record = await (await tx.run(statement, **params)).single(strict=True)
    return [RawHit(item_id, float(score), chunk_text, bool(visible), topic_id)
            for item_id, score, chunk_text, topic_id, visible in record["rows"]]


async def keyword_hits(tx: AsyncManagedTransaction, lucene: str, limit: int, where: HitFilter) -> list[RawHit]:
    return await _rows(tx, KEYWORD_HITS, index=FULLTEXT_INDEX, lucene=lucene, limit=limit, **where.params())


async def fallback_hits(
    tx: AsyncManagedTransaction, lucene: str, keywords: list[str], limit: int, where: HitFilter
) -> list[RawHit]:
    return await _rows(tx, FALLBACK_HITS, index=WORDS_INDEX, lucene=lucene, keywords=keywords, limit=limit,
                       **where.params())


async def vector_hits(
    tx: AsyncManagedTransaction, vector: list[float], model: VectorModel, limit: int, where: HitFilter
) -> list[RawHit]:
    """Nearest nodes among the vectors `model` made (another model's, not re-embedded yet, are not visible)."""
    statement = _vector_statement(model.dimensions, scoped=where.scope is not None)
    return await _rows(tx, statement, vector=vector, limit=limit, model=model.name, **where.params())


async def item_identities(tx: AsyncManagedTransaction, tenant: str, ids: list[str]) -> dict[str, ItemIdentity]:
    result = await tx.run(ITEM_IDENTITIES, tenant=tenant, ids=ids)
    return {r["id"]: ItemIdentity(r["ownerKey"], r["contentHash"]) async for r in result}


async def item_count(tx: AsyncManagedTransaction, tenant: str) -> int:
    record = await (await tx.run(ITEM_COUNT, tenant=tenant)).single(strict=True)
    return int(record["items"])


async def linked_ids(tx: AsyncManagedTransaction, tenant: str, id: str) -> set[str]:
    """Items joined to this one by a resolved edge, either way."""
    record = await (await tx.run(NOTES_LINKED_TO, tenant=tenant, id=id)).single(strict=True)
    return set(record["ids"])
