"""The five phases for one batch of claimed documents: prepare → summarize → embed → classify → wikilinks.

Each phase is entered in Neo4j (and published) for the whole batch before it runs, and its output is persisted on
the documents before the next phase starts, so a crash loses at most the phase in flight. A failure inside a
phase fails only the documents it concerns; a failure of the phase as a whole (the model is down, Neo4j is away)
fails the batch's remaining documents for this attempt. Writes only touch documents this worker still holds;
the stage marks themselves (entered, FAILED/SKIPPED, DONE, each persisted then published) are workers/stage_marks.py.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import structlog
from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document, EnrichmentStage
from vaultgraph.errors import AppError
from vaultgraph.events.bus import EventBus
from vaultgraph.graph import enrichment_claims as claim_cypher
from vaultgraph.graph import enrichment_stages as stage_cypher
from vaultgraph.graph import topics as topic_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.graph.vectors import VectorModel
from vaultgraph.models import ModelClient, ModelError
from vaultgraph.services.indexing import current_model
from vaultgraph.services.taxonomy import Taxonomy, tenant_taxonomy
from vaultgraph.services.wikilink_sync import sync_document_text
from vaultgraph.workers.classify import NO_CHAT_DETAIL, LinkClassifier
from vaultgraph.workers.jobs import Job, Outcome, active, claim_of
from vaultgraph.workers.offline_category import OfflineCategories
from vaultgraph.workers.prepare import read_for_enrichment
from vaultgraph.workers.prompts import embedding_text
from vaultgraph.workers.stage_marks import StageMarks
from vaultgraph.workers.summarize import Summarizer
from vaultgraph.workers.topics import TopicIndexer
from vaultgraph.workspace import Workspace

log = structlog.get_logger(__name__)

UNCHANGED_DETAIL = "unchanged since the last enrichment"


class ChunkIndexReport(Protocol):
    @property
    def indexed(self) -> bool: ...

    @property
    def error(self) -> str | None: ...


class ChunkIndexer(Protocol):
    """The hook for chunk-level embeddings (search, issue 5's `services.indexing.Indexer` fits it): called at the
    end of the embed phase with the document as summarized and the text read."""

    async def index_document(self, document: Document, content: str) -> ChunkIndexReport: ...


@dataclass(frozen=True, slots=True)
class PipelineConfig:
    worker_id: str
    lease_seconds: float
    max_bytes: int


class PhaseTimings:
    """Seconds spent per phase (summed over batches) and documents through it, for benchmarks and logs."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.documents: dict[str, int] = defaultdict(int)

    def add(self, phase: str, seconds: float, documents: int) -> None:
        self.seconds[phase] += seconds
        self.documents[phase] += documents


class Pipeline:
    def __init__(self, graph: Graph, workspace: Workspace, models: ModelClient, bus: EventBus,
                 config: PipelineConfig, chunk_indexer: ChunkIndexer | None = None) -> None:
        self.graph = graph
        self.workspace = workspace
        self.models = models
        self.bus = bus
        self.config = config
        self.chunk_indexer = chunk_indexer
        self.summarizer = Summarizer(models)
        self.classifier = LinkClassifier(graph, models)
        self.topics = TopicIndexer(graph, models)
        self.timings = PhaseTimings()
        self.offline_categories = OfflineCategories(models)
        self.stages = StageMarks(graph, bus, config.lease_seconds)

    async def run(self, tenant: str, jobs: list[Job]) -> None:
        """Take the jobs as far as they go; each ends with a `result` (DONE and SKIPPED are written here)."""
        taxonomy = await tenant_taxonomy(self.workspace.root, tenant)
        phases: list[tuple[EnrichmentStage, Callable[[str, list[Job], Taxonomy], Awaitable[None]]]] = [
            (EnrichmentStage.PREPARE, self._prepare),
            (EnrichmentStage.SUMMARIZE, self._summarize),
            (EnrichmentStage.EMBED, self._embed),
            (EnrichmentStage.CLASSIFY, self._classify),
            (EnrichmentStage.WIKILINKS, self._wikilinks),
        ]
        for stage, phase in phases:
            detail = NO_CHAT_DETAIL if stage is EnrichmentStage.CLASSIFY and not self.models.chat_available else None
            running = await self.stages.enter(tenant, active(jobs), stage, detail)
            if not running:
                return
            started = time.perf_counter()
            try:
                await phase(tenant, running, taxonomy)
            except Exception as exc:  # the phase as a whole failed: its documents fail this attempt, nothing more
                if not isinstance(exc, AppError | OSError):
                    log.error("enrichment phase crashed", phase=stage.value, tenant=tenant,
                              documents=[job.id for job in running], exc_info=exc)
                retryable = exc.retryable if isinstance(exc, ModelError) else True
                reason = exc.message if isinstance(exc, AppError) else f"{exc.__class__.__name__}: {exc}"
                for job in active(running):
                    job.fail(f"{stage.value.lower()}: {reason}", retryable=retryable)
            self.timings.add(stage.value, time.perf_counter() - started, len(running))
        await self.stages.finish(tenant, active(jobs))

    async def _skip(self, tenant: str, jobs: list[Job]) -> None:
        """SKIPPED: the file holds no text enrichment reads now, so the document first loses what an earlier text
        gave it (graph/enrichment_stages.py CLEAR_DERIVED, and its wikilinks), then ends with the reason."""
        if not jobs:
            return
        await self.graph.write(self._clear_tx, tenant, jobs, current_model(self.models))
        await self.stages.end(tenant, jobs, EnrichmentStage.SKIPPED)

    async def _clear_tx(self, tx: AsyncManagedTransaction, tenant: str, jobs: list[Job],
                        model: VectorModel) -> None:
        cleared = await stage_cypher.clear_derived(tx, tenant, claim_of(jobs), [job.id for job in jobs], model)
        for job in jobs:
            if job.id in cleared:
                await sync_document_text(tx, job.document, "")

    async def record_failures(self, tenant: str, jobs: list[Job]) -> None:
        """FAILED with the reason, after the last attempt (or at once when retrying cannot help)."""
        await self.stages.end(tenant, jobs, EnrichmentStage.FAILED)

    async def _prepare(self, tenant: str, jobs: list[Job], taxonomy: Taxonomy) -> None:
        rows, unchanged = [], []
        for job in jobs:
            document = job.document
            target = self.workspace.file_for(tenant, document.owner, document.path)
            read = await read_for_enrichment(self.workspace, target, document.path, self.config.max_bytes)
            if read.skip_reason is not None:
                job.skip(read.skip_reason)
                continue
            if read.fail_reason is not None:
                job.fail(read.fail_reason, retryable=False)
                continue
            job.content, job.content_hash = read.text, read.sha256
            if read.sha256 != document.content_hash or read.size != document.size_bytes:
                rows.append({"id": job.id, "contentHash": read.sha256, "sizeBytes": read.size})
            if read.sha256 == job.claimed.enriched_hash and job.saved_summary is not None:
                job.detail = UNCHANGED_DETAIL
                unchanged.append(job)
        if rows:
            await self.graph.write(stage_cypher.save_prepared, tenant, claim_of(jobs), rows)
        await self._skip(tenant, [job for job in jobs if job.result and job.result.outcome is Outcome.SKIPPED])
        if unchanged:  # one enriched before topics existed goes on, to get them (its summary is kept)
            split = await self.graph.read(topic_cypher.with_topics, tenant, [job.id for job in unchanged])
            for job in unchanged:
                if job.id not in split:
                    job.detail = None
            unchanged = [job for job in unchanged if job.id in split]
        await self.stages.finish(tenant, unchanged)

    async def _summarize(self, tenant: str, jobs: list[Job], taxonomy: Taxonomy) -> None:
        fresh = []
        for job in jobs:
            saved = job.saved_summary
            if saved is not None and saved[0] == job.content_hash:
                job.summary = saved[1]
            else:
                fresh.append(job)
        await self.summarizer.summarize(fresh, taxonomy)
        rows = []
        for job in active(fresh):
            assert job.summary is not None and job.content_hash is not None  # set by summarize() or failed
            category = None if job.claimed.explicit_category or job.category is None else job.category
            rows.append({"id": job.id, "summary": job.summary, "summaryHash": job.content_hash,
                         "category": category})
        if rows:
            await self.graph.write(stage_cypher.save_summaries, tenant, claim_of(jobs), rows)
            for job in active(fresh):
                job.saved_summary = (job.content_hash or "", job.summary or "")

    async def _embed(self, tenant: str, jobs: list[Job], taxonomy: Taxonomy) -> None:
        texts = [embedding_text(job.document.title, job.document.path, job.summary) for job in jobs]
        model = current_model(self.models)
        vectors = await self.models.embed(texts)
        for job, vector in zip(jobs, vectors, strict=True):
            job.vector = vector
        picks = await self._offline_categories(jobs, taxonomy)
        rows = [{"id": job.id, "vector": job.vector, "category": picks.get(job.id)} for job in jobs]
        await self.graph.write(stage_cypher.save_embeddings, tenant, claim_of(jobs), model, rows)
        if self.chunk_indexer is not None:
            for job in jobs:
                await self._index_chunks(self.chunk_indexer, job)
        await self.topics.index(tenant, jobs)  # the text is read and the summary written: its topics replace the old

    async def _index_chunks(self, indexer: ChunkIndexer, job: Job) -> None:
        # The text the run read (prepare stored its SHA on the node): the indexer writes its chunks only while the
        # node still names that text, so a run whose file changed meanwhile does not overwrite the next run's.
        document = replace(job.document, summary=job.summary, content_hash=job.content_hash)
        try:
            report = await indexer.index_document(document, job.content or "")
        except Exception as exc:  # one document's failure stays that document's
            if not isinstance(exc, AppError | OSError):
                log.error("chunk indexing crashed", document=job.id, exc_info=exc)
            job.fail(f"chunk indexing: {exc.__class__.__name__}: {exc}", retryable=True)
            return
        if not report.indexed:
            job.fail(f"chunk indexing: {report.error or 'not indexed'}", retryable=True)

    async def _offline_categories(self, jobs: list[Job], taxonomy: Taxonomy) -> dict[str, str]:
        """Without a chat model, the category nearest the document's vector (workers/offline_category.py)."""
        if self.models.chat_available:
            return {}
        wanted = [(job.id, job.vector) for job in jobs if not job.claimed.explicit_category and job.vector]
        picks = await self.offline_categories.pick(taxonomy, [vector for _, vector in wanted])
        return {id: pick for (id, _), pick in zip(wanted, picks, strict=True)}

    async def _classify(self, tenant: str, jobs: list[Job], taxonomy: Taxonomy) -> None:
        if self.models.chat_available:
            # One chat call per document (each has its own candidates), the batch's calls side by side.
            await asyncio.gather(*(self._classify_one(tenant, job) for job in jobs))

    async def _classify_one(self, tenant: str, job: Job) -> None:
        try:
            rows = await self.classifier.links_for(tenant, job)
            if not await self.graph.write(self._links_tx, tenant, job.id, job.claim, rows):
                job.lose()
        except ModelError as exc:
            job.fail(f"classify: {exc.message}", retryable=exc.retryable)
        except Exception as exc:  # this document's failure stays this document's
            if not isinstance(exc, AppError | OSError):
                log.error("link classification crashed", document=job.id, exc_info=exc)
            job.fail(f"classify: {exc.__class__.__name__}: {exc}", retryable=True)

    async def _links_tx(self, tx: AsyncManagedTransaction, tenant: str, id: str, claim: str,
                        rows: list[dict[str, Any]]) -> bool:
        await stage_cypher.lock_link_ends(tx, tenant, id, rows)
        if await claim_cypher.held_document(tx, tenant, id, claim) is None:
            return False
        await stage_cypher.replace_classified_links(tx, tenant, id, rows)
        return True

    async def _wikilinks(self, tenant: str, jobs: list[Job], taxonomy: Taxonomy) -> None:
        """The batch in one transaction; if that fails, each document in its own, so one bad text fails alone."""
        try:
            held = await self.graph.write(self._wikilinks_tx, tenant, jobs)
        except Exception as exc:
            log.warning("batched wikilink sync failed, retrying per document", tenant=tenant, reason=str(exc))
            held = set()
            for job in jobs:
                try:
                    held |= await self.graph.write(self._wikilinks_tx, tenant, [job])
                except Exception as job_exc:  # this document's failure stays this document's
                    job.fail(f"wikilinks: {job_exc.__class__.__name__}: {job_exc}", retryable=True)
        for job in active(jobs):
            if job.id not in held:
                job.lose()

    async def _wikilinks_tx(self, tx: AsyncManagedTransaction, tenant: str, jobs: list[Job]) -> set[str]:
        held = set()
        for job in jobs:
            document = await claim_cypher.held_document(tx, tenant, job.id, job.claim)
            if document is not None:
                await sync_document_text(tx, document, job.content or "")
                held.add(job.id)
        return held
