"""Cypher for the enrichment pipeline's phases: entering a stage, what each phase persists (the prepared content,
summaries, the document's vector, the classified links), the final stage and its announcement, and the classify
phase's nearest documents. Every write matches `claimedBy = $worker`, so a worker that lost its claim
(graph/enrichment_claims.py) writes nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import EnrichmentStage
from vaultgraph.events.bus import DocumentStageChanged
from vaultgraph.graph.links import NAMED_EDGE
from vaultgraph.graph.locking import locked_where, still_held
from vaultgraph.graph.migrations import embedded_label, vector_index_name
from vaultgraph.graph.records import to_datetime
from vaultgraph.graph.search_text import set_search_text
from vaultgraph.graph.vectors import VectorModel, from_model, set_vector

FINAL_STAGES = (EnrichmentStage.DONE, EnrichmentStage.FAILED, EnrichmentStage.SKIPPED)
RUNNING_STAGES = (EnrichmentStage.PREPARE, EnrichmentStage.SUMMARIZE, EnrichmentStage.EMBED,
                  EnrichmentStage.CLASSIFY, EnrichmentStage.WIKILINKS)
UNFINISHED = [EnrichmentStage.QUEUED.value, *(stage.value for stage in RUNNING_STAGES)]
CLASSIFIED_BY = "enrichment"  # marks the edges this pipeline drew, so a re-run replaces them and nothing else

ADVANCE_STAGE = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
""" + still_held() + """
SET d.enrichmentStage = $stage, d.enrichmentAttempt = row.attempt, d.enrichmentError = null,
    d.enrichmentUpdatedAt = datetime(), d.leaseUntil = datetime() + duration({milliseconds: $leaseMs})
RETURN d.id AS id, d.enrichmentUpdatedAt AS at
"""

SAVE_PREPARED = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
""" + still_held() + """
SET d.contentHash = row.contentHash, d.sizeBytes = row.sizeBytes
"""

# A category someone set (categorySource null) is never overwritten; checked at write time, since it may have been
# set after the claim was read.
SAVE_SUMMARIES = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
""" + still_held() + """
SET d.summary = row.summary, d.summaryHash = row.summaryHash
SET """ + set_search_text("d") + """
FOREACH (_ IN CASE WHEN row.category IS NULL OR NOT (d.category IS NULL OR d.categorySource = 'enrichment')
                   THEN [] ELSE [1] END |
  SET d.category = row.category, d.categorySource = 'enrichment')
"""

SAVE_EMBEDDINGS = """
CYPHER 25
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
""" + still_held() + """
FOREACH (_ IN CASE WHEN row.category IS NULL OR NOT (d.category IS NULL OR d.categorySource = 'enrichment')
                   THEN [] ELSE [1] END |
  SET d.category = row.category, d.categorySource = 'enrichment')
WITH d, row
""" + set_vector("d", "row.vector") + "\n"

# Every end of a document's classified links, old and new, locked in id order before they are replaced: creating
# or deleting an edge locks both its ends, so two batches whose documents link each other (A -> B in one, B -> A in
# the other) each held its own document and waited for the other's, a deadlock that outlasted the driver's retries
# on a loaded machine and cost the document an attempt. In one order, the second waits and then goes through.
LOCK_LINK_ENDS = """
CALL () {
  OPTIONAL MATCH (:Document {tenantId: $tenant, id: $id})-[r {classifiedBy: $classifiedBy}]->(old)
  RETURN collect(old.id) AS olds
}
UNWIND olds + $ids AS itemId
WITH DISTINCT itemId ORDER BY itemId
MATCH (n:Item {tenantId: $tenant, id: itemId})
SET n.claimLock = true
REMOVE n.claimLock
"""

REMOVE_CLASSIFIED_LINKS = """
MATCH (s:Document {tenantId: $tenant, id: $id})-[r {classifiedBy: $classifiedBy}]->()
DELETE r
"""

CREATE_CLASSIFIED_LINKS = """
CYPHER 25
UNWIND $rows AS row
MATCH (s:Document {tenantId: $tenant, id: $id}), (t:Item {tenantId: $tenant, id: row.targetId})
CREATE (s)-[r:$(row.type)]->(t)
SET r = row.props, r.createdAt = datetime(), """ + NAMED_EDGE + """
"""

# A document SKIPPED now (its file became empty, binary or too large) keeps nothing an earlier text gave it: its
# summary and the hash it was enriched at, its vector, chunks and topics, and the links this pipeline classified
# (its WIKILINK edges are synced to none by the caller, services/wikilink_sync.py, in the same transaction).
# Otherwise search would still find it by words its file no longer holds, and its old [[links]] would stay.
CLEAR_DERIVED = """
CYPHER 25
UNWIND $ids AS id
MATCH (d:Document {tenantId: $tenant, id: id}) WHERE d.claimedBy = $worker
""" + still_held() + """
CALL (d) { MATCH (c:Chunk {tenantId: $tenant, itemId: d.id}) DETACH DELETE c }
CALL (d) { MATCH (t:Topic {tenantId: $tenant, itemId: d.id}) DETACH DELETE t }
CALL (d) { MATCH (d)-[r {classifiedBy: $classifiedBy}]->() DELETE r }
SET d.summary = null, d.summaryHash = null, d.enrichedHash = null
SET """ + set_search_text("d") + """
WITH d, {vector: null} AS row
""" + set_vector("d", "row.vector") + """
RETURN d.id AS id
"""

FINISH = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
""" + still_held() + """
SET d.enrichmentStage = 'DONE', d.enrichmentError = null, d.enrichmentDetail = row.detail,
    d.enrichedHash = row.enrichedHash, d.enrichmentUpdatedAt = datetime(), d.enrichmentAttempt = row.attempt,
    d.unannouncedUntil = datetime() + duration({milliseconds: $leaseMs})
REMOVE d.claimedBy, d.leaseUntil
RETURN d.id AS id, d.enrichmentUpdatedAt AS at
"""

END_WITH = """
UNWIND $rows AS row
MATCH (d:Document {tenantId: $tenant, id: row.id}) WHERE d.claimedBy = $worker
""" + still_held() + """
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

# Cross-tenant like CLAIMABLE (graph/enrichment_claims.py), answered by the (tenantId, unannouncedUntil) index. The
# write lock comes first, so of two sweeps the second sees the first one's removal and announces nothing.
OVERDUE_ANNOUNCEMENTS = """
MATCH (d:Document)
WHERE d.tenantId IS NOT NULL AND d.unannouncedUntil < datetime()
  AND ($tenants IS NULL OR d.tenantId IN $tenants)
WITH d LIMIT $limit
""" + locked_where("d", "d.unannouncedUntil < datetime()") + """
REMOVE d.unannouncedUntil
RETURN d.tenantId AS tenant, d.id AS id, d.ownerKey AS ownerKey, d.enrichmentStage AS stage,
       coalesce(d.enrichmentAttempt, 0) AS attempt, d.enrichmentError AS error, d.enrichmentDetail AS detail,
       d.enrichmentUpdatedAt AS at
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
class StageMark:
    document_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Similar:
    document_id: str
    title: str
    path: str
    summary: str | None
    cosine: float


def _marks(records: list[Any]) -> list[StageMark]:
    return [StageMark(record["id"], to_datetime(record["at"])) for record in records]


def lease_ms(seconds: float) -> int:
    """A lease in the milliseconds of Cypher's `duration({milliseconds: $leaseMs})`: at least one."""
    return max(1, int(seconds * 1000))


async def advance_stage(tx: AsyncManagedTransaction, tenant: str, worker: str, stage: EnrichmentStage,
                        rows: list[dict[str, Any]], lease_seconds: float) -> list[StageMark]:
    """Enter `stage` for the documents this worker still holds; returns those (with the stored time)."""
    result = await tx.run(ADVANCE_STAGE, tenant=tenant, worker=worker, stage=stage.value, rows=rows,
                          leaseMs=lease_ms(lease_seconds))
    return _marks([record async for record in result])


async def save_prepared(tx: AsyncManagedTransaction, tenant: str, worker: str, rows: list[dict[str, Any]]) -> None:
    await (await tx.run(SAVE_PREPARED, tenant=tenant, worker=worker, rows=rows)).consume()


async def save_summaries(tx: AsyncManagedTransaction, tenant: str, worker: str, rows: list[dict[str, Any]]) -> None:
    await (await tx.run(SAVE_SUMMARIES, tenant=tenant, worker=worker, rows=rows)).consume()


async def save_embeddings(tx: AsyncManagedTransaction, tenant: str, worker: str, model: VectorModel,
                          rows: list[dict[str, Any]]) -> None:
    """Rows {id, vector, category}: the documents' own vectors (of those this worker still holds)."""
    await (await tx.run(SAVE_EMBEDDINGS, tenant=tenant, worker=worker, rows=rows, **model.params())).consume()


async def lock_link_ends(tx: AsyncManagedTransaction, tenant: str, id: str, rows: list[dict[str, Any]]) -> None:
    """LOCK_LINK_ENDS for the document `id` and the targets of `rows`: first thing in the transaction, before its
    claim's check locks the document alone."""
    ids = [id, *(str(row["targetId"]) for row in rows)]
    await (await tx.run(LOCK_LINK_ENDS, tenant=tenant, id=id, ids=ids, classifiedBy=CLASSIFIED_BY)).consume()


async def replace_classified_links(tx: AsyncManagedTransaction, tenant: str, id: str,
                                   rows: list[dict[str, Any]]) -> None:
    """Drop the edges an earlier run classified for this document and draw `rows` (types already checked)."""
    await (await tx.run(REMOVE_CLASSIFIED_LINKS, tenant=tenant, id=id, classifiedBy=CLASSIFIED_BY)).consume()
    if rows:
        await (await tx.run(CREATE_CLASSIFIED_LINKS, tenant=tenant, id=id, rows=rows)).consume()


async def clear_derived(tx: AsyncManagedTransaction, tenant: str, worker: str, ids: list[str],
                        model: VectorModel) -> set[str]:
    """CLEAR_DERIVED for the documents `worker` still holds among `ids`; returns those it cleared."""
    result = await tx.run(CLEAR_DERIVED, tenant=tenant, worker=worker, ids=ids, classifiedBy=CLASSIFIED_BY,
                          **model.params())
    return {record["id"] async for record in result}


async def finish(tx: AsyncManagedTransaction, tenant: str, worker: str, rows: list[dict[str, Any]],
                 lease_seconds: float) -> list[StageMark]:
    """DONE; the claim is given up, and the stage is owed an announcement for `lease_seconds` (see ANNOUNCED)."""
    result = await tx.run(FINISH, tenant=tenant, worker=worker, rows=rows, leaseMs=lease_ms(lease_seconds))
    return _marks([record async for record in result])


async def end_with(tx: AsyncManagedTransaction, tenant: str, worker: str, stage: EnrichmentStage,
                   rows: list[dict[str, Any]], lease_seconds: float) -> list[StageMark]:
    """FAILED or SKIPPED with the reason in `row.error`; the claim is given up, the announcement owed."""
    result = await tx.run(END_WITH, tenant=tenant, worker=worker, stage=stage.value, rows=rows,
                          leaseMs=lease_ms(lease_seconds))
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
