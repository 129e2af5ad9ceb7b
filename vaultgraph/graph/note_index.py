"""Cypher for deferred note indexing: notes saved without waiting for their vectors, and the workers' claims.

A note whose save deferred its indexing carries the label `:IndexPending` (set in the save's own transaction, so a
crash never loses one) and `indexed: false`; its body is already in the full-text index, so keyword search finds
it. Workers claim pending notes under a lease (`indexClaimedBy`, `indexLeaseUntil`), index them, and drop the label.
The label is found through Neo4j's label lookup index, so a sweep reads only the pending notes, of every tenant.
A save of a pending note meanwhile clears the claim: the worker's finish then changes nothing, and the newer body
is claimed again.
"""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import AsyncManagedTransaction

from vaultgraph.graph.locking import locked_where, still_held

MARK_PENDING = """
UNWIND $ids AS id
MATCH (n:Item:Note {tenantId: $tenant, id: id})
SET n:IndexPending, n.indexed = false
REMOVE n.indexClaimedBy, n.indexLeaseUntil
"""

# Lock, then check again: two workers claiming at once both see the note free, and the second to get the lock must
# see the first one's lease.
CLAIM = """
MATCH (n:IndexPending)
WHERE ($tenants IS NULL OR n.tenantId IN $tenants) AND (n.indexLeaseUntil IS NULL OR n.indexLeaseUntil < datetime())
WITH n LIMIT $limit
""" + locked_where("n", "n:IndexPending AND (n.indexLeaseUntil IS NULL OR n.indexLeaseUntil < datetime())") + """
SET n.indexClaimedBy = $worker, n.indexLeaseUntil = datetime() + duration({milliseconds: $leaseMs})
RETURN n.tenantId AS tenant, n.id AS id
"""

# A note that could not be indexed (the model failed) stays pending, out of reach for `$retryMs`, up to
# `$maxAttempts`; then it stays saved with `indexed: false`, as a save whose model failed does.
FINISH = """
UNWIND $rows AS row
MATCH (n:IndexPending:Note {tenantId: $tenant, id: row.id})
WHERE n.indexClaimedBy = $worker
""" + still_held("n", "indexClaimedBy") + """
WITH n, row, coalesce(n.indexAttempts, 0) + 1 AS attempts
REMOVE n.indexClaimedBy
SET n.indexed = row.indexed, n.indexAttempts = CASE WHEN row.indexed THEN null ELSE attempts END,
    n.indexLeaseUntil = CASE WHEN row.indexed THEN null ELSE datetime() + duration({milliseconds: $retryMs}) END
WITH n, row, attempts
WHERE row.indexed OR attempts >= $maxAttempts
REMOVE n:IndexPending, n.indexAttempts, n.indexLeaseUntil
RETURN count(n) AS finished
"""

RELEASE = """
MATCH (n:IndexPending)
WHERE n.indexClaimedBy = $worker
""" + still_held("n", "indexClaimedBy") + """
REMOVE n.indexClaimedBy, n.indexLeaseUntil
"""

# Served by the label lookup index (pending) and the (tenantId, updatedAt) index (indexed).
COUNTS = """
CALL () {
  MATCH (n:IndexPending {tenantId: $tenant})
  WHERE n.deletedAt IS NULL AND ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys)
  RETURN count(n) AS pending
}
CALL () {
  MATCH (n:Note {tenantId: $tenant})
  WHERE n.updatedAt IS NOT NULL AND n.indexed AND ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys)
  RETURN count(n) AS indexed
}
RETURN pending, indexed
"""


@dataclass(frozen=True, slots=True)
class Claimed:
    tenant_id: str
    note_id: str


async def mark_pending(tx: AsyncManagedTransaction, tenant: str, ids: list[str]) -> None:
    await (await tx.run(MARK_PENDING, tenant=tenant, ids=ids)).consume()


async def claim(tx: AsyncManagedTransaction, tenants: list[str] | None, worker: str, lease_seconds: float,
                limit: int) -> list[Claimed]:
    result = await tx.run(CLAIM, tenants=tenants, worker=worker, leaseMs=int(lease_seconds * 1000), limit=limit)
    return [Claimed(record["tenant"], record["id"]) async for record in result]


async def finish(tx: AsyncManagedTransaction, tenant: str, worker: str, indexed: dict[str, bool],
                 max_attempts: int, retry_seconds: float) -> int:
    """Record the outcome of each claimed note; returns how many left the queue."""
    rows = [{"id": id, "indexed": value} for id, value in indexed.items()]
    record = await (await tx.run(FINISH, tenant=tenant, worker=worker, rows=rows, maxAttempts=max_attempts,
                                 retryMs=int(retry_seconds * 1000))).single()
    return int(record["finished"]) if record else 0


async def release(tx: AsyncManagedTransaction, worker: str) -> None:
    await (await tx.run(RELEASE, worker=worker)).consume()


async def counts(tx: AsyncManagedTransaction, tenant: str, owner_keys: list[str] | None) -> tuple[int, int]:
    """(pending, indexed) notes of the tenant in these owners' spaces."""
    record = await (await tx.run(COUNTS, tenant=tenant, ownerKeys=owner_keys)).single()
    return (int(record["pending"]), int(record["indexed"])) if record else (0, 0)
