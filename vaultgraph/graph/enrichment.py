"""Cypher for the enrichment pipeline: claiming work with a lease, persisting each phase, counts, re-enrichment.

A claim is atomic: the statement first takes the node's write lock (`SET d.claimLock`), and only then reads the
lease, so of two transactions racing for a document the second sees the first one's committed lease and passes.
Every later write of a worker carries `claimedBy = $worker`: a worker that lost its lease (it stalled past it, or
`reenrich` revoked it) writes nothing more, so no document is enriched by two workers at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document, EnrichmentStage
from vaultgraph.events.bus import DocumentStageChanged
from vaultgraph.graph.migrations import embedded_label, vector_index_name
from vaultgraph.graph.records import document_from_node, to_datetime
from vaultgraph.graph.vectors import VectorModel, from_model, is_stale, set_vector

FINAL_STAGES = (EnrichmentStage.DONE, EnrichmentStage.FAILED, EnrichmentStage.SKIPPED)
RUNNING_STAGES = (EnrichmentStage.PREPARE, EnrichmentStage.SUMMARIZE, EnrichmentStage.EMBED,
                  EnrichmentStage.CLASSIFY, EnrichmentStage.WIKILINKS)
UNFINISHED = [EnrichmentStage.QUEUED.value, *(stage.value for stage in RUNNING_STAGES)]
CLASSIFIED_BY = "enrichment"  # marks the edges this pipeline drew, so a re-run replaces them and nothing else

# The first WHERE skips, without locking, documents another worker visibly holds (so a claim never waits on a busy
# worker's writes); the second, after the lock, decides. $ids come sorted: racing claims lock in one order, no
# deadlock.
CLAIM_DOCUMENTS = """
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id})
WHERE d.deletedAt IS NULL AND d.enrichmentStage IN $unfinished
  AND (d.leaseUntil IS NULL OR d.leaseUntil < datetime())
SET d.claimLock = true
WITH d
WHERE d.deletedAt IS NULL AND d.enrichmentStage IN $unfinished
  AND (d.leaseUntil IS NULL OR d.leaseUntil < datetime())
SET d.claimedBy = $worker, d.leaseUntil = datetime() + duration({milliseconds: $leaseMs})
REMOVE d.claimLock
RETURN d
"""

# Locks that were taken but whose WHERE failed stay set until here; they carry no meaning, only the lock.
CLEAR_CLAIM_LOCKS = """
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id}) WHERE d.claimLock IS NOT NULL
REMOVE d.claimLock
"""

RENEW_LEASES = """
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id}) WHERE d.claimedBy = $worker
SET d.leaseUntil = datetime() + duration({milliseconds: $leaseMs})
RETURN d.id AS id
"""

ADVANCE_STAGE = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
SET d.enrichmentStage = $stage, d.enrichmentAttempt = row.attempt, d.enrichmentError = null,
    d.enrichmentUpdatedAt = datetime(), d.leaseUntil = datetime() + duration({milliseconds: $leaseMs})
RETURN d.id AS id, d.enrichmentUpdatedAt AS at
"""

SAVE_PREPARED = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
SET d.contentHash = row.contentHash, d.sizeBytes = row.sizeBytes
"""

# A category someone set (categorySource null) is never overwritten; checked at write time, since it may have been
# set after the claim was read.
SAVE_SUMMARIES = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
SET d.summary = row.summary, d.summaryHash = row.summaryHash
FOREACH (_ IN CASE WHEN row.category IS NULL OR NOT (d.category IS NULL OR d.categorySource = 'enrichment')
                   THEN [] ELSE [1] END |
  SET d.category = row.category, d.categorySource = 'enrichment')
"""

SAVE_EMBEDDINGS = """
CYPHER 25
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
FOREACH (_ IN CASE WHEN row.category IS NULL OR NOT (d.category IS NULL OR d.categorySource = 'enrichment')
                   THEN [] ELSE [1] END |
  SET d.category = row.category, d.categorySource = 'enrichment')
WITH d, row
""" + set_vector("d", "row.vector") + "\n"

HOLDS_CLAIM = "MATCH (d:Document {tenantId: $tenant, id: $id}) WHERE d.claimedBy = $worker RETURN d"

REMOVE_CLASSIFIED_LINKS = """
MATCH (s:Document {tenantId: $tenant, id: $id})-[r {classifiedBy: $classifiedBy}]->()
DELETE r
"""

CREATE_CLASSIFIED_LINKS = """
CYPHER 25
UNWIND $rows AS row
MATCH (s:Document {tenantId: $tenant, id: $id}), (t:Item {tenantId: $tenant, id: row.targetId})
CREATE (s)-[r:$(row.type)]->(t)
SET r = row.props, r.createdAt = datetime()
"""

FINISH = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
SET d.enrichmentStage = 'DONE', d.enrichmentError = null, d.enrichmentDetail = row.detail,
    d.enrichedHash = row.enrichedHash, d.enrichmentUpdatedAt = datetime(), d.enrichmentAttempt = row.attempt,
    d.unannouncedUntil = datetime() + duration({milliseconds: $leaseMs})
REMOVE d.claimedBy, d.leaseUntil
RETURN d.id AS id, d.enrichmentUpdatedAt AS at
"""

END_WITH = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
SET d.enrichmentStage = $stage, d.enrichmentError = row.error, d.enrichmentUpdatedAt = datetime(),
    d.enrichmentAttempt = row.attempt, d.unannouncedUntil = datetime() + duration({milliseconds: $leaseMs})
REMOVE d.claimedBy, d.leaseUntil
RETURN d.id AS id, d.enrichmentUpdatedAt AS at
"""

# A final stage is committed with `unannouncedUntil` (an outbox of one flag): the worker clears it once its event is
# published. A worker that dies in between leaves it set, and when it runs out a sweep announces the stage instead,
# so a subscriber on any replica still sees every document end (at least once; subscribers drop the repeat).
ANNOUNCED = """
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id})
REMOVE d.unannouncedUntil
"""

# Cross-tenant like CLAIMABLE, answered by the (tenantId, unannouncedUntil) index. The write lock comes first, so of
# two sweeps the second sees the first one's removal and announces nothing.
OVERDUE_ANNOUNCEMENTS = """
MATCH (d:Document)
WHERE d.tenantId IS NOT NULL AND d.unannouncedUntil < datetime()
  AND ($tenants IS NULL OR d.tenantId IN $tenants)
WITH d LIMIT $limit
SET d.claimLock = true
WITH d WHERE d.unannouncedUntil < datetime()
REMOVE d.unannouncedUntil, d.claimLock
RETURN d.tenantId AS tenant, d.id AS id, d.ownerKey AS ownerKey, d.enrichmentStage AS stage,
       coalesce(d.enrichmentAttempt, 0) AS attempt, d.enrichmentError AS error, d.enrichmentDetail AS detail,
       d.enrichmentUpdatedAt AS at
"""

RELEASE = """
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id}) WHERE d.claimedBy = $worker
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
SET d.claimLock = true
WITH d
WHERE d.deletedAt IS NULL AND d.enrichmentStage = 'DONE' AND {is_stale("d")}
  AND (d.leaseUntil IS NULL OR d.leaseUntil < datetime())
SET d.claimedBy = $worker, d.leaseUntil = datetime() + duration({{milliseconds: $leaseMs}})
REMOVE d.claimLock
RETURN d
"""

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


def similar_query(dimensions: int) -> str:
    """Nearest documents of the tenant by the vector index of this dimension (only the dimension is spliced,
    and it is an int), among the vectors the current model made."""
    return f"""
CYPHER 25
MATCH (d:{embedded_label(dimensions)})
SEARCH d IN (VECTOR INDEX {vector_index_name(dimensions)} FOR $vector WHERE d.tenantId = $tenant LIMIT $k)
SCORE AS score
WITH d, score
WHERE d:Document AND d.id <> $id AND d.deletedAt IS NULL AND d.ownerKey IN $ownerKeys AND score >= $minScore
  AND {from_model("d")}
RETURN d.id AS id, d.title AS title, d.path AS path, d.summary AS summary, score
ORDER BY score DESC LIMIT $limit
"""


@dataclass(frozen=True, slots=True)
class Claimed:
    """A document this worker holds, with what earlier runs already persisted for its content."""

    document: Document
    attempt: int
    enriched_hash: str | None
    summary_hash: str | None
    category_source: str | None

    @property
    def explicit_category(self) -> bool:
        """A category set by whoever created the document wins over the taxonomy pick."""
        return self.document.category is not None and self.category_source is None


@dataclass(frozen=True, slots=True)
class StageMark:
    document_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class DocumentState:
    document_id: str
    owner_key: str
    stage: EnrichmentStage
    error: str | None
    at: datetime
    attempt: int
    detail: str | None


@dataclass(frozen=True, slots=True)
class Pending:
    tenant_id: str
    document_id: str
    owner_key: str
    agent_id: str | None


@dataclass(frozen=True, slots=True)
class Similar:
    document_id: str
    title: str
    path: str
    summary: str | None
    cosine: float


def _claimed(node: Any) -> Claimed:
    return Claimed(
        document=document_from_node(node), attempt=int(node.get("enrichmentAttempt") or 0),
        enriched_hash=node.get("enrichedHash"), summary_hash=node.get("summaryHash"),
        category_source=node.get("categorySource"),
    )


def _marks(records: list[Any]) -> list[StageMark]:
    return [StageMark(record["id"], to_datetime(record["at"])) for record in records]


def _lease_ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


async def claim(tx: AsyncManagedTransaction, tenant: str, ids: list[str], worker: str,
                lease_seconds: float) -> list[Claimed]:
    result = await tx.run(CLAIM_DOCUMENTS, tenant=tenant, ids=sorted(ids), worker=worker, unfinished=UNFINISHED,
                          leaseMs=_lease_ms(lease_seconds))
    claimed = [_claimed(record["d"]) async for record in result]
    await (await tx.run(CLEAR_CLAIM_LOCKS, tenant=tenant, ids=ids)).consume()
    return claimed


async def stale_embeddings(tx: AsyncManagedTransaction, tenants: list[str] | None, model: VectorModel,
                           limit: int) -> list[Pending]:
    result = await tx.run(STALE_EMBEDDINGS, tenants=tenants, limit=limit, **model.params())
    return [Pending(r["tenant"], r["id"], r["ownerKey"], r["agentId"]) async for r in result]


async def claim_stale_embeddings(tx: AsyncManagedTransaction, tenant: str, ids: list[str], worker: str,
                                 model: VectorModel, lease_seconds: float) -> list[Claimed]:
    result = await tx.run(CLAIM_STALE_EMBEDDINGS, tenant=tenant, ids=sorted(ids), worker=worker,
                          leaseMs=_lease_ms(lease_seconds), **model.params())
    claimed = [_claimed(record["d"]) async for record in result]
    await (await tx.run(CLEAR_CLAIM_LOCKS, tenant=tenant, ids=ids)).consume()
    return claimed


async def renew_leases(tx: AsyncManagedTransaction, tenant: str, ids: list[str], worker: str,
                       lease_seconds: float) -> set[str]:
    result = await tx.run(RENEW_LEASES, tenant=tenant, ids=ids, worker=worker, leaseMs=_lease_ms(lease_seconds))
    return {record["id"] async for record in result}


async def advance_stage(tx: AsyncManagedTransaction, tenant: str, worker: str, stage: EnrichmentStage,
                        rows: list[dict[str, Any]], lease_seconds: float) -> list[StageMark]:
    """Enter `stage` for the documents this worker still holds; returns those (with the stored time)."""
    result = await tx.run(ADVANCE_STAGE, tenant=tenant, worker=worker, stage=stage.value, rows=rows,
                          leaseMs=_lease_ms(lease_seconds))
    return _marks([record async for record in result])


async def save_prepared(tx: AsyncManagedTransaction, tenant: str, worker: str, rows: list[dict[str, Any]]) -> None:
    await (await tx.run(SAVE_PREPARED, tenant=tenant, worker=worker, rows=rows)).consume()


async def save_summaries(tx: AsyncManagedTransaction, tenant: str, worker: str, rows: list[dict[str, Any]]) -> None:
    await (await tx.run(SAVE_SUMMARIES, tenant=tenant, worker=worker, rows=rows)).consume()


async def save_embeddings(tx: AsyncManagedTransaction, tenant: str, worker: str, model: VectorModel,
                          rows: list[dict[str, Any]]) -> None:
    """Rows {id, vector, category}: the documents' own vectors (of those this worker still holds)."""
    await (await tx.run(SAVE_EMBEDDINGS, tenant=tenant, worker=worker, rows=rows, **model.params())).consume()


async def held_document(tx: AsyncManagedTransaction, tenant: str, id: str, worker: str) -> Document | None:
    """The document, if this worker still holds its claim (checked inside the transaction that writes)."""
    record = await (await tx.run(HOLDS_CLAIM, tenant=tenant, id=id, worker=worker)).single()
    return document_from_node(record["d"]) if record else None


async def replace_classified_links(tx: AsyncManagedTransaction, tenant: str, id: str,
                                   rows: list[dict[str, Any]]) -> None:
    """Drop the edges an earlier run classified for this document and draw `rows` (types already checked)."""
    await (await tx.run(REMOVE_CLASSIFIED_LINKS, tenant=tenant, id=id, classifiedBy=CLASSIFIED_BY)).consume()
    if rows:
        await (await tx.run(CREATE_CLASSIFIED_LINKS, tenant=tenant, id=id, rows=rows)).consume()


async def finish(tx: AsyncManagedTransaction, tenant: str, worker: str, rows: list[dict[str, Any]],
                 lease_seconds: float) -> list[StageMark]:
    """DONE; the claim is given up, and the stage is owed an announcement for `lease_seconds` (see ANNOUNCED)."""
    result = await tx.run(FINISH, tenant=tenant, worker=worker, rows=rows, leaseMs=_lease_ms(lease_seconds))
    return _marks([record async for record in result])


async def end_with(tx: AsyncManagedTransaction, tenant: str, worker: str, stage: EnrichmentStage,
                   rows: list[dict[str, Any]], lease_seconds: float) -> list[StageMark]:
    """FAILED or SKIPPED with the reason in `row.error`; the claim is given up, the announcement owed."""
    result = await tx.run(END_WITH, tenant=tenant, worker=worker, stage=stage.value, rows=rows,
                          leaseMs=_lease_ms(lease_seconds))
    return _marks([record async for record in result])


async def announced(tx: AsyncManagedTransaction, tenant: str, marks: list[StageMark]) -> None:
    """The final stages of `marks` were published: nothing is owed for them any more."""
    await (await tx.run(ANNOUNCED, tenant=tenant, ids=[mark.document_id for mark in marks])).consume()


async def overdue_announcements(tx: AsyncManagedTransaction, tenants: list[str] | None,
                                limit: int) -> list[DocumentStageChanged]:
    """Take (and clear) the announcements a dead worker did not make in time: the events it owed."""
    result = await tx.run(OVERDUE_ANNOUNCEMENTS, tenants=tenants, limit=limit)
    return [DocumentStageChanged(
        tenant_id=r["tenant"], document_id=r["id"], owner_key=r["ownerKey"], stage=EnrichmentStage(r["stage"]),
        attempt=int(r["attempt"]), error=r["error"], at=to_datetime(r["at"]), detail=r["detail"],
    ) async for r in result]


async def release(tx: AsyncManagedTransaction, tenant: str, ids: list[str], worker: str) -> None:
    await (await tx.run(RELEASE, tenant=tenant, ids=ids, worker=worker)).consume()


async def claimable(tx: AsyncManagedTransaction, tenants: list[str] | None, limit: int) -> list[Pending]:
    result = await tx.run(CLAIMABLE, unfinished=UNFINISHED, tenants=tenants, limit=limit)
    return [Pending(r["tenant"], r["id"], r["ownerKey"], r["agentId"]) async for r in result]


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


async def similar_documents(tx: AsyncManagedTransaction, tenant: str, id: str, vector: list[float],
                            owner_keys: list[str], min_cosine: float, limit: int, model: str) -> list[Similar]:
    """Documents of the tenant within `owner_keys` whose cosine to `vector` is at least `min_cosine`."""
    # Neo4j's cosine index score is (1 + cosine) / 2; over-fetch so the owner filter after the index leaves enough.
    result = await tx.run(similar_query(len(vector)), tenant=tenant, id=id, vector=vector, ownerKeys=owner_keys,
                          k=limit * 4 + 1, minScore=(1 + min_cosine) / 2, limit=limit, model=model)
    return [
        Similar(r["id"], r["title"], r["path"], r["summary"], round(2 * float(r["score"]) - 1, 6))
        async for r in result
    ]
