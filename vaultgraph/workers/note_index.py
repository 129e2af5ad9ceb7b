"""Deferred note indexing, the worker pool's second kind of work: notes a save queued (`:IndexPending`, see
graph/note_index.py) are claimed in batches, indexed through the save pipeline's own hook (vectors, chunks, the
fuzzy link pass) and taken off the queue.

A batch is up to `batch_size` notes of one tenant, one embedding call (the model batches inside it), under a
pool slot like an enrichment batch. The lane wakes when a save announces notes (`NotesIndexing` on the bus) and
sweeps every `sweep_seconds` for notes queued by another process (the CLI's import, another replica) or left by a
worker that died (their lease runs out). Each batch is announced (`NotesIndexing.indexed`), so progress streams
count down.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import structlog

from vaultgraph.domain import Note, Principal
from vaultgraph.events.bus import EventBus, NotesIndexing
from vaultgraph.events.foreground import give_way
from vaultgraph.graph import note_index as cypher
from vaultgraph.graph.items import items_by_ids
from vaultgraph.graph.session import Graph

log = structlog.get_logger(__name__)

# The save pipeline's hook (services/notes.py `Indexer`): for each note, whether its vector is in place.
NoteHook = Callable[[Principal, Sequence[Note]], Awaitable[list[bool]]]


@dataclass(frozen=True, slots=True)
class NoteLaneConfig:
    worker_id: str
    # Notes per claim: one embedding call's worth. Larger batches pad and sort better inside the model.
    batch_size: int = 64
    lease_seconds: float = 300.0  # also the batch's timeout: a batch never outlives its claim
    sweep_seconds: float = 30.0
    max_attempts: int = 3


class NoteIndexLane:
    def __init__(self, graph: Graph, bus: EventBus, hook: NoteHook, config: NoteLaneConfig,
                 slots: asyncio.Semaphore, tenants: Callable[[], frozenset[str] | None]) -> None:
        self.graph = graph
        self.bus = bus
        self.hook = hook
        self.config = config
        self.slots = slots
        self.tenants = tenants
        self._wake = asyncio.Event()
        self.indexed = 0  # notes this lane has indexed since it started

    def wake(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        """Drain the queue, then wait for a save's announcement or the next sweep; forever."""
        while True:
            self._wake.clear()
            try:
                while await self.run_once():
                    pass
            except Exception as exc:  # Neo4j away: the next wake or sweep tries again
                log.warning("deferred note indexing failed", reason=str(exc))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.config.sweep_seconds):
                    await self._wake.wait()

    async def run_once(self) -> int:
        """Claim and index one batch per tenant found; returns how many notes were claimed (0: the queue is dry)."""
        tenants = self.tenants()
        await give_way()  # requests in flight go first; what saves queue meanwhile joins this claim
        async with self.slots:
            claimed = await self.graph.write(cypher.claim, sorted(tenants) if tenants is not None else None,
                                             self.config.worker_id, self.config.lease_seconds, self.config.batch_size)
            by_tenant: dict[str, list[str]] = {}
            for item in claimed:
                by_tenant.setdefault(item.tenant_id, []).append(item.note_id)
            for tenant, ids in by_tenant.items():
                await self._index(tenant, ids)
        return len(claimed)

    async def _index(self, tenant: str, ids: list[str]) -> None:
        items = await self.graph.read(items_by_ids, tenant, ids)
        notes = [item for item in items.values() if isinstance(item, Note)]
        principal = Principal(tenant_id=tenant, sees_all_scopes=True)  # the fuzzy pass keeps to each note's owners
        flags: list[bool] = []
        if notes:
            async with asyncio.timeout(self.config.lease_seconds):
                flags = await self.hook(principal, notes)
        outcome = {note.id: flag for note, flag in zip(notes, flags, strict=True)}
        outcome.update({note_id: False for note_id in ids if note_id not in outcome})  # gone meanwhile
        finished = await self.graph.write(cypher.finish, tenant, self.config.worker_id, outcome,
                                          self.config.max_attempts, self.config.sweep_seconds)
        done = sum(flags)
        self.indexed += done
        log.info("deferred notes indexed", tenant=tenant, claimed=len(ids), indexed=done, finished=finished)
        await self.bus.publish(NotesIndexing(tenant_id=tenant, queued=0, indexed=done, at=datetime.now(UTC)))

    async def release(self) -> None:
        """Give back what this worker holds (on stop), so the next start or another worker takes it at once."""
        await self.graph.write(cypher.release, self.config.worker_id)
