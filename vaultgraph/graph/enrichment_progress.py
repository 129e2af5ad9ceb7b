"""Cypher for where enrichment stands, and for starting it over: documents per stage, the state of each unfinished
(or named) document, and the requeue of failed (or named) ones. Reads and writes of one tenant, scoped by owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document, EnrichmentStage
from vaultgraph.graph.enrichment_stages import UNFINISHED
from vaultgraph.graph.records import document_from_node, to_datetime

STAGE_COUNTS = """
MATCH (d:Document {tenantId: $tenant})
WHERE d.deletedAt IS NULL AND ($ownerKeys IS NULL OR d.ownerKey IN $ownerKeys)
RETURN d.enrichmentStage AS stage, count(*) AS total
"""

REQUEUE = """
MATCH (d:Document {tenantId: $tenant})
WHERE d.deletedAt IS NULL AND ($ownerKeys IS NULL OR d.ownerKey IN $ownerKeys)
  AND CASE WHEN $ids IS NULL THEN d.enrichmentStage = 'FAILED' ELSE d.id IN $ids END
SET d.enrichmentStage = 'QUEUED', d.enrichmentError = null, d.enrichmentDetail = null, d.enrichmentAttempt = 0,
    d.enrichmentUpdatedAt = datetime()
REMOVE d.claimedBy, d.leaseUntil, d.enrichedHash, d.summaryHash
RETURN d
"""

DOCUMENT_STATES = """
MATCH (d:Document {tenantId: $tenant})
WHERE d.deletedAt IS NULL AND ($ownerKeys IS NULL OR d.ownerKey IN $ownerKeys)
  AND CASE WHEN $ids IS NULL THEN d.enrichmentStage IN $unfinished ELSE d.id IN $ids END
RETURN d.id AS id, d.ownerKey AS ownerKey, d.enrichmentStage AS stage, d.enrichmentError AS error,
       d.enrichmentUpdatedAt AS at, coalesce(d.enrichmentAttempt, 0) AS attempt, d.enrichmentDetail AS detail
ORDER BY d.enrichmentUpdatedAt, d.id LIMIT $limit
"""


@dataclass(frozen=True, slots=True)
class DocumentState:
    document_id: str
    owner_key: str
    stage: EnrichmentStage
    error: str | None
    at: datetime
    attempt: int
    detail: str | None


async def stage_counts(tx: AsyncManagedTransaction, tenant: str, owner_keys: list[str] | None) -> dict[str, int]:
    result = await tx.run(STAGE_COUNTS, tenant=tenant, ownerKeys=owner_keys)
    return {record["stage"]: int(record["total"]) async for record in result}


async def requeue(tx: AsyncManagedTransaction, tenant: str, ids: list[str] | None,
                  owner_keys: list[str] | None) -> list[Document]:
    result = await tx.run(REQUEUE, tenant=tenant, ids=ids, ownerKeys=owner_keys)
    return [document_from_node(record["d"]) async for record in result]


async def document_states(tx: AsyncManagedTransaction, tenant: str, ids: list[str] | None,
                          owner_keys: list[str] | None, limit: int) -> list[DocumentState]:
    result = await tx.run(DOCUMENT_STATES, tenant=tenant, ids=ids, ownerKeys=owner_keys, unfinished=UNFINISHED,
                          limit=limit)
    return [
        DocumentState(r["id"], r["ownerKey"], EnrichmentStage(r["stage"]), r["error"], to_datetime(r["at"]),
                      int(r["attempt"]), r["detail"])
        async for r in result
    ]
