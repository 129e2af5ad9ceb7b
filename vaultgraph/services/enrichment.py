"""Enrichment control: queue documents, re-enrich, progress counts, and the live streams subscriptions read.

The service publishes `DocumentQueued`; the workers (in this process or another) take it from the bus. Streams
honour the principal: only its tenant, only owners it can see. A late subscriber first gets the current state,
then the changes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from vaultgraph.domain import Document, EnrichmentStage, Principal
from vaultgraph.errors import LimitExceeded, NotFound
from vaultgraph.events.bus import (
    DocumentQueued,
    DocumentStageChanged,
    Event,
    EventBus,
    EventFilter,
    NotesIndexing,
    Overflow,
    WorkspaceScanProgress,
)
from vaultgraph.graph import enrichment_progress as progress_cypher
from vaultgraph.graph import enrichment_stages as stage_cypher
from vaultgraph.graph import note_index
from vaultgraph.graph.session import Graph
from vaultgraph.lru import Lru

MAX_REENRICH_IDS = 1000
SNAPSHOT_LIMIT = 1000  # a late subscriber to a whole tenant gets at most this many current states first
PROGRESS_MIN_INTERVAL = 0.25  # progress is pushed on change, at most four times a second
PROGRESS_QUEUE_SIZE = 64  # progress only needs to know that something changed; older signals can go


@dataclass(frozen=True, slots=True)
class Progress:
    queued: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0
    skipped: int = 0
    scan: WorkspaceScanProgress | None = None  # the latest news of a workspace scan of the tenant, if one ran
    notes_pending: int = 0  # notes whose deferred indexing the workers have not done yet
    notes_indexed: int = 0

    @property
    def total(self) -> int:
        return self.queued + self.running + self.done + self.failed + self.skipped

    @classmethod
    def from_counts(cls, counts: dict[str, int], notes: tuple[int, int] = (0, 0)) -> Progress:
        running = sum(counts.get(stage.value, 0) for stage in stage_cypher.RUNNING_STAGES)
        return cls(queued=counts.get(EnrichmentStage.QUEUED.value, 0), running=running,
                   done=counts.get(EnrichmentStage.DONE.value, 0), failed=counts.get(EnrichmentStage.FAILED.value, 0),
                   skipped=counts.get(EnrichmentStage.SKIPPED.value, 0), notes_pending=notes[0],
                   notes_indexed=notes[1])


def _visible_to(principal: Principal, document_ids: set[str] | None) -> EventFilter:
    keys = principal.visible_owner_keys()
    allowed = set(keys) if keys is not None else None

    def accept(event: Event) -> bool:
        return (
            isinstance(event, DocumentStageChanged)
            and event.tenant_id == principal.tenant_id
            and (allowed is None or event.owner_key in allowed)
            and (document_ids is None or event.document_id in document_ids)
        )

    return accept


class EnrichmentService:
    def __init__(self, graph: Graph, bus: EventBus, event_queue_size: int = 1000) -> None:
        self.graph = graph
        self.bus = bus
        self.event_queue_size = event_queue_size

    async def enqueue(self, document: Document) -> None:
        """Announce a QUEUED document and hand it to the workers (DocumentService calls this after a create)."""
        at = document.enrichment.updated_at or datetime.now(UTC)
        await self.bus.publish(DocumentStageChanged(
            tenant_id=document.tenant_id, document_id=document.id, owner_key=document.owner.key,
            stage=EnrichmentStage.QUEUED, attempt=0, error=None, at=at,
        ))
        await self.bus.publish(DocumentQueued(
            tenant_id=document.tenant_id, document_id=document.id, owner_key=document.owner.key,
            agent_id=document.owner.agent_id, at=at,
        ))

    async def notes_queued(self, tenant_id: str, count: int) -> None:
        """Wake the workers for notes a save queued for deferred indexing (NoteService calls this after the
        commit; a worker that misses it finds them at its next sweep)."""
        await self.bus.publish(NotesIndexing(tenant_id=tenant_id, queued=count, indexed=0, at=datetime.now(UTC)))

    async def reenrich(self, principal: Principal, ids: list[str] | None) -> list[Document]:
        """Run enrichment again for these documents (all FAILED ones when `ids` is empty); a run in progress
        loses its claim and starts over."""
        wanted = list(dict.fromkeys(ids)) if ids else None
        if wanted is not None and len(wanted) > MAX_REENRICH_IDS:
            raise LimitExceeded(f"at most {MAX_REENRICH_IDS} ids at once", field="ids", limit=MAX_REENRICH_IDS)
        keys = principal.visible_owner_keys()
        if wanted is not None:
            found = await self.graph.read(progress_cypher.document_states, principal.tenant_id, wanted, keys,
                                          len(wanted))
            missing = sorted(set(wanted) - {state.document_id for state in found})
            if missing:
                raise NotFound(f"no document with id {', '.join(map(repr, missing[:5]))}", ids=missing)
        documents = await self.graph.write(progress_cypher.requeue, principal.tenant_id, wanted, keys)
        for document in documents:
            await self.enqueue(document)
        return documents

    async def progress(self, principal: Principal) -> Progress:
        keys = principal.visible_owner_keys()
        counts = await self.graph.read(progress_cypher.stage_counts, principal.tenant_id, keys)
        return Progress.from_counts(counts, await self.graph.read(note_index.counts, principal.tenant_id, keys))

    async def stage_events(
        self, principal: Principal, document_ids: list[str] | None,
        express: Callable[[DocumentStageChanged], bool] | None = None,
    ) -> AsyncGenerator[DocumentStageChanged, None]:
        """The current stage of each document (unfinished ones when no ids are given), then every change.

        `express`, if given, takes a live change straight to the consumer (True: delivered) while the consumer
        waits for the next one, so its task is not woken for it (events/bus.py); a change it refuses is yielded
        here as any other. Either way a change reaches the consumer once, after the snapshot."""
        ids = set(document_ids) if document_ids else None
        accept = _visible_to(principal, ids)
        async with self.bus.subscribe(accept, capacity=self.event_queue_size,
                                      overflow=Overflow.DISCONNECT, label="enrichmentEvents") as subscription:
            states = await self.graph.read(progress_cypher.document_states, principal.tenant_id,
                                           sorted(ids) if ids else None, principal.visible_owner_keys(),
                                           len(ids) if ids else SNAPSHOT_LIMIT)
            delivered = _Delivered()
            for state in states:
                delivered.first_time(state.document_id, state.at, state.stage)
                yield DocumentStageChanged(
                    tenant_id=principal.tenant_id, document_id=state.document_id, owner_key=state.owner_key,
                    stage=state.stage, attempt=state.attempt, error=state.error, at=state.at, detail=state.detail,
                )
            if express is not None:
                take = express

                def expressed(event: Event) -> bool:
                    assert isinstance(event, DocumentStageChanged)  # the filter lets nothing else through
                    if not delivered.is_new(event.document_id, event.at, event.stage):
                        return True  # a repeat, dropped as the loop below drops it
                    if not take(event):
                        return False
                    delivered.note(event.document_id, event.at, event.stage)
                    return True

                subscription.express(expressed)
            async for event in subscription:
                assert isinstance(event, DocumentStageChanged)  # the filter lets nothing else through
                if delivered.first_time(event.document_id, event.at, event.stage):
                    yield event

    async def progress_stream(self, principal: Principal) -> AsyncGenerator[Progress, None]:
        """The counts now, then again whenever they or a workspace scan's progress change (at most every
        PROGRESS_MIN_INTERVAL seconds)."""
        visible = _visible_to(principal, None)

        def accept(event: Event) -> bool:
            news = isinstance(event, WorkspaceScanProgress | NotesIndexing) and event.tenant_id == principal.tenant_id
            return news or visible(event)

        async with self.bus.subscribe(accept, capacity=PROGRESS_QUEUE_SIZE,
                                      overflow=Overflow.DROP_OLDEST, label="enrichmentProgress") as subscription:
            last = await self.progress(principal)
            yield last
            sent_at = time.monotonic()
            scan: WorkspaceScanProgress | None = None
            while True:
                first = await subscription.next()
                if first is None:
                    return
                pause = PROGRESS_MIN_INTERVAL - (time.monotonic() - sent_at)
                if pause > 0:
                    await asyncio.sleep(pause)
                for event in [first, *subscription.drain()]:
                    if isinstance(event, WorkspaceScanProgress):
                        scan = event
                current = replace(await self.progress(principal), scan=scan)
                if current != last:
                    last = current
                    sent_at = time.monotonic()
                    yield current


class _Delivered:
    """What one subscriber was last sent for each recent document, so nothing reaches it twice: a change already
    in its snapshot, or a final stage announced again by a sweep after its worker died between commit and publish
    (the announcement is at least once; this makes it once for the subscriber). Bounded: duplicates arrive within
    a lease, long before RECENT other documents have changed."""

    RECENT = 10_000

    def __init__(self) -> None:
        self.last: Lru[str, tuple[datetime, EnrichmentStage]] = Lru(self.RECENT)

    def is_new(self, document_id: str, at: datetime, stage: EnrichmentStage) -> bool:
        last = self.last.get(document_id)
        return last is None or not (at < last[0] or (at == last[0] and stage == last[1]))

    def first_time(self, document_id: str, at: datetime, stage: EnrichmentStage) -> bool:
        """Whether this change is new to the subscriber; it is noted as sent if so."""
        if not self.is_new(document_id, at, stage):
            return False
        self.note(document_id, at, stage)
        return True

    def note(self, document_id: str, at: datetime, stage: EnrichmentStage) -> None:
        """This change was sent to the subscriber."""
        self.last.put(document_id, (at, stage))
