"""The in-process event bus: fan-out in order, filters, and what happens to a subscriber that falls behind."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from vaultgraph.domain import EnrichmentStage
from vaultgraph.events.bus import DocumentQueued, DocumentStageChanged, InProcessBus, Overflow, SubscriberTooSlow

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def stage(n: int, tenant: str = "t1") -> DocumentStageChanged:
    return DocumentStageChanged(tenant_id=tenant, document_id=f"doc_{n}", owner_key="shared",
                                stage=EnrichmentStage.PREPARE, attempt=1, error=None, at=NOW)


async def test_every_subscriber_gets_every_accepted_event_in_order() -> None:
    bus = InProcessBus()
    everything = bus.subscribe()
    only_t2 = bus.subscribe(lambda e: e.tenant_id == "t2")
    for n in range(5):
        await bus.publish(stage(n, "t1" if n % 2 else "t2"))
    assert [e.document_id for e in everything.drain()] == [f"doc_{n}" for n in range(5)]
    assert [e.document_id for e in only_t2.drain()] == ["doc_0", "doc_2", "doc_4"]
    assert DocumentStageChanged.name == "document.stage_changed" and DocumentQueued.name == "document.queued"


async def test_a_slow_subscriber_loses_its_oldest_events_and_never_blocks_the_publisher() -> None:
    bus = InProcessBus()
    slow = bus.subscribe(capacity=3)
    for n in range(10):
        bus.publish_nowait(stage(n))  # returns at once although nobody reads
    assert slow.dropped == 7
    assert [e.document_id for e in slow.drain()] == ["doc_7", "doc_8", "doc_9"]


async def test_a_subscriber_that_must_not_skip_is_disconnected_with_a_reason() -> None:
    bus = InProcessBus()
    strict = bus.subscribe(capacity=2, overflow=Overflow.DISCONNECT)
    for n in range(3):
        await bus.publish(stage(n))
    assert bus.subscriber_count == 0
    received = [await strict.next(), await strict.next()]
    assert [e.document_id for e in received if e] == ["doc_0", "doc_1"]
    with pytest.raises(SubscriberTooSlow, match="resubscribe"):
        await strict.next()


async def test_iteration_waits_for_events_and_ends_when_the_subscription_closes() -> None:
    bus = InProcessBus()
    received: list[str] = []

    async def consume() -> None:
        async with bus.subscribe() as events:
            async for event in events:
                received.append(event.document_id)
                if len(received) == 2:
                    return

    task = asyncio.create_task(consume())
    await asyncio.sleep(0)
    await bus.publish(stage(1))
    await bus.publish(stage(2))
    await asyncio.wait_for(task, 1)
    assert received == ["doc_1", "doc_2"]
    assert bus.subscriber_count == 0
    waiting = bus.subscribe()
    closer = asyncio.create_task(waiting.next())
    await asyncio.sleep(0)
    await bus.aclose()
    assert await asyncio.wait_for(closer, 1) is None
