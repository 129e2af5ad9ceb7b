"""The driver and the two ways to run work: `read()` and `write()` through managed transactions.

Managed transactions retry transient errors, so every transaction function must be idempotent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable, SessionExpired

from vaultgraph.errors import Unavailable

T = TypeVar("T")

MAX_RETRY_SECONDS = 2.0
ENTITY_GONE = "Neo.ClientError.Statement.EntityNotFound"
ENTITY_GONE_RETRIES = 3


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
        return await self._run(neo4j.READ_ACCESS, fn, *args, **kwargs)

    async def write(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        return await self._run(neo4j.WRITE_ACCESS, fn, *args, **kwargs)

    async def _run(self, mode: str, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        if self.down_reason is not None:
            # The reason (addresses, driver text) is for /healthz and the log, not for every client.
            raise Unavailable("Neo4j is not available right now; check /healthz and try again.")
        self.transactions += 1
        try:
            for attempt in range(ENTITY_GONE_RETRIES + 1):
                try:
                    async with self.driver.session(database=self.database, default_access_mode=mode,
                                                   bookmark_manager=self.bookmarks) as session:
                        if mode == neo4j.READ_ACCESS:
                            return await session.execute_read(fn, *args, **kwargs)
                        return await session.execute_write(fn, *args, **kwargs)
                except Neo4jError as exc:
                    # A node matched by this transaction was deleted by another one before this one could lock
                    # it (e.g. a ghost whose last link went away): a race the driver does not retry, we do.
                    if exc.code != ENTITY_GONE or attempt == ENTITY_GONE_RETRIES:
                        raise
            raise AssertionError("unreachable")  # the loop returns or raises
        except (ServiceUnavailable, SessionExpired) as exc:
            self.unreachable.set()
            raise Unavailable("Neo4j is not reachable right now; check /healthz and try again.") from exc
        except AuthError as exc:
            raise Unavailable("Neo4j refused vaultgraph's credentials; check NEO4J_USER/NEO4J_PASSWORD.") from exc

    async def close(self) -> None:
        await self.driver.close()


__all__ = ["AsyncManagedTransaction", "Graph"]
