"""The test suite's Neo4j: the external one in NEO4J_URI, else the project's own local server on a test port."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from vaultgraph.config import Settings
from vaultgraph.graph.session import Graph
from vaultgraph.neo4j_local import server as local_neo4j

# Set by the xdist controller for its workers: the URI of the Neo4j it started or found (the workers reuse it).
SHARED_NEO4J_ENV = "VAULTGRAPH_TEST_SHARED_NEO4J_URI"


@dataclass
class TestNeo4j:
    uri: str
    version: str
    owned: bool
    local: local_neo4j.LocalNeo4j | None = None

    def close(self) -> None:
        # Keep a local server running between runs when asked (faster iteration); CI always stops it.
        if self.owned and self.local is not None and not os.environ.get("VAULTGRAPH_TEST_KEEP_NEO4J"):
            local_neo4j.stop(self.local)


async def _version(uri: str, user: str, password: str | None) -> str:
    graph = Graph.connect(uri, user, password)
    try:
        return await graph.verify()
    finally:
        await graph.close()


def start_test_neo4j(repo: Path) -> TestNeo4j:
    """The external server of NEO4J_URI, else the one the xdist controller started (SHARED_NEO4J_ENV), else a
    local one started here."""
    uri = os.environ.get("NEO4J_URI") or os.environ.get(SHARED_NEO4J_ENV)
    user = os.environ.get("NEO4J_USER", "neo4j")
    password = os.environ.get("NEO4J_PASSWORD")
    if uri:
        return TestNeo4j(uri, asyncio.run(_version(uri, user, password)), owned=False)
    port = int(os.environ.get("VAULTGRAPH_TEST_NEO4J_PORT", "7688"))
    settings = Settings(
        # One data folder per port: runs on different ports (parallel work, CI beside a dev run) never collide.
        data_dir=repo / ".vaultgraph-test" / str(port), neo4j_bolt_port=port, neo4j_heap_mb=1024, neo4j_pagecache_mb=512
    )
    local = local_neo4j.LocalNeo4j.from_settings(settings, short_lived=True)
    owned = local_neo4j.start(local, settings.java_home, settings.neo4j_start_timeout)
    uri = settings.local_bolt_uri
    return TestNeo4j(
        uri, asyncio.run(_version(uri, "neo4j", None)), owned=owned or local.pid() is not None, local=local
    )
