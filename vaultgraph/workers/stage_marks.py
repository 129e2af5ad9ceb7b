"""Where each document of an enrichment batch stands: a phase entered, FAILED or SKIPPED with its reason, DONE.

Each mark is written in Neo4j only for the documents this worker still holds (a document whose claim is gone drops
out), then published on the bus, then recorded as announced so a sweep does not announce it again.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from vaultgraph.domain import EnrichmentStage
from vaultgraph.events.bus import DocumentStageChanged, EventBus
from vaultgraph.graph import enrichment_stages as stage_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.workers.jobs import Job, Outcome, Result, claim_of

log = structlog.get_logger(__name__)


class StageMarks:
    def __init__(self, graph: Graph, bus: EventBus, lease_seconds: float) -> None:
        self.graph = graph
        self.bus = bus
        self.lease_seconds = lease_seconds

    async def enter(self, tenant: str, jobs: list[Job], stage: EnrichmentStage, detail: str | None) -> list[Job]:
        """Persist and publish the stage for every job; the ones whose claim is gone drop out."""
        if not jobs:
            return []
        rows = [{"id": job.id, "attempt": job.attempt} for job in jobs]
        marks = await self.graph.write(stage_cypher.advance_stage, tenant, claim_of(jobs), stage, rows,
                                       self.lease_seconds)
        held = {mark.document_id for mark in marks}
        for job in jobs:
            if job.id not in held:
                job.lose()
            elif detail is not None:
                job.detail = detail
        await self._publish(tenant, {job.id: job for job in jobs}, marks, stage)
        return [job for job in jobs if job.id in held]

    async def end(self, tenant: str, jobs: list[Job], stage: EnrichmentStage) -> None:
        """Write FAILED or SKIPPED with each job's reason and give the claims up."""
        if not jobs:
            return
        rows = [{"id": job.id, "error": job.result.reason if job.result else None, "attempt": job.attempt}
                for job in jobs]
        marks = await self.graph.write(stage_cypher.end_with, tenant, claim_of(jobs), stage, rows,
                                       self.lease_seconds)
        await self._publish(tenant, {job.id: job for job in jobs}, marks, stage,
                            lambda job: job.result.reason if job.result else None)
        await self._announced(tenant, marks)

    async def finish(self, tenant: str, jobs: list[Job]) -> None:
        """DONE with the hash enriched; each job's result says whether it was still held (DONE) or not (LOST)."""
        if not jobs:
            return
        rows = [{"id": job.id, "enrichedHash": job.content_hash, "detail": job.detail, "attempt": job.attempt}
                for job in jobs]
        marks = await self.graph.write(stage_cypher.finish, tenant, claim_of(jobs), rows, self.lease_seconds)
        done = {mark.document_id for mark in marks}
        for job in jobs:
            job.result = Result(Outcome.DONE) if job.id in done else Result(Outcome.LOST)
        await self._publish(tenant, {job.id: job for job in jobs}, marks, EnrichmentStage.DONE)
        await self._announced(tenant, marks)

    async def _publish(self, tenant: str, jobs: dict[str, Job], marks: list[stage_cypher.StageMark],
                       stage: EnrichmentStage, error: Callable[[Job], str | None] = lambda job: None) -> None:
        for mark in marks:
            job = jobs[mark.document_id]
            await self.bus.publish(DocumentStageChanged(
                tenant_id=tenant, document_id=job.id, owner_key=job.document.owner.key, stage=stage,
                attempt=job.attempt, error=error(job), at=mark.at, detail=job.detail,
            ))

    async def _announced(self, tenant: str, marks: list[stage_cypher.StageMark]) -> None:
        if not marks:
            return
        try:
            await self.graph.write(stage_cypher.announced, tenant, marks)
        except Exception as exc:  # a sweep announces these stages again; subscribers drop the repeat
            log.warning("enrichment announcement not recorded", tenant=tenant, reason=str(exc))
