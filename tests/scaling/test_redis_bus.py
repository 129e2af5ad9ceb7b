"""RedisBus against a real redis-server: events cross bus instances (as they cross processes) in order, per tenant
channel, with the same bounded queues and overflow policies as the in-process bus."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
import redis.asyncio as aioredis

from tests.support.redis import RedisServer
from vaultgraph.domain import EnrichmentStage
from vaultgraph.events.bus import (
    DocumentQueued,
    DocumentStageChanged,
    Event,
    InProcessBus,
    Overflow,
    SubscriberTooSlow,
    WorkspaceScanProgress,
)
from vaultgraph.events.redis import RedisBus, build_event_bus, channel, decode, encode

pytestmark = [pytest.mark.scaling]

AT = datetime(2026, 11, 29, 19, 0, 0, 123456, tzinfo=UTC)


def stage(tenant: str, document: str, stage: EnrichmentStage, attempt: int = 1) -> DocumentStageChanged:
    return DocumentStageChanged(tenant_id=tenant, document_id=document, owner_key="shared", stage=stage,
                                attempt=attempt, error=None, at=AT)


@pytest.fixture
async def buses(redis_server: RedisServer) -> AsyncIterator[tuple[RedisBus, RedisBus]]:
    """Two buses on one Redis: what two processes would hold."""
    first, second = RedisBus(redis_server.url, 100), RedisBus(redis_server.url, 100)
    await first.start()
    await second.start()
    yield first, second
    await first.aclose()
    await second.aclose()


def test_every_event_type_survives_the_wire_unchanged() -> None:
    events: list[Event] = [
        DocumentQueued(tenant_id="t1", document_id="d1", owner_key="agent:a", agent_id="a", at=AT),
        DocumentStageChanged(tenant_id="t1", document_id="d1", owner_key="shared", stage=EnrichmentStage.FAILED,
                             attempt=3, error="the attempt timed out after 300 s", at=AT, detail="why"),
        WorkspaceScanProgress(tenant_id="t1", scan_id="s1", total=10, seen=4, new=1, changed=1, unchanged=2,
                              removed=0, skipped=0, current_path="notes/a.md", done=False, at=AT),
    ]
    for event in events:
        assert decode(encode(event)) == event
    assert '"type":"document.stage_changed"' in encode(events[1])


def test_a_message_that_is_not_an_event_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="not a vaultgraph event"):
        decode('{"type": "document.deleted", "data": {}}')
    with pytest.raises(ValueError, match="not a vaultgraph event"):
        decode("not json")


def test_without_a_redis_url_the_bus_stays_in_process(redis_server: RedisServer) -> None:
    assert isinstance(build_event_bus(None, 10), InProcessBus)
    assert isinstance(build_event_bus(redis_server.url, 10), RedisBus)


async def test_events_published_by_one_bus_reach_the_other_in_order(buses: tuple[RedisBus, RedisBus]) -> None:
    publisher, receiver = buses
    stages = list(EnrichmentStage)
    async with receiver.subscribe(label="test") as subscription:
        for document in ("d1", "d2"):
            for value in stages:
                await publisher.publish(stage("t1", document, value))
        received: list[Event] = []
        async with asyncio.timeout(10):
            while len(received) < 2 * len(stages):
                event = await subscription.next()
                assert event is not None
                received.append(event)
    assert received == [stage("t1", document, value) for document in ("d1", "d2") for value in stages]
    assert publisher.published == 2 * len(stages)


async def test_a_bus_sees_its_own_events_once(buses: tuple[RedisBus, RedisBus]) -> None:
    bus, _ = buses
    async with bus.subscribe(label="own") as subscription:
        await bus.publish(stage("t1", "d1", EnrichmentStage.QUEUED))
        await bus.publish(stage("t1", "d1", EnrichmentStage.DONE))
        async with asyncio.timeout(10):
            first, second = await subscription.next(), await subscription.next()
        await asyncio.sleep(0.2)
        assert subscription.pending() == 0  # not delivered twice (locally and through Redis)
    assert [first, second] == [stage("t1", "d1", EnrichmentStage.QUEUED), stage("t1", "d1", EnrichmentStage.DONE)]


async def test_a_bus_for_some_tenants_listens_to_their_channels_only(redis_server: RedisServer,
                                                                    buses: tuple[RedisBus, RedisBus]) -> None:
    publisher, _ = buses
    sharded = RedisBus(redis_server.url, 100, tenants=["t1"])
    await sharded.start()
    try:
        async with sharded.subscribe(label="sharded") as subscription:
            await publisher.publish(stage("t2", "other", EnrichmentStage.QUEUED))
            await publisher.publish(stage("t1", "mine", EnrichmentStage.QUEUED))
            async with asyncio.timeout(10):
                event = await subscription.next()
            assert isinstance(event, DocumentStageChanged) and event.document_id == "mine"
            assert sharded.received == 1  # t2's event never reached this process
    finally:
        await sharded.aclose()
    client = aioredis.Redis.from_url(redis_server.url)
    try:  # one channel per tenant
        assert await client.publish(channel("t1"), encode(stage("t1", "x", EnrichmentStage.DONE))) >= 2
    finally:
        await client.aclose()


async def test_a_subscriber_that_falls_behind_is_disconnected_as_on_the_in_process_bus(
    buses: tuple[RedisBus, RedisBus],
) -> None:
    publisher, receiver = buses
    strict = receiver.subscribe(capacity=3, overflow=Overflow.DISCONNECT, label="strict")
    lossy = receiver.subscribe(capacity=3, overflow=Overflow.DROP_OLDEST, label="lossy")
    counter = receiver.subscribe(label="counter")  # fed in the same step as the other two
    for attempt in range(1, 6):
        await publisher.publish(stage("t1", "d1", EnrichmentStage.SUMMARIZE, attempt))
    async with asyncio.timeout(10):
        for _ in range(5):
            await counter.next()
    await counter.close()
    with pytest.raises(SubscriberTooSlow, match="fell 3 events behind"):
        while await strict.next() is not None:
            pass
    kept = lossy.drain()
    assert [e.attempt for e in kept if isinstance(e, DocumentStageChanged)] == [3, 4, 5]
    assert lossy.dropped == 2
    await lossy.close()


async def test_with_redis_gone_events_still_reach_this_process() -> None:
    bus = RedisBus("redis://127.0.0.1:1/0", 10)  # nothing listens on port 1
    await bus.start()
    try:
        async with bus.subscribe(label="local") as subscription:
            await bus.publish(stage("t1", "d1", EnrichmentStage.QUEUED))
            async with asyncio.timeout(5):
                assert await subscription.next() == stage("t1", "d1", EnrichmentStage.QUEUED)
        assert bus.published == 0
    finally:
        await bus.aclose()
