"""Cypher for a document's topics (EverOS's L2): `(:Document)-[:HAS_TOPIC]->(:Topic)`.

A topic is `(:Topic:Embedded{dim} {tenantId, id, itemId, scope, ownerKey, position, title, topicPath, depth, heading,
text, labels, parentId, contentHash, embedding, embeddingModel, embeddingDimensions})`. Its name is kept in `title`
and its content in `text`, the properties the full-text index reads of every node it covers (its path is a list,
so not in `path`, which search reads as a string of every node); `itemId`, `scope`
and `ownerKey` are its document's, as on a chunk (graph/chunks.py), so search rolls a topic hit up to its document
the way it does a chunk's and the vector index filters on tenant and scope inside the index. Its vector is written
by graph/vectors.py's one rule.
"""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Topic
from vaultgraph.graph.records import topic_from_record, topic_map
from vaultgraph.graph.search_text import set_search_text
from vaultgraph.graph.vectors import VectorModel, from_model, set_vector

# A document's topics are replaced whole, in the transaction that writes the new ones: no reader sees a mix of old
# and new, and a retried transaction deletes and writes the same again.
DELETE_TOPICS = """
MATCH (t:Topic {tenantId: $tenant, itemId: $id})
DETACH DELETE t
"""

CREATE_TOPICS = """
CYPHER 25
MATCH (d:Document {tenantId: $tenant, id: $id})
UNWIND $rows AS row
CREATE (d)-[:HAS_TOPIC]->(t:Topic {tenantId: $tenant, id: row.id})
SET t.itemId = d.id, t.scope = d.scope, t.ownerKey = d.ownerKey, t.position = row.position, t.title = row.name,
    t.topicPath = row.path, t.depth = row.depth, t.heading = row.heading, t.text = row.content, t.labels = row.labels,
    t.parentId = row.parentId, t.contentHash = row.hash
SET """ + set_search_text("t") + """
WITH t, row
""" + set_vector("t", "row.embedding")

_TOPIC = topic_map("t", "d") + " AS t"
TOPICS_OF = """
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id})-[:HAS_TOPIC]->(t:Topic)
WHERE d.deletedAt IS NULL
RETURN """ + _TOPIC + " ORDER BY t.position"

TOPICS_BY_IDS = """
MATCH (t:Topic {tenantId: $tenant}) WHERE t.id IN $ids
MATCH (d:Document {tenantId: $tenant, id: t.itemId}) WHERE d.deletedAt IS NULL
RETURN """ + _TOPIC

# The vectors these documents' topics hold now, by the hash of the text they read (it names the model): a topic
# whose text is unchanged by a new enrichment keeps its vector instead of being embedded again.
STORED_VECTORS = f"""
UNWIND $ids AS id
MATCH (t:Topic {{tenantId: $tenant, itemId: id}})
WHERE t.contentHash IN $hashes AND {from_model("t")} AND t.embeddingDimensions = $dimensions
RETURN t.contentHash AS hash, t.embedding AS embedding
"""

# Which of these documents have topics: an unchanged document enriched before topics existed has none, and is
# enriched again rather than finished as unchanged.
WITH_TOPICS = """
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id}) WHERE EXISTS { (d)-[:HAS_TOPIC]->(:Topic) }
RETURN d.id AS id
"""

TOPIC_ID_PREFIX = "topic_"


def topic_id(document_id: str, position: int) -> str:
    """`topic_<document's id without its doc_ prefix>_<position>`: a new enrichment of the same document gives its
    first topic the same id again."""
    return f"{TOPIC_ID_PREFIX}{document_id.removeprefix('doc_')}_{position}"


async def replace_topics(tx: AsyncManagedTransaction, tenant: str, document_id: str, rows: list[dict[str, Any]],
                         model: VectorModel) -> None:
    """Make the document's topics exactly `rows` (position, name, path, depth, heading, content, labels, parent,
    hash, embedding or None), in this transaction."""
    await (await tx.run(DELETE_TOPICS, tenant=tenant, id=document_id)).consume()
    if not rows:
        return
    stored = [{**row, "id": topic_id(document_id, row["position"]),
               "parentId": None if row["parent"] is None else topic_id(document_id, row["parent"])} for row in rows]
    await (await tx.run(CREATE_TOPICS, tenant=tenant, id=document_id, rows=stored, **model.params())).consume()


async def stored_vectors(tx: AsyncManagedTransaction, tenant: str, document_ids: list[str], hashes: list[str],
                         model: VectorModel) -> dict[str, list[float]]:
    """Vectors `model` made for these documents' topics, by content hash, among `hashes`."""
    result = await tx.run(STORED_VECTORS, tenant=tenant, ids=document_ids, hashes=hashes, **model.params())
    return {record["hash"]: list(record["embedding"]) async for record in result}


async def with_topics(tx: AsyncManagedTransaction, tenant: str, document_ids: list[str]) -> set[str]:
    result = await tx.run(WITH_TOPICS, tenant=tenant, ids=document_ids)
    return {record["id"] async for record in result}


async def topics_of(tx: AsyncManagedTransaction, tenant: str, document_ids: list[str]) -> dict[str, list[Topic]]:
    """The topics of these documents (deleted ones have none), each list in position order."""
    result = await tx.run(TOPICS_OF, tenant=tenant, ids=document_ids)
    found: dict[str, list[Topic]] = {id: [] for id in document_ids}
    async for record in result:
        topic = topic_from_record(record["t"])
        found.setdefault(topic.document_id, []).append(topic)
    return found


async def topics_by_ids(tx: AsyncManagedTransaction, tenant: str, ids: list[str]) -> dict[str, Topic]:
    """These topics, by id, of documents not deleted (the absent are missing)."""
    result = await tx.run(TOPICS_BY_IDS, tenant=tenant, ids=ids)
    return {topic.id: topic for topic in [topic_from_record(record["t"]) async for record in result]}


async def topic_by_id(tx: AsyncManagedTransaction, tenant: str, id: str) -> Topic | None:
    return (await topics_by_ids(tx, tenant, [id])).get(id)
