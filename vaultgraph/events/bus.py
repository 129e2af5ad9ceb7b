"""The event bus: named, frozen events and an in-process bus that fans each one out to its subscribers.

Publishing never waits on a subscriber. Every subscriber has its own bounded queue; when it falls behind, its
overflow policy decides: drop the oldest queued event (fine for progress, where only the latest matters) or
disconnect it with a reason (for streams where a gap would mislead). Either way the reason is logged once.

A subscriber whose reader can take an event without being woken (`Subscription.express`: a live GraphQL
subscription writing the event's frame to its socket) is handed each event while its reader waits on an empty queue,
all of one publish's subscribers in one callback after it, rather than each reader's task woken to walk its whole
stack for one event (bench/README.md, fan-out: that walk was most of a delivery's cost). The queue stays the truth:
an event the express refuses, and every one after it, is queued as before.

`EventBus` is the interface the rest of vaultgraph codes against, so `RedisBus` (events/redis.py) replaces
`InProcessBus` when several processes share one Neo4j (events then cross processes; REDIS_URL).
"""

from __future__ import annotations

import asyncio
import contextvars
import enum
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import ClassVar, Protocol

import structlog

from vaultgraph.domain import EnrichmentStage
from vaultgraph.errors import LimitExceeded

log = structlog.get_logger(__name__)

DEFAULT_QUEUE_SIZE = 1000


@dataclass(frozen=True, slots=True)
class DocumentQueued:
    """A document needs enrichment (created, changed on disk, or re-enrichment asked for)."""

    name: ClassVar[str] = "document.queued"
    tenant_id: str
    document_id: str
    owner_key: str
    agent_id: str | None
    at: datetime


@dataclass(frozen=True, slots=True)
class DocumentStageChanged:
    """A document entered an enrichment stage; `error` says why on FAILED and SKIPPED, `detail` adds a note
    (e.g. why link classification was skipped)."""

    name: ClassVar[str] = "document.stage_changed"
    tenant_id: str
    document_id: str
    owner_key: str
    stage: EnrichmentStage
    attempt: int
    error: str | None
    at: datetime
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class WorkspaceScanProgress:
    """Where a workspace scan stands: counts so far, the file just handled, and `done` on the last one."""

    name: ClassVar[str] = "workspace.scan_progress"
    tenant_id: str
    scan_id: str
    total: int
    seen: int
    new: int
    changed: int
    unchanged: int
    removed: int
    skipped: int
    current_path: str | None
    done: bool
    at: datetime


@dataclass(frozen=True, slots=True)
class NotesIndexing:
    """Notes of a tenant were queued for deferred indexing (`queued`), or a worker indexed some (`indexed`): the
    workers wake on the first, progress streams recount on both."""

    name: ClassVar[str] = "notes.indexing"
    tenant_id: str
    queued: int
    indexed: int
    at: datetime


Event = DocumentQueued | DocumentStageChanged | WorkspaceScanProgress | NotesIndexing
EventFilter = Callable[[Event], bool]
# Takes an event for a waiting reader: True when it was handled (delivered, or a repeat the reader would drop), False
# when the reader must take it itself (it is queued, with every event after it).
Express = Callable[[Event], bool]


class Overflow(enum.Enum):
    DROP_OLDEST = "drop_oldest"
    DISCONNECT = "disconnect"


class SubscriberTooSlow(LimitExceeded):
    """The subscriber's queue overflowed and its policy is to disconnect rather than skip events."""


class Subscription:
    """One subscriber's bounded queue, read as an async iterator. The bus registers it when created, so nothing
    published after `subscribe()` returns is missed; `close()` (or leaving `async with`) unregisters it. Any bus
    implementation can feed it through `offer()`."""

    def __init__(self, accept: EventFilter | None, capacity: int, overflow: Overflow, label: str,
                 on_close: Callable[[Subscription], None]) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._on_close = on_close
        self._accept = accept
        self._queue: deque[Event] = deque()
        self._capacity = capacity
        self._overflow = overflow
        self._ready = asyncio.Event()
        self._closed = False
        self._failure: SubscriberTooSlow | None = None
        self._express: Express | None = None
        self._held: deque[Event] = deque()  # offered for the express, in order, until the bus's flush after publish
        self._waiting = False  # the reader waits in next() on an empty queue (until its task runs again)
        self.label = label
        self.dropped = 0
        self.expressed = 0  # events the express took (delivered, or repeats it dropped)

    def express(self, take: Express | None) -> None:
        """From now on, while the reader waits on an empty queue, hand each event to `take` (None: stop). `take`
        runs in the bus's callback after a publish, never inside `offer`: publishing still never waits."""
        self._express = take

    def offer(self, event: Event) -> bool:
        """Called by the bus for every event: never blocks, never raises. True when the event is held for the
        express: the bus then calls `flush()` once after the publish."""
        if self._closed or (self._accept is not None and not self._accept(event)):
            return False
        if self._held or (self._express is not None and self._waiting and not self._queue):
            if len(self._held) < self._capacity:
                self._held.append(event)
                return len(self._held) == 1
            self._spill()
        self._enqueue(event)
        return False

    def flush(self) -> None:
        """The held events to the express while it takes them and the reader still waits; the rest queued, in
        order."""
        while self._held and not self._closed and self._express is not None and self._waiting and not self._queue:
            try:
                taken = self._express(self._held[0])
            except Exception:  # the reader takes the event its own way, and meets the failure there
                log.exception("express failed; the subscriber's task takes the event", subscriber=self.label)
                taken = False
            if not taken:
                break
            self._held.popleft()
            self.expressed += 1
        self._spill()

    def _spill(self) -> None:
        while self._held:
            self._enqueue(self._held.popleft())

    def _enqueue(self, event: Event) -> None:
        if self._closed:
            return
        if len(self._queue) >= self._capacity:
            if self._overflow is Overflow.DISCONNECT:
                self._failure = SubscriberTooSlow(
                    f"this subscription fell {self._capacity} events behind and was closed; resubscribe (the "
                    "first message after resubscribing is the current state)", limit=self._capacity)
                log.warning("event subscriber disconnected", subscriber=self.label, capacity=self._capacity)
                self._close_queue()
                return
            self._queue.popleft()
            self.dropped += 1
            if self.dropped == 1:
                log.warning("event subscriber too slow, dropping its oldest events", subscriber=self.label,
                            capacity=self._capacity)
        self._queue.append(event)
        self._ready.set()

    def pending(self) -> int:
        return len(self._queue)

    def drain(self) -> list[Event]:
        """Everything queued right now, without waiting."""
        events = list(self._queue)
        self._queue.clear()
        if not self._closed:
            self._ready.clear()
        return events

    async def next(self) -> Event | None:
        """The next event; None once the subscription is closed. Raises SubscriberTooSlow after a disconnect."""
        while not self._queue:
            if self._failure is not None:
                raise self._failure
            if self._closed:
                return None
            self._ready.clear()
            self._waiting = True
            try:
                await self._ready.wait()
            finally:
                self._waiting = False
        return self._queue.popleft()

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __anext__(self) -> Event:
        event = await self.next()
        if event is None:
            raise StopAsyncIteration
        return event

    def _close_queue(self) -> None:
        self._closed = True
        self._on_close(self)
        self._ready.set()

    async def close(self) -> None:
        self._close_queue()
        self._queue.clear()
        self._held.clear()

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


def _flush(subscriptions: Iterable[Subscription]) -> None:
    for subscription in subscriptions:
        subscription.flush()


class EventBus(Protocol):
    """What publishers and subscribers need; `InProcessBus` and `RedisBus` (events/redis.py) provide it.
    `start()` (the lifespan's job) connects whatever the bus needs; subscriptions made after it miss nothing."""

    async def start(self) -> None: ...

    async def publish(self, event: Event) -> None: ...

    def subscribe(self, accept: EventFilter | None = None, *, capacity: int | None = None,
                  overflow: Overflow = Overflow.DROP_OLDEST, label: str = "subscriber") -> Subscription: ...

    async def aclose(self) -> None: ...


class InProcessBus:
    """Fan-out inside one event loop. Ordered per subscriber; publishers never block."""

    def __init__(self, default_capacity: int = DEFAULT_QUEUE_SIZE) -> None:
        self.default_capacity = default_capacity
        self._subscribers: list[Subscription] = []

    async def start(self) -> None:
        """Nothing to connect."""

    async def publish(self, event: Event) -> None:
        self.publish_nowait(event)

    def publish_nowait(self, event: Event) -> None:
        held = [subscription for subscription in list(self._subscribers) if subscription.offer(event)]
        if held:
            try:
                # a context of its own: nothing of the publisher's (a worker's background marker, a request's
                # log fields) reaches what the express runs
                asyncio.get_running_loop().call_soon(_flush, held, context=contextvars.Context())
            except RuntimeError:  # no loop running (a synchronous caller): no reader can be waiting either
                _flush(held)

    def subscribe(self, accept: EventFilter | None = None, *, capacity: int | None = None,
                  overflow: Overflow = Overflow.DROP_OLDEST, label: str = "subscriber") -> Subscription:
        subscription = Subscription(accept, capacity or self.default_capacity, overflow, label, self._remove)
        self._subscribers.append(subscription)
        return subscription

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def _remove(self, subscription: Subscription) -> None:
        if subscription in self._subscribers:
            self._subscribers.remove(subscription)

    async def aclose(self) -> None:
        for subscription in list(self._subscribers):
            await subscription.close()
