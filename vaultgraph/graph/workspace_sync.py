"""Cypher for the workspace scan: what the graph knows of a tenant's files, and a file whose content changed."""

from __future__ import annotations

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document
from vaultgraph.graph import enrichment as enrichment_cypher
from vaultgraph.graph.records import document_from_node

TENANT_DOCUMENTS = "MATCH (d:Item:Document {tenantId: $tenant}) WHERE d.deletedAt IS NULL RETURN d"

# The documents at given (owner, path) places: what the watcher needs for the few files of one batch.
DOCUMENTS_AT = """
UNWIND $places AS place
MATCH (d:Item:Document {tenantId: $tenant, ownerKey: place.ownerKey, path: place.path})
WHERE d.deletedAt IS NULL
RETURN d
"""

# A new hash and size; the enrichment state is then reset by REQUEUE in the same transaction.
SET_CONTENT = """
MATCH (d:Item:Document {tenantId: $tenant, id: $id}) WHERE d.deletedAt IS NULL
SET d.contentHash = $contentHash, d.sizeBytes = $sizeBytes, d.updatedAt = datetime()
RETURN d.id AS id
"""


async def tenant_documents(tx: AsyncManagedTransaction, tenant: str) -> list[Document]:
    result = await tx.run(TENANT_DOCUMENTS, tenant=tenant)
    return [document_from_node(record["d"]) async for record in result]


async def documents_at(tx: AsyncManagedTransaction, tenant: str,
                       places: list[tuple[str, str]]) -> list[Document]:
    """The live documents at these (owner key, path) places of the tenant; places without one are left out."""
    rows = [{"ownerKey": owner_key, "path": path} for owner_key, path in places]
    result = await tx.run(DOCUMENTS_AT, tenant=tenant, places=rows)
    return [document_from_node(record["d"]) async for record in result]


async def set_content(tx: AsyncManagedTransaction, tenant: str, id: str, content_hash: str,
                      size_bytes: int) -> Document | None:
    """Record the file's new content and queue the document for enrichment again."""
    record = await (await tx.run(SET_CONTENT, tenant=tenant, id=id, contentHash=content_hash,
                                 sizeBytes=size_bytes)).single()
    if record is None:
        return None
    requeued = await enrichment_cypher.requeue(tx, tenant, [id], None)
    return requeued[0] if requeued else None
