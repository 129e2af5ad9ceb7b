"""Events across processes: `RedisBus`, the `EventBus` for several replicas and workers sharing one Neo4j.

Every event is published as JSON (`{"type": event.name, "data": {...}}`) on its tenant's channel,
`vaultgraph:events:<tenant>`, through one connection per process. Each process listens on one pub/sub connection
(every tenant's channel by pattern, or only the channels of the tenants it serves) and fans what arrives out to its
local subscribers through an `InProcessBus`, so subscriptions keep the same bounded queues and overflow policies.
Redis delivers a channel's messages in the order it received them, and a document's events come from one
publisher at a time (the replica that queued it, then the worker holding its claim), so every subscriber sees a
document's stages in order, including its own process's events, which also make the round trip through Redis.

Redis pub/sub is at-most-once: while the connection is down, events are lost. The bus keeps working locally
(published events still reach this process's subscribers), reconnects with a growing pause, and the workers' sweep
picks up any `DocumentQueued` that never arrived.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.exceptions import RedisError

from vaultgraph.domain import EnrichmentStage
from vaultgraph.events.bus import (
    DEFAULT_QUEUE_SIZE,
    DocumentQueued,
    DocumentStageChanged,
    Event,
    EventBus,
    EventFilter,
    InProcessBus,
    NotesIndexing,
    Overflow,
    Subscription,
    WorkspaceScanProgress,
)

log = structlog.get_logger(__name__)

CHANNEL_PREFIX = "vaultgraph:events:"
EVENT_TYPES: dict[str, type[Event]] = {cls.name: cls for cls in (DocumentQueued, DocumentStageChanged,
                                                                  WorkspaceScanProgress, NotesIndexing)}
# Fields that JSON cannot carry as they are; everything else is a str, int, bool or None.
_DECODERS: dict[str, Callable[[Any], Any]] = {"at": datetime.fromisoformat, "stage": EnrichmentStage}
RECONNECT_PAUSES = (0.1, 0.5, 1.0, 2.0, 5.0)
POLL_SECONDS = 1.0


class EventDecodeError(ValueError):
    """A message on a vaultgraph channel that is not an event this version knows."""


def channel(tenant_id: str) -> str:
    return f"{CHANNEL_PREFIX}{tenant_id}"


def encode(event: Event) -> str:
    data: dict[str, Any] = {}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        if isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, EnrichmentStage):
            value = value.value
        data[field.name] = value
    return json.dumps({"type": event.name, "data": data}, separators=(",", ":"))


def decode(raw: str | bytes) -> Event:
    try:
        message = json.loads(raw)
        cls = EVENT_TYPES[message["type"]]
        data = message["data"]
        names = {field.name for field in dataclasses.fields(cls)}
        kwargs = {key: _DECODERS[key](value) if key in _DECODERS and value is not None else value
                  for key, value in data.items() if key in names}
        return cls(**kwargs)
    except (ValueError, KeyError, TypeError) as exc:
        raise EventDecodeError(f"not a vaultgraph event: {exc}") from exc


class RedisBus:
    """The `EventBus` over Redis pub/sub. `start()` connects and subscribes (the lifespan's job); `aclose()` ends
    both connections and every local subscription."""

    def __init__(self, url: str, default_capacity: int = DEFAULT_QUEUE_SIZE,
                 tenants: Collection[str] | None = None) -> None:
        self.url = url
        self.tenants = frozenset(tenants) if tenants else None
        self._local = InProcessBus(default_capacity)
        # One connection for every publish of this process: Redis then receives them in the order they were sent.
        self._publisher = aioredis.Redis.from_url(url, single_connection_client=True)
        self._listener = aioredis.Redis.from_url(url)
        self._reader: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self.published = 0
        self.received = 0
        self._publish_failing = False

    @property
    def default_capacity(self) -> int:
        return self._local.default_capacity

    @property
    def subscriber_count(self) -> int:
        return self._local.subscriber_count

    async def start(self) -> None:
        """Subscribe to the channels and wait until Redis confirms, so nothing published after this is missed."""
        if self._reader is not None:
            return
        self._reader = asyncio.create_task(self._read(), name="redis-event-reader")
        waiter = asyncio.create_task(self._subscribed.wait())
        await asyncio.wait({waiter, self._reader}, return_when=asyncio.FIRST_COMPLETED)
        if not waiter.done():  # the reader ended: it only does so on cancellation
            waiter.cancel()

    async def publish(self, event: Event) -> None:
        try:
            await self._publisher.publish(channel(event.tenant_id), encode(event))
            self.published += 1
            if self._publish_failing:
                self._publish_failing = False
                log.info("redis event publishing works again", url=_safe(self.url))
        except (RedisError, OSError) as exc:
            # Other processes miss this event; this one still gets it, and the workers' sweep finds queued work.
            if not self._publish_failing:
                self._publish_failing = True
                log.warning("redis publish failed; delivering events in this process only until it works",
                            url=_safe(self.url), reason=str(exc))
            self._local.publish_nowait(event)

    def subscribe(self, accept: EventFilter | None = None, *, capacity: int | None = None,
                  overflow: Overflow = Overflow.DROP_OLDEST, label: str = "subscriber") -> Subscription:
        return self._local.subscribe(accept, capacity=capacity, overflow=overflow, label=label)

    async def _subscribe(self, pubsub: aioredis.client.PubSub) -> None:
        if self.tenants is None:
            await pubsub.psubscribe(f"{CHANNEL_PREFIX}*")
        else:
            await pubsub.subscribe(*(channel(tenant) for tenant in sorted(self.tenants)))
        expected = 1 if self.tenants is None else len(self.tenants)
        confirmed = 0
        while confirmed < expected:  # the confirmations come before any message published after them
            message = await pubsub.get_message(timeout=POLL_SECONDS)
            if message is not None and message["type"] in ("subscribe", "psubscribe"):
                confirmed += 1

    async def _read(self) -> None:
        failures = 0
        while True:
            pubsub = self._listener.pubsub()
            try:
                await self._subscribe(pubsub)
                if failures:
                    log.info("redis event subscription restored", url=_safe(self.url))
                failures = 0
                self._subscribed.set()
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=POLL_SECONDS)
                    if message is not None and message["type"] in ("message", "pmessage"):
                        self._deliver(message["data"])
            except (RedisError, OSError) as exc:
                pause = RECONNECT_PAUSES[min(failures, len(RECONNECT_PAUSES) - 1)]
                if failures == 0:
                    log.warning("redis event subscription lost; reconnecting", url=_safe(self.url), reason=str(exc))
                failures += 1
                self._subscribed.set()  # start() does not wait for Redis forever; publishing falls back locally
                await asyncio.sleep(pause)
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()

    def _deliver(self, raw: str | bytes) -> None:
        try:
            event = decode(raw)
        except EventDecodeError as exc:
            log.warning("ignored a message on an event channel", reason=str(exc))
            return
        self.received += 1
        self._local.publish_nowait(event)

    async def aclose(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._reader = None
        await self._local.aclose()
        for client in (self._publisher, self._listener):
            with contextlib.suppress(RedisError, OSError):
                await client.aclose()


def _safe(url: str) -> str:
    """The URL without its password, for logs."""
    if "@" not in url:
        return url
    scheme, _, rest = url.partition("://")
    return f"{scheme}://…@{rest.rsplit('@', 1)[1]}"


def build_event_bus(redis_url: str | None, capacity: int = DEFAULT_QUEUE_SIZE,
                    tenants: Collection[str] | None = None) -> EventBus:
    """The bus the settings ask for: Redis when `REDIS_URL` is set, else in-process. `tenants` narrows what a
    Redis bus listens to (a worker sharded with VAULTGRAPH_ENRICHMENT_TENANTS)."""
    if redis_url:
        return RedisBus(redis_url, capacity, tenants)
    return InProcessBus(capacity)
