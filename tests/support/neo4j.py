"""The test suite's Neo4j: the external one in NEO4J_URI, else the project's own local server on a test port."""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vaultgraph.config import Settings
from vaultgraph.graph.session import Graph
from vaultgraph.neo4j_local import server as local_neo4j

# Set by the xdist controller for its workers: the URI of the Neo4j it started or found (the workers reuse it).
SHARED_NEO4J_ENV = "VAULTGRAPH_TEST_SHARED_NEO4J_URI"
# Set beside it when the controller starts that Neo4j while the workers start and collect: a file that says "ready"
# once the server answers and is migrated, or why it could not be started; a worker waits for it before its tests.
SHARED_NEO4J_STATE_ENV = "VAULTGRAPH_TEST_SHARED_NEO4J_STATE"
# The server's own start timeout, then the migrations (about 7 s on a fresh server; a loaded machine takes longer).
MIGRATIONS_SECONDS = 120


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


def _local_settings(repo: Path) -> Settings:
    port = int(os.environ.get("VAULTGRAPH_TEST_NEO4J_PORT", "7688"))
    return Settings(
        # One data folder per port: runs on different ports (parallel work, CI beside a dev run) never collide.
        data_dir=repo / ".vaultgraph-test" / str(port), neo4j_bolt_port=port, neo4j_heap_mb=1024, neo4j_pagecache_mb=512
    )


def start_test_neo4j(repo: Path) -> TestNeo4j:
    """The one the xdist controller started or found (SHARED_NEO4J_ENV, once its state file says it is ready),
    else the external server of NEO4J_URI, else a local one started here."""
    shared = os.environ.get(SHARED_NEO4J_ENV)
    if not shared:
        return _start_or_find(repo)
    state = os.environ.get(SHARED_NEO4J_STATE_ENV)
    if state:
        _wait_until_ready(Path(state), _local_settings(repo).neo4j_start_timeout + MIGRATIONS_SECONDS)
    user, password = os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD")
    return TestNeo4j(shared, asyncio.run(_version(shared, user, password)), owned=False)


def _start_or_find(repo: Path) -> TestNeo4j:
    external = os.environ.get("NEO4J_URI")
    if external:
        user, password = os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD")
        return TestNeo4j(external, asyncio.run(_version(external, user, password)), owned=False)
    settings = _local_settings(repo)
    local = local_neo4j.LocalNeo4j.from_settings(settings, short_lived=True)
    owned = local_neo4j.start(local, settings.java_home, settings.neo4j_start_timeout)
    uri = settings.local_bolt_uri
    return TestNeo4j(
        uri, asyncio.run(_version(uri, "neo4j", None)), owned=owned or local.pid() is not None, local=local
    )


def _wait_until_ready(state: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not state.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the suite's Neo4j was not ready within {timeout:.0f}s (nothing in {state})")
        time.sleep(0.1)  # a file another process writes: polled, with the deadline above
    said = state.read_text()
    if said != "ready":
        raise RuntimeError(f"the suite's Neo4j could not be started: {said}")


class BackgroundNeo4j:
    """The xdist controller's Neo4j, started and migrated (`prepare`) on a thread, so that its start overlaps the
    workers' start-up and collection (about 10 s each, on 2 cores) instead of coming before it. `environment()` is
    what the workers need to find it and wait for it."""

    def __init__(self, repo: Path, prepare: Callable[[str], None]) -> None:
        self.external = os.environ.get("NEO4J_URI")
        self.uri = self.external or _local_settings(repo).local_bolt_uri
        self._repo, self._prepare = repo, prepare
        self._state = Path(tempfile.mkdtemp(prefix="vaultgraph-test-neo4j-")) / "state"
        self._neo4j: TestNeo4j | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._start, name="test-neo4j-start", daemon=True)
        self._thread.start()

    def environment(self) -> dict[str, str]:
        return {SHARED_NEO4J_ENV: self.uri, SHARED_NEO4J_STATE_ENV: str(self._state)}

    def _start(self) -> None:
        try:
            self._neo4j = _start_or_find(self._repo)
            self._prepare(self._neo4j.uri)
            said = "ready"
        except BaseException as exc:  # told to every worker through the state file, and raised by result()
            self._error = exc
            said = f"{exc.__class__.__name__}: {exc}"
        written = self._state.with_suffix(".tmp")
        written.write_text(said)
        written.replace(self._state)  # whole or not at all: a worker never reads half of it

    def result(self) -> TestNeo4j:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._neo4j is not None
        return self._neo4j

    def close(self) -> None:
        self._thread.join()
        if self._neo4j is not None:
            self._neo4j.close()
        self._state.unlink(missing_ok=True)
        self._state.parent.rmdir()
