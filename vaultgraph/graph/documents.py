"""Cypher for documents. Every statement takes `$tenant` and leads its match with it."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document
from vaultgraph.graph.records import document_from_node, document_map, vanished
from vaultgraph.graph.search_text import set_search_text

# Every statement returning a document returns its projection (never the embedding) under the name `d`.
_DOCUMENT = document_map("d") + " AS d"

CREATE_DOCUMENT = """
CREATE (d:Item:Document {
  id: $id, tenantId: $tenant, scope: $scope, agentId: $agentId, teamId: $teamId, ownerKey: $ownerKey,
  path: $path, pathLower: $pathLower, basenameLower: $basenameLower, linkName: $linkName,
  title: $title, docType: $docType, contentHash: $contentHash, sizeBytes: $sizeBytes,
  metadata: $metadata, category: $category, enrichmentStage: 'QUEUED',
  createdAt: datetime(), updatedAt: datetime(), enrichmentUpdatedAt: datetime()
})
SET """ + set_search_text("d") + """
RETURN """ + _DOCUMENT

DOCUMENT_BY_ID = (
    "MATCH (d:Item:Document {tenantId: $tenant, id: $id}) WHERE d.deletedAt IS NULL RETURN " + _DOCUMENT
)

DOCUMENT_BY_PATH = """
MATCH (d:Document {tenantId: $tenant, path: $path})
WHERE d.deletedAt IS NULL AND ($ownerKeys IS NULL OR d.ownerKey IN $ownerKeys)
WITH d ORDER BY d.ownerKey LIMIT 1
RETURN """ + _DOCUMENT

DOCUMENT_EXISTS_AT = """
MATCH (d:Document {tenantId: $tenant, ownerKey: $ownerKey, path: $path}) RETURN d.id AS id
"""

# Keyset pagination on (path, id): stable under inserts, and the (tenantId, path) index serves the order.
# The list filters, shared by the page and its total so the two never disagree.
_DOCUMENT_FILTERS = """
MATCH (d:Document {tenantId: $tenant})
WHERE d.deletedAt IS NULL AND ($ownerKeys IS NULL OR d.ownerKey IN $ownerKeys)
  AND ($scope IS NULL OR d.scope = $scope)
  AND ($docType IS NULL OR d.docType = $docType)
  AND ($teamId IS NULL OR d.teamId = $teamId)
  AND ($agentId IS NULL OR d.agentId = $agentId)
  AND ($category IS NULL OR d.category = $category)
"""



def _documents_page(backward: bool) -> str:
    """The page between the cursors, read from `after` onward, or (backward) from `before` back."""
    order = "d.path DESC, d.id DESC" if backward else "d.path, d.id"
    return _DOCUMENT_FILTERS + f"""\
  AND ($afterPath IS NULL OR d.path > $afterPath OR (d.path = $afterPath AND d.id > $afterId))
  AND ($beforePath IS NULL OR d.path < $beforePath OR (d.path = $beforePath AND d.id < $beforeId))
WITH d ORDER BY {order} LIMIT $limit
RETURN """ + _DOCUMENT


DOCUMENTS_PAGE = _documents_page(backward=False)
DOCUMENTS_PAGE_BACKWARD = _documents_page(backward=True)
PAGE_PARAMS = frozenset({"afterPath", "afterId", "beforePath", "beforeId", "limit"})

COUNT_DOCUMENTS = _DOCUMENT_FILTERS + "RETURN count(d) AS total\n"

UPDATE_DOCUMENT = """
MATCH (d:Item:Document {tenantId: $tenant, id: $id}) WHERE d.deletedAt IS NULL
SET d.title = coalesce($title, d.title), d.docType = coalesce($docType, d.docType),
    d.category = coalesce($category, d.category), d.metadata = coalesce($metadata, d.metadata),
    d.updatedAt = datetime(),
    // a category set here is the user's: enrichment no longer picks one (see graph/enrichment_stages.py)
    d.categorySource = CASE WHEN $category IS NULL THEN d.categorySource ELSE null END
SET """ + set_search_text("d") + """
RETURN """ + _DOCUMENT

# A document's file rewritten in place (a rename's link rewrite): the stored hash and size follow the new bytes, so a
# rescan sees nothing to do.
SET_CONTENT = """
MATCH (d:Item:Document {tenantId: $tenant, id: $id}) WHERE d.deletedAt IS NULL
SET d.contentHash = $contentHash, d.sizeBytes = $sizeBytes, d.updatedAt = datetime()
"""

# The categories' document counts, each visible document once (a document not yet classified has none).
CATEGORY_COUNTS = """
MATCH (d:Document {tenantId: $tenant})
WHERE d.deletedAt IS NULL AND d.category IS NOT NULL AND ($ownerKeys IS NULL OR d.ownerKey IN $ownerKeys)
RETURN d.category AS category, count(d) AS count
"""

NODE_LABELS = "MATCH (n:Item {tenantId: $tenant, id: $id}) WHERE n.deletedAt IS NULL RETURN labels(n) AS labels"


async def create_document(tx: AsyncManagedTransaction, **params: Any) -> Document:
    record = await (await tx.run(CREATE_DOCUMENT, **params)).single(strict=True)
    return document_from_node(record["d"])


async def document_by_id(tx: AsyncManagedTransaction, tenant: str, id: str) -> Document | None:
    record = await (await tx.run(DOCUMENT_BY_ID, tenant=tenant, id=id)).single()
    return document_from_node(record["d"]) if record and not vanished(record["d"]) else None


async def update_document(tx: AsyncManagedTransaction, **params: Any) -> Document | None:
    record = await (await tx.run(UPDATE_DOCUMENT, **params)).single()
    return document_from_node(record["d"]) if record else None


async def set_content(tx: AsyncManagedTransaction, tenant: str, id: str, content_hash: str, size: int) -> None:
    await (await tx.run(SET_CONTENT, tenant=tenant, id=id, contentHash=content_hash, sizeBytes=size)).consume()


async def document_by_path(
    tx: AsyncManagedTransaction, tenant: str, path: str, owner_keys: list[str] | None
) -> Document | None:
    record = await (await tx.run(DOCUMENT_BY_PATH, tenant=tenant, path=path, ownerKeys=owner_keys)).single()
    return document_from_node(record["d"]) if record and not vanished(record["d"]) else None


async def document_id_at(tx: AsyncManagedTransaction, tenant: str, owner_key: str, path: str) -> str | None:
    record = await (await tx.run(DOCUMENT_EXISTS_AT, tenant=tenant, ownerKey=owner_key, path=path)).single()
    return record["id"] if record else None


async def documents_page(tx: AsyncManagedTransaction, backward: bool = False, **params: Any) -> list[Document]:
    """The page's rows in reading order: backward, the nearest to `before` first."""
    result = await tx.run(DOCUMENTS_PAGE_BACKWARD if backward else DOCUMENTS_PAGE, **params)
    return [document_from_node(record["d"]) async for record in result if not vanished(record["d"])]


async def documents_page_and_total(
    tx: AsyncManagedTransaction, backward: bool = False, **params: Any
) -> tuple[list[Document], int]:
    """A page and the total of its filters in one transaction."""
    return await documents_page(tx, backward, **params), await count_documents(tx, **params)


async def count_documents(tx: AsyncManagedTransaction, **params: Any) -> int:
    params = {k: v for k, v in params.items() if k not in PAGE_PARAMS}
    record = await (await tx.run(COUNT_DOCUMENTS, **params)).single(strict=True)
    return int(record["total"])


async def category_counts(tx: AsyncManagedTransaction, tenant: str, owner_keys: list[str] | None) -> dict[str, int]:
    result = await tx.run(CATEGORY_COUNTS, tenant=tenant, ownerKeys=owner_keys)
    return {record["category"]: int(record["count"]) async for record in result}


async def node_labels(tx: AsyncManagedTransaction, tenant: str, id: str) -> list[str] | None:
    record = await (await tx.run(NODE_LABELS, tenant=tenant, id=id)).single()
    return list(record["labels"]) if record else None
