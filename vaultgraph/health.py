"""Keeps track of whether Neo4j answers, and brings the schema up to date whenever it comes (back) up."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

import structlog

from vaultgraph.errors import Unavailable
from vaultgraph.graph.migrations import apply_migrations
from vaultgraph.graph.session import Graph

log = structlog.get_logger(__name__)


@dataclass
class Neo4jHealth:
    state: str = "starting"  # starting | up | down
    version: str | None = None
    error: str | None = None


class Neo4jMonitor:
    """Owned by the lifespan: `check()` once at start, then `watch()` as a task until shutdown."""

    def __init__(self, graph: Graph, uri: str, embedding_dimensions: int, interval: float = 5.0) -> None:
        self.graph = graph
        self.uri = uri
        self.embedding_dimensions = embedding_dimensions
        self.interval = interval
        self.health = Neo4jHealth()
        self._migrated = False

    async def check(self) -> bool:
        try:
            version = await self.graph.verify()
            self.graph.down_reason = None  # it answers: let the migrations (and requests) through again
            if not self._migrated:
                await apply_migrations(self.graph, self.embedding_dimensions)
                self._migrated = True
        except Unavailable as exc:
            if self.health.state != "down":
                # One clear line, not a stack trace: what was tried and what to set.
                log.error("neo4j unavailable", uri=self.uri, reason=exc.message,
                          hint="start it with `vaultgraph neo4j start`, or set NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD")
            self.health = Neo4jHealth("down", None, exc.message)
            self.graph.down_reason = exc.message
            return False
        if self.health.state != "up":
            log.info("neo4j ready", uri=self.uri, version=version)
        self.health = Neo4jHealth("up", version, None)
        self.graph.down_reason = None
        return True

    async def watch(self) -> None:
        while True:
            # A request that could not reach Neo4j wakes the check early, so the next requests fail at once.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.graph.unreachable.wait(),
                                       self.interval if self.health.state == "up" else 2.0)
            self.graph.unreachable.clear()
            await self.check()
