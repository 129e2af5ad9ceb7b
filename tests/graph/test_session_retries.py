"""Which failures `Graph` runs a transaction again for, on the real server: the driver's own rule leaves out two
that a second run does not meet (graph/session.py, _passing_fault)."""

from __future__ import annotations

import asyncio
import time

import pytest
from neo4j import AsyncManagedTransaction
from neo4j.exceptions import Neo4jError, SessionExpired

from vaultgraph.events.foreground import BACKGROUND, Foreground
from vaultgraph.graph.session import MAX_RETRY_SECONDS, RACE_RETRIES, Graph, _retried

pytestmark = pytest.mark.graph

# What the server sent in a fresh-clone run when its filtered vector search failed inside Lucene.
VECTOR_FAULT = {"code": "Neo.DatabaseError.Statement.ExecutionFailed",
                "message": "Index 33554418 out of bounds for length 1"}
ENTITY_GONE = {"code": "Neo.ClientError.Statement.EntityNotFound", "message": "Node with id 7 has been deleted"}


def failing_first(times: int, fault: dict[str, str]) -> tuple[list[int], object]:
    """A transaction function that fails as the server would `times` times, then reads one row for real."""
    calls: list[int] = []

    async def work(tx: AsyncManagedTransaction) -> int:
        calls.append(1)
        if len(calls) <= times:
            raise Neo4jError._hydrate_neo4j(**fault)
        record = await (await tx.run("RETURN 41 + 1 AS answer")).single()
        assert record is not None
        return int(record["answer"])

    return calls, work


@pytest.mark.parametrize("fault", [VECTOR_FAULT, ENTITY_GONE], ids=["vector-search-fault", "entity-gone"])
async def test_a_passing_fault_is_run_again_and_counted(graph: Graph, fault: dict[str, str]) -> None:
    calls, work = failing_first(2, fault)
    retries_before = graph.retries
    assert await graph.read(work) == 42  # type: ignore[arg-type]
    assert len(calls) == 3
    assert graph.retries - retries_before == 2


async def test_a_fault_that_persists_reaches_the_caller_after_the_retries(graph: Graph) -> None:
    calls, work = failing_first(RACE_RETRIES + 1, VECTOR_FAULT)
    with pytest.raises(Neo4jError, match="out of bounds"):
        await graph.write(work)  # type: ignore[arg-type]
    assert len(calls) == RACE_RETRIES + 1


async def test_any_other_database_error_is_not_retried(graph: Graph) -> None:
    calls, work = failing_first(1, {"code": "Neo.DatabaseError.Statement.ExecutionFailed",
                                    "message": "Java heap space"})
    with pytest.raises(Neo4jError, match="heap"):
        await graph.read(work)  # type: ignore[arg-type]
    assert len(calls) == 1


DEADLOCK = {"code": "Neo.TransientError.Transaction.DeadlockDetected",
            "message": "ForsetiClient can't acquire EXCLUSIVE DEGREES(7): it would form a deadlock wait cycle"}


def failing_for(seconds: float) -> object:
    """A transaction function that fails as a deadlock victim for `seconds`, then reads one row for real."""
    started = time.monotonic()

    async def work(tx: AsyncManagedTransaction) -> int:
        if time.monotonic() - started < seconds:
            raise Neo4jError._hydrate_neo4j(**DEADLOCK)
        record = await (await tx.run("RETURN 41 + 1 AS answer")).single()
        assert record is not None
        return int(record["answer"])

    return work


async def test_a_background_write_outlasts_a_deadlock_that_a_request_gives_up_on(graph: Graph) -> None:
    # The driver's last wait may end past its MAX_RETRY_SECONDS (it checks the time before it waits): ~3.5 s at most.
    outlasting = 3 * MAX_RETRY_SECONDS + 1
    with pytest.raises(Neo4jError, match="deadlock"):
        await graph.write(failing_for(outlasting))  # type: ignore[arg-type]
    lane = BACKGROUND.set(Foreground())  # as the worker pool's tasks run
    try:
        assert await graph.write(failing_for(outlasting)) == 42  # type: ignore[arg-type]
    finally:
        BACKGROUND.reset(lane)



@pytest.mark.parametrize(("first_run", "runs"), [(0.3, 1), (0.0, 3)], ids=["slower-than-the-window", "quick"])
async def test_the_retry_window_counts_the_first_run(graph: Graph, first_run: float, runs: int) -> None:
    # The first run goes outside tenacity's loop, whose clock would otherwise start after it: one that fails past
    # the whole window is not run again; quick failures are, as before (waits of 50 and 100 ms within 0.2 s).
    calls: list[int] = []

    async def failing() -> None:
        calls.append(1)
        if len(calls) == 1:
            await asyncio.sleep(first_run)
        raise SessionExpired("the connection went away")

    retries_before = graph.retries
    with pytest.raises(SessionExpired):
        await _retried(failing, graph=graph, patience=0.2)
    assert len(calls) == runs
    assert graph.retries - retries_before == runs - 1
