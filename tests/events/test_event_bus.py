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


async def _settle() -> None:
    """Let the bus's flush after a publish, and any task it woke, run."""
    for _ in range(3):
        await asyncio.sleep(0)


class Reader:
    """A subscriber's task, reading with next() as a subscription's generator does, and an express beside it that
    takes events (`taking`) or refuses them, as a socket that can be written now or cannot."""

    def __init__(self, bus: InProcessBus, capacity: int | None = None,
                 overflow: Overflow = Overflow.DROP_OLDEST) -> None:
        self.subscription = bus.subscribe(capacity=capacity, overflow=overflow)
        self.read: list[str] = []
        self.expressed: list[str] = []
        self.taking = True
        self.subscription.express(self.take)
        self.task = asyncio.create_task(self.run())

    def take(self, event: object) -> bool:
        assert isinstance(event, DocumentStageChanged)
        if self.taking:
            self.expressed.append(event.document_id)
        return self.taking

    async def run(self) -> None:
        async for event in self.subscription:
            assert isinstance(event, DocumentStageChanged)
            self.read.append(event.document_id)

    async def stop(self) -> None:
        await self.subscription.close()
        await self.task


async def test_an_express_takes_the_events_of_a_waiting_reader_without_waking_it() -> None:
    bus = InProcessBus()
    reader = Reader(bus)
    await _settle()  # the reader now waits on an empty queue
    for n in range(3):
        bus.publish_nowait(stage(n))
    assert reader.expressed == []  # never inside the publish: after it, in one callback
    await _settle()
    assert reader.expressed == ["doc_0", "doc_1", "doc_2"] and reader.read == []
    assert reader.subscription.expressed == 3 and reader.subscription.pending() == 0
    await reader.stop()


async def test_an_event_the_express_refuses_and_every_one_after_it_reach_the_reader_in_order() -> None:
    bus = InProcessBus()
    reader = Reader(bus)
    await _settle()
    bus.publish_nowait(stage(0))
    await _settle()
    reader.taking = False
    for n in (1, 2):  # one flush: doc_1 refused, so doc_2 is queued behind it without being offered
        bus.publish_nowait(stage(n))
    await _settle()
    assert reader.expressed == ["doc_0"] and reader.read == ["doc_1", "doc_2"]
    reader.taking = True  # the reader waits again: the express takes the next ones
    bus.publish_nowait(stage(3))
    await _settle()
    assert reader.expressed == ["doc_0", "doc_3"] and reader.read == ["doc_1", "doc_2"]
    await reader.stop()


async def test_a_busy_reader_gets_its_events_queued_and_the_express_waits_until_it_waits_again() -> None:
    bus = InProcessBus()
    reader = Reader(bus)
    await _settle()
    reader.taking = False
    bus.publish_nowait(stage(0))
    await asyncio.sleep(0)  # the flush queued doc_0 and woke the reader; it has not run yet
    reader.taking = True
    for n in (1, 2):
        bus.publish_nowait(stage(n))  # the queue is not empty: behind doc_0, never around it
    await _settle()
    assert reader.read == ["doc_0", "doc_1", "doc_2"] and reader.expressed == []
    bus.publish_nowait(stage(3))
    await _settle()
    assert reader.expressed == ["doc_3"]
    await reader.stop()


async def test_held_events_keep_the_queue_s_limit_and_its_overflow_policy() -> None:
    bus = InProcessBus()
    dropping = Reader(bus, capacity=3)
    strict = Reader(bus, capacity=3, overflow=Overflow.DISCONNECT)
    await _settle()
    dropping.taking = strict.taking = False
    for n in range(8):  # one burst, no flush in between: more than a queue holds
        bus.publish_nowait(stage(n))
    await _settle()
    assert dropping.subscription.dropped == 5 and dropping.read == ["doc_5", "doc_6", "doc_7"]
    with pytest.raises(SubscriberTooSlow, match="resubscribe"):
        await strict.task
    assert strict.read == ["doc_0", "doc_1", "doc_2"]
    assert bus.subscriber_count == 1
    await dropping.stop()


async def test_a_closed_subscription_is_not_expressed_to() -> None:
    bus = InProcessBus()
    reader = Reader(bus)
    await _settle()
    bus.publish_nowait(stage(0))
    await reader.subscription.close()  # before the flush: the held event goes nowhere
    await _settle()
    bus.publish_nowait(stage(1))
    await _settle()
    assert reader.expressed == [] and reader.read == []
    await reader.task


async def test_an_express_that_fails_leaves_the_event_to_the_reader_and_the_next_flush_still_runs() -> None:
    bus = InProcessBus()
    reader, other = Reader(bus), Reader(bus)
    await _settle()

    def broken(event: object) -> bool:
        raise RuntimeError("a bug in the express")

    reader.subscription.express(broken)
    bus.publish_nowait(stage(0))
    await _settle()
    assert reader.read == ["doc_0"] and other.expressed == ["doc_0"]  # one failure stops no one else's events
    reader.subscription.express(reader.take)
    bus.publish_nowait(stage(1))
    await _settle()
    assert reader.expressed == ["doc_1"]
    await reader.stop()
    await other.stop()
