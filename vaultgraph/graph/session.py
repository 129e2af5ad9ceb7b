"""The driver and the two ways to run work: `read()` and `write()` through managed transactions.

Managed transactions retry transient errors, so every transaction function must be idempotent.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction, AsyncSession
from neo4j.exceptions import AuthError, DriverError, Neo4jError, ServiceUnavailable, SessionExpired
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential,
)

from vaultgraph.errors import Unavailable
from vaultgraph.events.foreground import in_background

T = TypeVar("T")

MAX_RETRY_SECONDS = 2.0
# A background lane's write (events/foreground.py) keeps retrying a transient failure longer: its inputs are
# computed (a batch's vectors cost seconds of the model) and no request waits on it. A note lane's vector write
# deadlocked with an import adding links to the same hub (the label of its vector needs the node's degrees) for
# longer than 2 s, and the batch was embedded again later (bench/README.md, deferred embedding, round five).
BACKGROUND_RETRY_SECONDS = 30.0
ENTITY_GONE = "Neo.ClientError.Statement.EntityNotFound"
# Neo4j 2026.08's filtered vector search (SEARCH … WHERE) now and then fails inside Lucene with an
# ArrayIndexOutOfBoundsException (FixedBitSet.get <- Lucene10IndexSearcher.searchVectors, seen in the server's
# debug.log); the same statement run again answers. A DatabaseError, so the driver does not retry it.
VECTOR_SEARCH_FAULT = "out of bounds for length"
RACE_RETRIES = 3


class Graph:
    """Owns the driver. Created by the lifespan; `close()` on shutdown."""

    def __init__(self, driver: AsyncDriver, database: str | None = None) -> None:
        self.driver = driver
        self.database = database
        # Set by the health monitor while Neo4j does not answer, so calls fail at once instead of retrying.
        self.down_reason: str | None = None
        # Set when a transaction could not reach Neo4j even after its retries: the monitor then checks at once
        # (rather than at its next tick) and, if Neo4j really is gone, sets `down_reason`.
        self.unreachable = asyncio.Event()
        self.transactions = 0  # managed transactions started; tests count queries with it
        self.retries = 0  # transaction functions and statements run again after a transient error (/metrics)
        # Causal consistency: every session of this process shares one bookmark manager, so a read (routed to
        # any cluster member by `neo4j://`) waits until that member has this process's earlier writes: a replica
        # reads its own writes. On a single server the bookmarks are always met at once.
        self.bookmarks = AsyncGraphDatabase.bookmark_manager()

    @classmethod
    def connect(cls, uri: str, user: str, password: str | None, database: str | None = None) -> Graph:
        auth = (user, password) if password else None
        # Notifications (unknown property keys on a young graph, etc.) are advice for humans at a console.
        # Retries: a managed transaction retries transient errors for at most MAX_RETRY_SECONDS (the driver's
        # default is 30 s), so when Neo4j is down a request answers UNAVAILABLE in about 3 s, not 30.
        driver = AsyncGraphDatabase.driver(uri, auth=auth, notifications_min_severity="OFF",
                                           max_transaction_retry_time=MAX_RETRY_SECONDS)
        return cls(driver, database)

    async def verify(self) -> str:
        """Check that the server answers and the credentials work; returns the server's version string."""
        try:
            info = await self.driver.get_server_info()
        except AuthError as exc:
            raise Unavailable(f"Neo4j refused the credentials: {exc.message}. Set NEO4J_USER/NEO4J_PASSWORD.") from exc
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise Unavailable(f"Neo4j is not reachable: {exc}") from exc
        return info.agent

    async def read(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        # A fresh count for each of _run's attempts: those count themselves, the driver's own retries are counted here.
        return await self._run(neo4j.READ_ACCESS,
                               lambda session: session.execute_read(self._counting(fn), *args, **kwargs))

    async def write(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        def work(session: AsyncSession) -> Awaitable[T]:
            return session.execute_write(self._counting(fn), *args, **kwargs)

        if in_background():
            return await _retried(self._run, neo4j.WRITE_ACCESS, work, graph=self, patience=BACKGROUND_RETRY_SECONDS)
        return await self._run(neo4j.WRITE_ACCESS, work)

    def _counting(self, fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        """`fn`, counting each call after its first in `retries`: the driver retries a managed transaction by
        calling its function again."""
        calls = 0

        async def attempt(tx: AsyncManagedTransaction, *args: Any, **kwargs: Any) -> T:
            nonlocal calls
            calls += 1
            if calls > 1:
                self.retries += 1
            return await fn(tx, *args, **kwargs)

        return attempt

    async def read_records(self, query: str, **params: Any) -> list[neo4j.Record]:
        """One read statement in an auto-commit transaction, every record fetched: one round trip (RUN and PULL go
        together) where a managed transaction takes three (BEGIN; RUN and PULL; COMMIT). Transient errors are
        retried as a managed transaction's are."""
        return await self._run(neo4j.READ_ACCESS,
                               lambda session: _retried(_auto_commit_read, session, query, params, graph=self))

    async def _run(self, mode: str, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        if self.down_reason is not None:
            # The reason (addresses, driver text) is for /healthz and the log, not for every client.
            raise Unavailable("Neo4j is not available right now; check /healthz and try again.")
        self.transactions += 1

        try:
            # Failures the driver does not retry and a second run does not meet (_passing_fault): we retry them.
            return await _first_run_outside(
                self._in_session, (mode, work), _passing_fault,
                lambda: AsyncRetrying(retry=retry_if_exception(_passing_fault), reraise=True,
                                      stop=stop_after_attempt(RACE_RETRIES + 1), before_sleep=self._count_retry))
        except (ServiceUnavailable, SessionExpired) as exc:
            self.unreachable.set()
            raise Unavailable("Neo4j is not reachable right now; check /healthz and try again.") from exc
        except AuthError as exc:
            raise Unavailable("Neo4j refused vaultgraph's credentials; check NEO4J_USER/NEO4J_PASSWORD.") from exc

    def _count_retry(self, state: RetryCallState) -> None:
        """tenacity's `before_sleep`: one more retry, in `retries`."""
        self.retries += 1

    async def _in_session(self, mode: str, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        async with self.driver.session(database=self.database, default_access_mode=mode,
                                       bookmark_manager=self.bookmarks) as session:
            with _pipelined_begin(session):
                return await work(session)

    async def close(self) -> None:
        await self.driver.close()


def _pipelined_begin(session: AsyncSession) -> AbstractContextManager[Any]:
    """BEGIN goes out with the transaction's first statement instead of on its own, as the driver's own
    `execute_query` sends it: one round trip fewer per transaction (an error of BEGIN surfaces with that
    statement). The driver keeps the switch private and offers no public one; without it, nothing changes but
    the round trip, and tests/graph/test_driver_contract.py fails loudly when a driver release drops it."""
    switch = getattr(session, "_pipelined_begin", None)
    return switch if isinstance(switch, AbstractContextManager) else contextlib.nullcontext()


async def _auto_commit_read(session: AsyncSession, query: str, params: dict[str, Any]) -> list[neo4j.Record]:
    result = await session.run(query, params)
    return [record async for record in result]


def _passing_fault(exc: BaseException) -> bool:
    """A node matched by the transaction was deleted by another one before this one could lock it (e.g. a ghost
    whose last link went away), or Neo4j's vector search fault above: the transaction rolled back, and its
    function is idempotent, so running it again is safe."""
    if not isinstance(exc, Neo4jError):
        return False
    if exc.code == ENTITY_GONE:
        return True
    return (exc.code or "").startswith("Neo.DatabaseError.") and VECTOR_SEARCH_FAULT in (exc.message or "")


def _driver_retryable(exc: BaseException) -> bool:
    """What the driver itself retries in a managed transaction."""
    return isinstance(exc, Neo4jError | DriverError) and exc.is_retryable()


async def _retried(fn: Callable[..., Awaitable[T]], *args: Any, graph: Graph,
                   patience: float = MAX_RETRY_SECONDS) -> T:
    """`fn(*args)` retried on what the driver calls retryable (a managed transaction's rule) for at most
    `patience` seconds, waiting 50 ms, then twice as long each time (2 s at most); each retry counted in
    `graph.retries`."""

    started = time.monotonic()

    def loop() -> AsyncRetrying:  # made after the first run: its window still counts that run
        return AsyncRetrying(retry=retry_if_exception(_driver_retryable),
                             stop=stop_before_delay(patience - (time.monotonic() - started)),
                             wait=wait_exponential(multiplier=0.05, max=MAX_RETRY_SECONDS), reraise=True,
                             before_sleep=graph._count_retry)

    return await _first_run_outside(fn, args, _driver_retryable, loop)


async def _first_run_outside(fn: Callable[..., Awaitable[T]], args: tuple[Any, ...],
                             retryable: Callable[[BaseException], bool], loop: Callable[[], AsyncRetrying]) -> T:
    """`fn(*args)` run once directly: tenacity's loop costs tens of µs a call even when nothing is retried
    (bench/README.md). A failure `retryable` accepts is replayed as the first attempt of `loop()`, made only then,
    which goes on as it would have from the start."""
    try:
        return await fn(*args)
    except Exception as exc:
        if not retryable(exc):
            raise
        failed: BaseException | None = exc

    async def again(*args: Any) -> T:
        nonlocal failed
        if failed is not None:
            first, failed = failed, None
            raise first
        return await fn(*args)

    return await loop()(again, *args)

__all__ = ["AsyncManagedTransaction", "Graph"]
