"""The enrichment workers: fair queues in, at most N batches at once, leases in Neo4j, retries, resume.

Work arrives three ways: `DocumentQueued` events on the bus, a sweep at start (so a restart resumes every
unfinished document) and a periodic sweep (documents whose lease ran out because a worker died, and work queued
by other processes). A batch is up to five documents of one tenant:agent queue; it is claimed in Neo4j, and only
what this worker won is processed. Each attempt runs under a growing timeout (5, 7, 10 minutes by default) after
a growing pause (0, 2, 4 s); a document still failing after the last attempt ends FAILED with the reason.
A heartbeat keeps the leases of held documents alive; stopping releases them so the next start resumes at once.
Under the same slots run two lanes of other work: deferred note indexing (note_index.py) and re-embedding the
documents another embedding model embedded (reembed.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import socket
import uuid
from dataclasses import dataclass, field

import structlog

from vaultgraph.config import Settings
from vaultgraph.domain import EnrichmentStage
from vaultgraph.events.bus import DocumentQueued, Event, EventBus, NotesIndexing, Subscription
from vaultgraph.events.foreground import BACKGROUND, Foreground
from vaultgraph.graph import enrichment_claims as claim_cypher
from vaultgraph.graph import enrichment_stages as stage_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.models import ModelClient
from vaultgraph.services.vectors import Reembedder
from vaultgraph.workers.fair_queue import Batch, FairQueue
from vaultgraph.workers.jobs import Job, Outcome, active
from vaultgraph.workers.note_index import NoteHook, NoteIndexLane, NoteLaneConfig
from vaultgraph.workers.pipeline import ChunkIndexer, Pipeline, PipelineConfig
from vaultgraph.workers.reembed import ReembedConfig, ReembedLane
from vaultgraph.workspace import Workspace

log = structlog.get_logger(__name__)

SWEEP_LIMIT = 10_000
INTAKE_QUEUE_SIZE = 100_000  # the sweep recovers anything that overflows it


@dataclass(frozen=True, slots=True)
class PoolConfig:
    batch_size: int = 5
    max_concurrent_batches: int = 3
    attempt_timeouts: tuple[float, ...] = (300.0, 420.0, 600.0)
    retry_backoff: tuple[float, ...] = (0.0, 2.0, 4.0)
    lease_seconds: float = 60.0
    sweep_seconds: float = 30.0
    tenants: frozenset[str] | None = None  # serve only these tenants (None: all)
    batch_linger: float = 0.1  # a short wait for a queue to fill a batch before taking a partial one

    def __post_init__(self) -> None:
        if not self.attempt_timeouts or len(self.retry_backoff) < len(self.attempt_timeouts):
            raise ValueError("give one timeout per attempt, and at least as many backoff pauses")
        if self.batch_size < 1 or self.max_concurrent_batches < 1:
            raise ValueError("batch_size and max_concurrent_batches must be at least 1")

    @property
    def attempts(self) -> int:
        return len(self.attempt_timeouts)


def build_worker_pool(settings: Settings, graph: Graph, workspace: Workspace, models: ModelClient, bus: EventBus,
                      chunk_indexer: ChunkIndexer | None = None, tenants: frozenset[str] | None = None,
                      note_hook: NoteHook | None = None, reembedder: Reembedder | None = None,
                      foreground: Foreground | None = None) -> WorkerPool:
    """The pool the settings describe. Builds objects only; `start()` (the lifespan's job) starts tasks.
    `note_hook` (the save pipeline's indexer) lets it index the notes saves deferred; `reembedder` lets its
    re-embedding lane replace notes', chunks' and topics' vectors of another model too, not only documents';
    `foreground` (the process's requests in flight) is what its tasks give way to."""
    pipeline = Pipeline(graph, workspace, models, bus, PipelineConfig(
        worker_id=new_worker_id(), lease_seconds=settings.enrichment_lease_seconds,
        max_bytes=settings.enrichment_max_bytes,
    ), chunk_indexer)
    config = PoolConfig(
        batch_size=settings.enrichment_batch_size, max_concurrent_batches=settings.enrichment_concurrency,
        attempt_timeouts=tuple(settings.enrichment_attempt_timeouts),
        retry_backoff=tuple(settings.enrichment_retry_backoff), lease_seconds=settings.enrichment_lease_seconds,
        sweep_seconds=settings.enrichment_sweep_seconds,
        tenants=tenants if tenants is not None else _tenants(settings.enrichment_tenants),
    )
    return WorkerPool(graph, bus, pipeline, config, note_hook, reembedder, foreground)


def _tenants(names: list[str] | None) -> frozenset[str] | None:
    return frozenset(names) if names else None


def new_worker_id() -> str:
    """Unique per process start: a lease names who holds it, for logs and for `claimedBy` checks."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class _Held:
    """Documents of one batch this worker holds, for the heartbeat and for releasing on stop."""

    tenant_id: str
    claim: str  # the batch's claim token (graph/enrichment_claims.py)
    ids: set[str] = field(default_factory=set)


class WorkerPool:
    def __init__(self, graph: Graph, bus: EventBus, pipeline: Pipeline, config: PoolConfig,
                 note_hook: NoteHook | None = None, reembedder: Reembedder | None = None,
                 foreground: Foreground | None = None) -> None:
        self.graph = graph
        # Without the process's requests to give way to (a pool of its own), its tasks are background work still:
        # their writes retry a deadlock as long as background writes do (graph/session.py).
        self.foreground = foreground if foreground is not None else Foreground(max_wait=0)
        self.bus = bus
        self.pipeline = pipeline
        self.config = config
        self.worker_id = pipeline.config.worker_id
        self.queue = FairQueue()
        self._slots = asyncio.Semaphore(config.max_concurrent_batches)
        self._held: list[_Held] = []
        self._requeue: dict[tuple[str, str], str | None] = {}
        self._batches: set[asyncio.Task[None]] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._subscription: Subscription | None = None
        self.batches_started = 0
        # Deferred note indexing, under the same slots as enrichment batches; it follows `config.tenants` as the
        # config is replaced (a test server serving one more tenant).
        self.notes = NoteIndexLane(graph, bus, note_hook, NoteLaneConfig(
            worker_id=self.worker_id, lease_seconds=config.attempt_timeouts[0], sweep_seconds=config.sweep_seconds,
        ), self._slots, lambda: self.config.tenants) if note_hook is not None else None
        # Vectors of another embedding model, replaced while no enrichment waits.
        self.reembedding = ReembedLane(graph, pipeline.models, ReembedConfig(
            worker_id=self.worker_id, batch_size=config.batch_size, lease_seconds=config.lease_seconds,
            sweep_seconds=config.sweep_seconds,
        ), self._slots, lambda: self.config.tenants, lambda: bool(self.queue), reembedder)

    def _serves(self, tenant_id: str) -> bool:
        return self.config.tenants is None or tenant_id in self.config.tenants

    def _in_flight(self, tenant_id: str, document_id: str) -> bool:
        return any(held.tenant_id == tenant_id and document_id in held.ids for held in self._held)

    def enqueue(self, tenant_id: str, document_id: str, agent_id: str | None) -> None:
        """Queue a document (no-op when it is queued already; requeued after its batch when in flight)."""
        if not self._serves(tenant_id):
            return
        if self._in_flight(tenant_id, document_id):
            self._requeue[(tenant_id, document_id)] = agent_id
            return
        self.queue.put(tenant_id, agent_id, document_id)

    async def start(self) -> None:
        """Start intake, scheduler, heartbeat and sweeper. Called by the lifespan (or a worker process)."""
        def accept(event: Event) -> bool:
            return isinstance(event, DocumentQueued) or (isinstance(event, NotesIndexing) and event.queued > 0)

        self._subscription = self.bus.subscribe(accept, capacity=INTAKE_QUEUE_SIZE, label=f"workers {self.worker_id}")
        # Every task of the pool, and the batches the scheduler starts, run as background work: they give way to
        # the process's requests in flight (events/foreground.py), and their writes retry a deadlock for longer
        # (graph/session.py). Not the heartbeat: a lease renewal must land within the lease, so it keeps a request's
        # retries (and it shares no context with them: these tasks share one context object).
        background = contextvars.copy_context()
        background.run(BACKGROUND.set, self.foreground)
        self._tasks = [
            asyncio.create_task(self._intake(self._subscription), name="enrichment-intake", context=background),
            asyncio.create_task(self._sweeper(), name="enrichment-sweeper", context=background),
            asyncio.create_task(self._scheduler(), name="enrichment-scheduler", context=background),
            asyncio.create_task(self._heartbeat(), name="enrichment-heartbeat"),
            asyncio.create_task(self.reembedding.run(), name="enrichment-reembedder", context=background),
        ]
        if self.notes is not None:
            self._tasks.append(asyncio.create_task(self.notes.run(), name="deferred-note-indexing",
                                                   context=background))
        log.info("enrichment workers started", worker=self.worker_id, batches=self.config.max_concurrent_batches)

    async def stop(self, release_leases: bool = True) -> None:
        """Cancel everything; give held leases back unless told not to (a test simulating a crash)."""
        held = [(h.tenant_id, sorted(h.ids), h.claim) for h in self._held]
        tasks = [*self._tasks, *self._batches]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        if self._subscription is not None:
            await self._subscription.close()
        if release_leases:
            for tenant_id, ids, claim in held:
                try:
                    await self.graph.write(claim_cypher.release, tenant_id, ids, claim)
                except Exception as exc:  # their leases run out on their own; nothing is lost
                    log.warning("could not release leases", tenant=tenant_id, reason=str(exc))
            if self.notes is not None:
                try:
                    await self.notes.release()
                except Exception as exc:  # as above: the note claims' leases run out
                    log.warning("could not release note claims", reason=str(exc))
        log.info("enrichment workers stopped", worker=self.worker_id)

    async def _intake(self, subscription: Subscription) -> None:
        event: Event
        async for event in subscription:
            if isinstance(event, DocumentQueued):
                self.enqueue(event.tenant_id, event.document_id, event.agent_id)
            elif isinstance(event, NotesIndexing) and self.notes is not None and self._serves(event.tenant_id):
                self.notes.wake()

    async def sweep(self) -> int:
        """Queue every claimable unfinished document; returns how many were new to the queue."""
        tenants = sorted(self.config.tenants) if self.config.tenants is not None else None
        pending = await self.graph.read(claim_cypher.claimable, tenants, SWEEP_LIMIT)
        before = len(self.queue)
        for item in pending:
            if not self._in_flight(item.tenant_id, item.document_id):
                self.enqueue(item.tenant_id, item.document_id, item.agent_id)
        return len(self.queue) - before

    async def announce_overdue(self) -> int:
        """Publish the final stages that a dead worker committed but never announced; returns how many."""
        tenants = sorted(self.config.tenants) if self.config.tenants is not None else None
        owed = await self.graph.write(stage_cypher.overdue_announcements, tenants, SWEEP_LIMIT)
        for event in owed:
            await self.bus.publish(event)
        return len(owed)

    async def _sweeper(self) -> None:
        while True:
            try:
                added = await self.sweep()
                if added:
                    log.info("enrichment sweep queued documents", count=added)
                announced = await self.announce_overdue()
                if announced:
                    log.info("enrichment sweep announced stages a dead worker left", count=announced)
            except Exception as exc:  # Neo4j away: try again next round
                log.warning("enrichment sweep failed", reason=str(exc))
            await asyncio.sleep(self.config.sweep_seconds)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.config.lease_seconds / 3)
            for held in list(self._held):
                if not held.ids:
                    continue
                try:
                    await self.graph.write(claim_cypher.renew_leases, held.tenant_id, sorted(held.ids), held.claim,
                                           self.config.lease_seconds)
                except Exception as exc:  # the next write of the batch finds out whether the claim survived
                    log.warning("lease renewal failed", tenant=held.tenant_id, reason=str(exc))

    async def _scheduler(self) -> None:
        while True:
            await self._slots.acquire()
            try:
                batch = await self.queue.get(self.config.batch_size, self.config.batch_linger)
            except BaseException:
                self._slots.release()
                raise
            self.batches_started += 1
            task = asyncio.create_task(self._run(batch), name=f"enrichment-batch-{self.batches_started}")
            self._batches.add(task)
            task.add_done_callback(self._batch_done)

    def _batch_done(self, task: asyncio.Task[None]) -> None:
        self._batches.discard(task)
        self._slots.release()
        for (tenant_id, document_id), agent_id in list(self._requeue.items()):
            if not self._in_flight(tenant_id, document_id):
                del self._requeue[(tenant_id, document_id)]
                self.queue.put(tenant_id, agent_id, document_id)

    async def _run(self, batch: Batch) -> None:
        tenant = batch.tenant_id
        # A token per batch, not the worker's id alone: should a new text revoke this claim and this worker claim
        # the document again for a new run, this run's writes still find the claim gone.
        held = _Held(tenant, claim_cypher.claim_token(self.worker_id), set(batch.document_ids))
        self._held.append(held)
        jobs: list[Job] = []
        try:
            claimed = await self.graph.write(claim_cypher.claim, tenant, batch.document_ids, held.claim,
                                             self.config.lease_seconds)
            held.ids = {c.document.id for c in claimed}
            # Claims lock in id order (no deadlocks between workers); the batch runs in the order it was queued.
            queued_order = {document_id: n for n, document_id in enumerate(batch.document_ids)}
            claimed = sorted(claimed, key=lambda c: queued_order.get(c.document.id, len(queued_order)))
            jobs = [Job(c, self._first_attempt(c)) for c in claimed]
            await self._attempts(tenant, jobs)
        except Exception as exc:  # the batch itself broke (Neo4j away mid-batch): record what can be recorded
            log.error("enrichment batch failed", tenant=tenant, documents=batch.document_ids, exc_info=exc)
            leftover = [job for job in jobs if job.active]
            for job in leftover:
                job.fail(f"the worker could not finish this batch: {exc}", retryable=False)
            with contextlib.suppress(Exception):  # if Neo4j is down too, the lease runs out and a sweep retries
                await self.pipeline.record_failures(tenant, leftover)
        finally:
            self._held.remove(held)

    def _first_attempt(self, claimed: claim_cypher.Claimed) -> int:
        # A document found mid-pipeline was interrupted (its worker died): that run counts as an attempt, so a
        # document that crashes workers cannot loop forever.
        interrupted = claimed.document.enrichment.stage not in (EnrichmentStage.QUEUED, *stage_cypher.FINAL_STAGES)
        return claimed.attempt + 1 if interrupted else 1

    async def _attempts(self, tenant: str, jobs: list[Job]) -> None:
        exhausted = [job for job in jobs if job.attempt > self.config.attempts]
        for job in exhausted:
            job.fail(f"enrichment used its {self.config.attempts} attempts, the last one interrupted (its worker "
                     "stopped mid-run)", retryable=False)
        await self.pipeline.record_failures(tenant, exhausted)
        pending = [job for job in jobs if job.attempt <= self.config.attempts]
        while pending:
            index = min(job.attempt for job in pending) - 1
            pause = self.config.retry_backoff[index]
            if pause > 0:
                await asyncio.sleep(pause)
            timeout = self.config.attempt_timeouts[index]
            try:
                async with asyncio.timeout(timeout):
                    await self.pipeline.run(tenant, pending)
            except TimeoutError:
                for job in active(pending):
                    job.fail(f"the attempt timed out after {timeout:g} s", retryable=True)
            failed = [job for job in pending if job.result is not None and job.result.outcome is Outcome.FAILED]
            final = [job for job in failed if not job.result or not job.result.retryable
                     or job.attempt >= self.config.attempts]
            await self.pipeline.record_failures(tenant, final)
            pending = [job.for_retry() for job in failed if job not in final]
            for job in pending:
                log.info("enrichment retry", tenant=tenant, document=job.id, attempt=job.attempt)
