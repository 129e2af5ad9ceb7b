"""Cypher for the search index of an item: its `:Chunk` nodes and the item's own embedding.

A chunk is `(:Chunk:Embedded{dim} {tenantId, id, itemId, scope, ownerKey, ordinal, heading, text, contentHash,
embedding, embeddingModel, embeddingDimensions})`; its vector and the item's own are written by graph/vectors.py's
one rule. Chunks carry the item's tenant and scope so the vector index filters on them inside
the index, and its owner key so search can drop what the caller may not see. Labels from data go through Cypher
25's dynamic labels, and are only ever `embedded_label(dim)` (an int).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.graph.locking import locked_where
from vaultgraph.graph.search_text import set_search_text
from vaultgraph.graph.vectors import VectorModel, from_model, set_vector

# Statements take many items at once (one item is a list of one): a batch of saved notes is indexed with one
# read and one write transaction.
INDEX_STATES = """
UNWIND $ids AS id
MATCH (n:Item {tenantId: $tenant, id: id})
OPTIONAL MATCH (c:Chunk {tenantId: $tenant, itemId: id})
RETURN id, CASE WHEN n.embeddingModel = $model AND n.embeddingDimensions = $dimensions THEN n.embeddingHash
            END AS itemHash,
       collect(CASE WHEN c IS NULL THEN null
                    ELSE {ordinal: c.ordinal, hash: c.contentHash, ownerKey: c.ownerKey,
                          embedding: CASE WHEN c.embeddingModel = $model AND c.embeddingDimensions = $dimensions
                                          THEN c.embedding END}
               END) AS chunks
"""

DELETE_STALE_CHUNKS = """
UNWIND $items AS item
MATCH (c:Chunk {tenantId: $tenant, itemId: item.id})
WHERE c.ordinal >= item.count OR c.ordinal IS NULL
DETACH DELETE c
"""

# Chunk ids are `<itemId>#<ordinal>`: a stable key to MERGE on, so a retried transaction writes the same nodes.
UPSERT_CHUNKS = """
CYPHER 25
UNWIND $rows AS row
MATCH (n:Item {tenantId: $tenant, id: row.itemId})
MERGE (c:Chunk {tenantId: $tenant, id: row.id})
SET c.itemId = n.id, c.scope = n.scope, c.ownerKey = n.ownerKey, c.ordinal = row.ordinal, c.heading = row.heading,
    c.text = row.text, c.contentHash = row.hash
SET """ + set_search_text("c") + """
WITH c, row
""" + set_vector("c", "row.embedding")

SET_ITEM_EMBEDDINGS = """
CYPHER 25
UNWIND $rows AS row
MATCH (n:Item {tenantId: $tenant, id: row.id})
SET n.embeddingHash = row.hash
WITH n, row
""" + set_vector("n", "row.embedding")

# The item's own vector, when the current model made it (another model's is no neighbour of this model's).
ITEM_EMBEDDING = f"""
MATCH (n:Item {{tenantId: $tenant, id: $id}}) WHERE {from_model("n")} AND n.embeddingDimensions = $dimensions
RETURN n.embedding AS embedding
"""

# The chunks of these items with the vectors `$model` made: what a topic covering the same text may share.
CHUNK_VECTORS = f"""
UNWIND $ids AS id
MATCH (c:Chunk {{tenantId: $tenant, itemId: id}}) WHERE {from_model("c")} AND c.embeddingDimensions = $dimensions
RETURN c.itemId AS itemId, c.heading AS heading, c.text AS text, c.embedding AS embedding
"""

# The items whose text is still the one their vectors were computed from (a note's body, a document's file: by
# SHA-256), read under each item's lock (graph/locking.py): a save or a new file that landed while the old text was
# being embedded (a worker's lane, another save's inline indexing, an enrichment run whose claim a change revoked)
# keeps its own vectors, which the older ones would otherwise overwrite and leave stale. A new text is always indexed
# by what wrote it (a save whose body changed, a new enrichment run). A title is not compared: a save that changes
# only a note's title indexes nothing, so the body's vectors must still land.
STILL_CURRENT = """
UNWIND $texts AS text
MATCH (n:Item {tenantId: $tenant, id: text.id})
""" + locked_where("n", "coalesce(n.bodySha256, n.contentHash, '') = text.sha") + """
RETURN n.id AS id
"""

CHUNK_COUNT = "MATCH (c:Chunk {tenantId: $tenant, itemId: $id}) RETURN count(c) AS count"


@dataclass(frozen=True, slots=True)
class StoredChunk:
    hash: str | None
    embedding: list[float] | None
    owner_key: str | None


@dataclass(frozen=True, slots=True)
class IndexState:
    """What the index holds for an item now: the hash of its embedded text, and its chunks in order."""

    item_hash: str | None
    chunks: list[StoredChunk]


def chunk_id(item_id: str, ordinal: int) -> str:
    return f"{item_id}#{ordinal}"


async def index_states(tx: AsyncManagedTransaction, tenant: str, ids: list[str],
                       model: VectorModel) -> dict[str, IndexState]:
    """What the index holds for each of these items (an item that no longer exists is absent). A vector of another
    model than `model` counts as none: it is not reused, and its item is embedded again."""
    result = await tx.run(INDEX_STATES, tenant=tenant, ids=ids, **model.params())
    states: dict[str, IndexState] = {}
    async for record in result:
        stored = sorted((c for c in record["chunks"] if c is not None), key=lambda c: (c["ordinal"] is None,
                                                                                         c["ordinal"] or 0))
        chunks = [StoredChunk(c["hash"], c["embedding"], c["ownerKey"]) for c in stored]
        states[record["id"]] = IndexState(record["itemHash"], chunks)
    return states


async def still_current(tx: AsyncManagedTransaction, tenant: str, texts: list[dict[str, str]]) -> set[str]:
    """Of these items ({id, sha}: the text indexed), those whose text is still that one."""
    # Locked in id order, as other many-item writers lock: two of them never wait on each other crosswise.
    result = await tx.run(STILL_CURRENT, tenant=tenant, texts=sorted(texts, key=lambda text: text["id"]))
    return {record["id"] async for record in result}


async def replace_chunks(
    tx: AsyncManagedTransaction, tenant: str, items: list[tuple[str, list[dict[str, Any]]]], model: VectorModel
) -> None:
    """Make each item's chunks exactly its rows (ordinal, heading, text, hash, embedding or None)."""
    counts = [{"id": id, "count": len(rows)} for id, rows in items]
    await (await tx.run(DELETE_STALE_CHUNKS, tenant=tenant, items=counts)).consume()
    rows = [{**row, "itemId": id, "id": chunk_id(id, row["ordinal"])} for id, item_rows in items for row in item_rows]
    if rows:
        await (await tx.run(UPSERT_CHUNKS, tenant=tenant, rows=rows, **model.params())).consume()


async def set_item_embeddings(
    tx: AsyncManagedTransaction, tenant: str, rows: list[dict[str, Any]], model: VectorModel
) -> None:
    """Rows {id, embedding, hash}: each item's own vector, under the label of its dimension."""
    await (await tx.run(SET_ITEM_EMBEDDINGS, tenant=tenant, rows=rows, **model.params())).consume()


async def item_embedding(tx: AsyncManagedTransaction, tenant: str, id: str, model: VectorModel) -> list[float] | None:
    record = await (await tx.run(ITEM_EMBEDDING, tenant=tenant, id=id, **model.params())).single()
    return list(record["embedding"]) if record and record["embedding"] is not None else None


async def chunk_vectors(tx: AsyncManagedTransaction, tenant: str, ids: list[str], model: VectorModel
                        ) -> dict[str, list[tuple[str | None, str, list[float]]]]:
    """Each item's chunks as (heading, text, vector), those whose vector `model` made."""
    result = await tx.run(CHUNK_VECTORS, tenant=tenant, ids=ids, **model.params())
    found: dict[str, list[tuple[str | None, str, list[float]]]] = {}
    async for record in result:
        found.setdefault(record["itemId"], []).append((record["heading"], record["text"] or "",
                                                       list(record["embedding"])))
    return found


async def chunk_count(tx: AsyncManagedTransaction, tenant: str, id: str) -> int:
    record = await (await tx.run(CHUNK_COUNT, tenant=tenant, id=id)).single(strict=True)
    return int(record["count"])
