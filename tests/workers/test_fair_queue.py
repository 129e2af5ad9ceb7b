"""Round-robin over tenants, then agents: a big queue cannot starve a small one."""

from __future__ import annotations

import asyncio

import pytest

from vaultgraph.workers.fair_queue import FairQueue

pytestmark = pytest.mark.workers


def test_batches_come_from_one_tenant_agent_queue_in_fifo_order() -> None:
    queue = FairQueue()
    for n in range(7):
        queue.put("a", "agent-1", f"d{n}")
    assert not queue.put("a", "agent-1", "d0")  # already waiting
    first = queue.take(5)
    assert first is not None and (first.tenant_id, first.agent, first.document_ids) == (
        "a", "agent-1", ["d0", "d1", "d2", "d3", "d4"])
    second = queue.take(5)
    assert second is not None and second.document_ids == ["d5", "d6"]
    assert queue.take(5) is None and len(queue) == 0


def test_a_newcomer_tenant_is_served_next_and_then_tenants_alternate() -> None:
    queue = FairQueue()
    for n in range(50):
        queue.put("big", None, f"b{n}")
    assert queue.take(5).tenant_id == "big"  # type: ignore[union-attr]
    queue.put("small", None, "s0")
    queue.put("small", None, "s1")
    order = [queue.take(1).tenant_id for _ in range(4)]  # type: ignore[union-attr]
    assert order == ["small", "big", "small", "big"]


def test_agents_of_a_tenant_share_that_tenant_turn() -> None:
    queue = FairQueue()
    for agent in ("x", "y", "z"):
        for n in range(3):
            queue.put("many", agent, f"{agent}{n}")
    for n in range(3):
        queue.put("one", None, f"o{n}")
    tenants = [queue.take(1).tenant_id for _ in range(6)]  # type: ignore[union-attr]
    assert tenants.count("one") == 3  # half the turns, although "many" has three agents


async def test_get_waits_for_work_and_lingers_to_fill_a_batch() -> None:
    queue = FairQueue()
    waiter = asyncio.create_task(queue.get(5, linger=0.05))
    await asyncio.sleep(0.01)
    assert not waiter.done()
    queue.put("a", None, "d0")
    await asyncio.sleep(0.01)
    queue.put("a", None, "d1")  # arrives within the linger: same batch
    batch = await asyncio.wait_for(waiter, 1)
    assert batch.document_ids == ["d0", "d1"]
