"""Cypher for the workspace scan: what the graph knows of a tenant's files, a file whose content changed, and the
tenant's one scan lease.

The lease has the shape of the enrichment claims (graph/enrichment_claims.py): an expiry renewed while the holder
works, so a process that died frees it by itself; the write lock is taken before the lease is read, so of two
processes racing for it the second sees the first one's committed claim. One `:ScanLease` node per tenant (unique,
migration 19).
"""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document
from vaultgraph.graph import enrichment_progress as progress_cypher
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
    requeued = await progress_cypher.requeue(tx, tenant, [id], None)
    return requeued[0] if requeued else None


# `SET l.checkedAt` takes the node's write lock first; only then is the lease read (see the module docstring).
CLAIM_SCAN_LEASE = """
MERGE (l:ScanLease {tenantId: $tenant})
SET l.checkedAt = datetime()
WITH l, (l.leaseUntil IS NULL OR l.leaseUntil < datetime()) AS free
SET l.scanId = CASE WHEN free THEN $scanId ELSE l.scanId END,
    l.holder = CASE WHEN free THEN $holder ELSE l.holder END,
    l.leaseUntil = CASE WHEN free THEN datetime() + duration({milliseconds: $leaseMs}) ELSE l.leaseUntil END
RETURN free, l.scanId AS scanId
"""

RENEW_SCAN_LEASE = """
MATCH (l:ScanLease {tenantId: $tenant}) WHERE l.scanId = $scanId
SET l.leaseUntil = datetime() + duration({milliseconds: $leaseMs})
RETURN l.scanId AS scanId
"""

RELEASE_SCAN_LEASE = """
MATCH (l:ScanLease {tenantId: $tenant}) WHERE l.scanId = $scanId
REMOVE l.scanId, l.holder, l.leaseUntil
"""

RUNNING_SCAN = """
MATCH (l:ScanLease {tenantId: $tenant}) WHERE l.leaseUntil >= datetime()
RETURN l.scanId AS scanId
"""


@dataclass(frozen=True, slots=True)
class ScanClaim:
    claimed: bool
    scan_id: str  # ours when claimed, else the one running


async def claim_scan_lease(tx: AsyncManagedTransaction, tenant: str, scan_id: str, holder: str,
                           lease_ms: int) -> ScanClaim:
    """Take the tenant's scan lease if it is free or expired; otherwise say which scan holds it."""
    record = await (await tx.run(CLAIM_SCAN_LEASE, tenant=tenant, scanId=scan_id, holder=holder,
                                 leaseMs=lease_ms)).single(strict=True)
    return ScanClaim(bool(record["free"]), str(record["scanId"]))


async def renew_scan_lease(tx: AsyncManagedTransaction, tenant: str, scan_id: str, lease_ms: int) -> bool:
    """Push the lease's expiry on; False when it is no longer ours (it expired and another scan took it)."""
    record = await (await tx.run(RENEW_SCAN_LEASE, tenant=tenant, scanId=scan_id, leaseMs=lease_ms)).single()
    return record is not None


async def release_scan_lease(tx: AsyncManagedTransaction, tenant: str, scan_id: str) -> None:
    await (await tx.run(RELEASE_SCAN_LEASE, tenant=tenant, scanId=scan_id)).consume()


async def running_scan(tx: AsyncManagedTransaction, tenant: str) -> str | None:
    record = await (await tx.run(RUNNING_SCAN, tenant=tenant)).single()
    return str(record["scanId"]) if record else None
