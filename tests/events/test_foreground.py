"""Background lanes give way to the requests a process is answering (events/foreground.py): they wait while one
is in flight and for a short grace after it, never longer than `max_wait`, and only in a background context, so a
request's own work never waits for itself."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from vaultgraph.events.foreground import BACKGROUND, Foreground, give_way, sharing


async def test_a_lane_goes_on_at_once_when_no_request_is_in_flight() -> None:
    gate = Foreground(grace=60, max_wait=60)  # a grace this long would show: nothing has ever been served
    await asyncio.wait_for(gate.give_way(), 5)
    assert gate.waits == 0


async def test_a_lane_waits_for_the_request_in_flight_and_a_grace_after_it() -> None:
    gate = Foreground(grace=0.01, max_wait=60)
    with gate.serving():
        waiting = asyncio.create_task(gate.give_way())
        await asyncio.sleep(0.05)
        assert not waiting.done()  # bounded by max_wait alone, a minute away
        with gate.serving():  # a second request overlapping the first: still in flight when the first ends
            pass
        await asyncio.sleep(0.05)
        assert not waiting.done() and gate.in_flight == 1
    await asyncio.wait_for(waiting, 5)
    assert gate.waits == 1 and gate.in_flight == 0


async def test_a_steady_stream_of_requests_holds_a_lane_no_longer_than_max_wait() -> None:
    gate = Foreground(grace=60, max_wait=0.05)
    with gate.serving():  # never ends while the lane waits
        await asyncio.wait_for(gate.give_way(), 5)
    await asyncio.wait_for(gate.give_way(), 5)  # and the grace after it is bounded the same way
    assert gate.waits == 2


async def test_only_work_in_a_background_context_gives_way() -> None:
    gate = Foreground(grace=0, max_wait=60)
    with gate.serving():
        await asyncio.wait_for(give_way(), 5)  # a request's own work (an inline save's embedding): no wait
        assert gate.waits == 0
        background = contextvars.copy_context()
        background.run(BACKGROUND.set, gate)
        lane = asyncio.create_task(give_way(), context=background)
        await asyncio.sleep(0.05)
        assert not lane.done()
    await asyncio.wait_for(lane, 5)
    assert gate.waits == 1 and BACKGROUND.get() is None


def test_negative_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="must not be negative"):
        Foreground(grace=-1)


async def test_a_background_step_shares_the_machine_while_requests_are_answered_and_not_after() -> None:
    gate = Foreground(grace=0.01, max_wait=60)
    background = contextvars.copy_context()
    background.run(BACKGROUND.set, gate)
    assert not background.run(sharing)
    with gate.serving():
        assert background.run(sharing) and gate.busy
        assert not sharing()  # outside a background lane: a request's own work
    await asyncio.sleep(0.05)
    assert not background.run(sharing)
    off = Foreground(max_wait=0)  # VAULTGRAPH_ENRICHMENT_GIVE_WAY_SECONDS=0: background work never yields
    with off.serving():
        assert not off.busy


async def test_one_step_waits_max_wait_at_most_in_all_however_many_batches_it_has() -> None:
    """A long document's embedding (hundreds of batches) beside a steady stream of requests waits one `max_wait`
    for the whole call, not one per batch, so it never runs into its attempt's timeout."""
    gate = Foreground(grace=60, max_wait=0.05)
    with gate.serving():
        assert await asyncio.wait_for(gate.give_way(already=0.05), 5) == 0.0  # its budget is spent: no wait
        waited = await asyncio.wait_for(gate.give_way(already=0.02), 5)
    assert waited > 0 and gate.waits == 1
