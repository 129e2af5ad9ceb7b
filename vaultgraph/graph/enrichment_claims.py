"""Cypher for claiming enrichment work with a lease: which documents are claimable (or hold a stale vector),
the claim itself, renewing, checking and releasing it.

A claim is atomic: the statement reads the lease under the node's write lock (graph/locking.py), so of two
transactions racing for a document the second sees the first one's committed lease and passes. Every later write
of a worker checks `claimedBy = $worker` the same way (graph/enrichment_stages.py): a worker that lost its
lease (it stalled past it, or `reenrich` or a new text revoked it) writes nothing more, so no document is enriched
by two workers at once. `$worker` is the claim's own token (`claim_token`: the worker's id and a nonce), not the
worker's id alone: a run whose claim was revoked stays locked out even when the same worker claims the document
again for a new run.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document
from vaultgraph.graph.enrichment_stages import UNFINISHED, lease_ms
from vaultgraph.graph.locking import locked_where, still_held
from vaultgraph.graph.records import document_from_node
from vaultgraph.graph.vectors import VectorModel, is_stale

# The first WHERE skips, without locking, documents another worker visibly holds (so a claim never waits on a busy
# worker's writes); the second, after the lock, decides. $ids come sorted: racing claims lock in one order, no
# deadlock.
_CLAIMABLE_NOW = ("d.deletedAt IS NULL AND d.enrichmentStage IN $unfinished"
                  " AND (d.leaseUntil IS NULL OR d.leaseUntil < datetime())")
CLAIM_DOCUMENTS = f"""
UNWIND $ids AS id
MATCH (d:Document {{tenantId: $tenant, id: id}})
WHERE {_CLAIMABLE_NOW}
{locked_where("d", _CLAIMABLE_NOW)}
SET d.claimedBy = $worker, d.leaseUntil = datetime() + duration({{milliseconds: $leaseMs}})
RETURN d
"""

# Each write below rereads the claim under the lock (still_held): a renewal or release racing a requeue would
# otherwise land after it, leaving a lease no worker holds (the document unclaimable until it runs out) or
# removing another worker's new claim.
RENEW_LEASES = """
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id}) WHERE d.claimedBy = $worker
""" + still_held() + """
SET d.leaseUntil = datetime() + duration({milliseconds: $leaseMs})
RETURN d.id AS id
"""

HOLDS_CLAIM = """
MATCH (d:Document {tenantId: $tenant, id: $id}) WHERE d.claimedBy = $worker
""" + still_held() + """
RETURN d
"""

RELEASE = """
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id}) WHERE d.claimedBy = $worker
""" + still_held() + """
REMOVE d.claimedBy, d.leaseUntil
"""

# The one cross-tenant statement: the workers serve every tenant (or the ones given). The (tenantId,
# enrichmentStage) index answers it with an index scan, no property reads for finished documents.
CLAIMABLE = """
MATCH (d:Document)
WHERE d.tenantId IS NOT NULL AND d.enrichmentStage IN $unfinished
  AND ($tenants IS NULL OR d.tenantId IN $tenants)
  AND d.deletedAt IS NULL AND (d.leaseUntil IS NULL OR d.leaseUntil < datetime())
RETURN d.tenantId AS tenant, d.id AS id, d.ownerKey AS ownerKey, d.agentId AS agentId
ORDER BY d.enrichmentUpdatedAt LIMIT $limit
"""

# Documents enriched with another embedding model than the current one: re-embedded in the background, their
# stage staying DONE and their old vector serving until the new one is written.
STALE_EMBEDDINGS = f"""
MATCH (d:Document)
WHERE d.tenantId IS NOT NULL AND d.enrichmentStage = 'DONE' AND ($tenants IS NULL OR d.tenantId IN $tenants)
  AND d.deletedAt IS NULL AND {is_stale("d")}
  AND (d.leaseUntil IS NULL OR d.leaseUntil < datetime())
RETURN d.tenantId AS tenant, d.id AS id, d.ownerKey AS ownerKey, d.agentId AS agentId
LIMIT $limit
"""

CLAIM_STALE_EMBEDDINGS = f"""
UNWIND $ids AS id
MATCH (d:Document {{tenantId: $tenant, id: id}})
{locked_where("d", "d.deletedAt IS NULL AND d.enrichmentStage = 'DONE' AND " + is_stale("d")
              + " AND (d.leaseUntil IS NULL OR d.leaseUntil < datetime())")}
SET d.claimedBy = $worker, d.leaseUntil = datetime() + duration({{milliseconds: $leaseMs}})
RETURN d
"""


def claim_token(worker_id: str) -> str:
    """A new claim's token: the worker's id (logs and tests find a worker's claims by it) and a nonce of its own."""
    return f"{worker_id}/{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True, slots=True)
class Claimed:
    """A document this worker holds, with what earlier runs already persisted for its content."""

    document: Document
    claim: str  # the token the claim was made with; every write of the run presents it
    attempt: int
    enriched_hash: str | None
    summary_hash: str | None
    category_source: str | None

    @property
    def explicit_category(self) -> bool:
        """A category set by whoever created the document wins over the taxonomy pick."""
        return self.document.category is not None and self.category_source is None


@dataclass(frozen=True, slots=True)
class Pending:
    tenant_id: str
    document_id: str
    owner_key: str
    agent_id: str | None


def _claimed(node: Any) -> Claimed:
    return Claimed(
        document=document_from_node(node), claim=str(node.get("claimedBy")),
        attempt=int(node.get("enrichmentAttempt") or 0),
        enriched_hash=node.get("enrichedHash"), summary_hash=node.get("summaryHash"),
        category_source=node.get("categorySource"),
    )


async def claim(tx: AsyncManagedTransaction, tenant: str, ids: list[str], worker: str,
                lease_seconds: float) -> list[Claimed]:
    result = await tx.run(CLAIM_DOCUMENTS, tenant=tenant, ids=sorted(ids), worker=worker, unfinished=UNFINISHED,
                          leaseMs=lease_ms(lease_seconds))
    return [_claimed(record["d"]) async for record in result]


async def stale_embeddings(tx: AsyncManagedTransaction, tenants: list[str] | None, model: VectorModel,
                           limit: int) -> list[Pending]:
    result = await tx.run(STALE_EMBEDDINGS, tenants=tenants, limit=limit, **model.params())
    return [Pending(r["tenant"], r["id"], r["ownerKey"], r["agentId"]) async for r in result]


async def claim_stale_embeddings(tx: AsyncManagedTransaction, tenant: str, ids: list[str], worker: str,
                                 model: VectorModel, lease_seconds: float) -> list[Claimed]:
    result = await tx.run(CLAIM_STALE_EMBEDDINGS, tenant=tenant, ids=sorted(ids), worker=worker,
                          leaseMs=lease_ms(lease_seconds), **model.params())
    return [_claimed(record["d"]) async for record in result]


async def renew_leases(tx: AsyncManagedTransaction, tenant: str, ids: list[str], worker: str,
                       lease_seconds: float) -> set[str]:
    result = await tx.run(RENEW_LEASES, tenant=tenant, ids=ids, worker=worker, leaseMs=lease_ms(lease_seconds))
    return {record["id"] async for record in result}


async def held_document(tx: AsyncManagedTransaction, tenant: str, id: str, worker: str) -> Document | None:
    """The document, if this worker still holds its claim (checked inside the transaction that writes)."""
    record = await (await tx.run(HOLDS_CLAIM, tenant=tenant, id=id, worker=worker)).single()
    return document_from_node(record["d"]) if record else None


async def release(tx: AsyncManagedTransaction, tenant: str, ids: list[str], worker: str) -> None:
    await (await tx.run(RELEASE, tenant=tenant, ids=ids, worker=worker)).consume()


async def claimable(tx: AsyncManagedTransaction, tenants: list[str] | None, limit: int) -> list[Pending]:
    result = await tx.run(CLAIMABLE, unfinished=UNFINISHED, tenants=tenants, limit=limit)
    return [Pending(r["tenant"], r["id"], r["ownerKey"], r["agentId"]) async for r in result]
