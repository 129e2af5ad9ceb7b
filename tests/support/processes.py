"""Real processes for crash tests: `vaultgraph serve` as a subprocess on a free loopback port, and a private
local Neo4j, each of which a test can SIGKILL and start again on the same data.

The in-process server of tests/support/server.py cannot be killed without killing the test; these can. The free
port, the spawn and the waits come from tests/support/harness.py; the Neo4j is the launcher `vaultgraph neo4j start`
uses (vaultgraph/neo4j_local), with its data under a directory the test chooses, so a restart finds the data.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.support.harness import Child, free_port, http_ok, spawn
from tests.support.openai_server import OpenAICompatibleServer
from tests.support.server import FRESH_CONNECTIONS
from vaultgraph.config import Settings
from vaultgraph.neo4j_local import server as local_neo4j

REPO = Path(__file__).resolve().parents[2]
_INHERITED_PREFIXES = ("VAULTGRAPH_", "NEO4J_", "OPENAI_")  # the test's own settings never leak into the child


def _vaultgraph_command() -> list[str]:
    """The installed `vaultgraph` script beside this interpreter, else the same entry point through -m."""
    script = Path(sys.executable).parent / "vaultgraph"
    return [str(script)] if script.exists() else [sys.executable, "-m", "vaultgraph.cli"]


@dataclass
class ServeProcess:
    """One `vaultgraph serve` child. `graphql()` posts with a short timeout: a hang is a failure, not a wait."""

    child: Child
    port: int
    client: httpx.AsyncClient = field(init=False)

    def __post_init__(self) -> None:
        # Generous: a loaded machine is slow; tests bound what must be prompt themselves.
        self.client = httpx.AsyncClient(base_url=self.url, timeout=120, limits=FRESH_CONNECTIONS)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.child.pid

    @property
    def log(self) -> Path:
        return self.child.log

    async def graphql(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        response = await self.client.post("/graphql", json={"query": query, "variables": variables or {}})
        assert response.status_code == 200, f"HTTP {response.status_code}: {response.text[:500]}"
        body: dict[str, Any] = response.json()
        return body

    async def data(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        body = await self.graphql(query, variables)
        assert "errors" not in body, body["errors"]
        data: dict[str, Any] = body["data"]
        return data

    async def health(self) -> tuple[int, dict[str, Any]]:
        response = await self.client.get("/healthz", timeout=10)
        return response.status_code, response.json()

    async def wait_healthy(self, within: float) -> None:
        """Until /healthz answers 200 (Neo4j up and migrated); fails with the log's tail if the child dies. In a
        thread, like the stop and the kill: the event loop (and a model server the test runs in it) goes on."""
        await asyncio.to_thread(self.child.wait_until, lambda: http_ok(f"{self.url}/healthz", timeout=10), within,
                                "healthy", 0.2)

    async def kill(self) -> None:
        """SIGKILL: no lifespan shutdown, no lease released, connections cut mid-request."""
        await asyncio.to_thread(self.child.kill)

    async def stop(self) -> None:
        """SIGTERM and wait (a clean shutdown), then close the HTTP client."""
        await asyncio.to_thread(self.child.stop, 30)
        await self.client.aclose()

    def log_tail(self, lines: int = 40) -> str:
        return self.child.tail(lines)


def model_env(model_server: OpenAICompatibleServer, lease_seconds: float = 3.0) -> dict[str, str]:
    """Chat and embeddings from the OpenAI-compatible test server; leases and sweeps short, so work a dead
    process held is resumed within seconds."""
    return {
        "OPENAI_BASE_URL": model_server.base_url, "OPENAI_API_KEY": "sk-test-not-a-secret",
        "VAULTGRAPH_CHAT_MODEL": "test-chat", "VAULTGRAPH_EMBEDDING_MODEL": "test-embed",
        "VAULTGRAPH_EMBEDDING_DIMENSIONS": str(model_server.embedding_dimensions),
        "VAULTGRAPH_MODEL_TIMEOUT": "300",  # a call a test holds must not time out and be asked again
        "VAULTGRAPH_ENRICHMENT_LEASE_SECONDS": str(lease_seconds), "VAULTGRAPH_ENRICHMENT_SWEEP_SECONDS": "1",
    }


def serve_env(neo4j_uri: str, data_dir: Path, tenant: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a development-mode server for one test tenant, its workers serving that tenant only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_INHERITED_PREFIXES)}
    env.update({
        "NEO4J_URI": neo4j_uri,
        "VAULTGRAPH_DATA_DIR": str(data_dir),
        "VAULTGRAPH_DEV_MODE": "true",
        "VAULTGRAPH_DEV_TENANT": tenant,
        "VAULTGRAPH_ENRICHMENT_TENANTS": f'["{tenant}"]',
        "VAULTGRAPH_RATE_LIMIT_PER_SECOND": "0",  # the test is one client writing as fast as it can
        # INFO shows every request and model call in the child's log, when a run needs looking into.
        "VAULTGRAPH_LOG_LEVEL": os.environ.get("VAULTGRAPH_TEST_SERVE_LOG_LEVEL", "WARNING"),
    })
    env.update(extra or {})
    return env


async def start_serve(env: Mapping[str, str], log: Path, *, healthy_within: float = 90.0,
                      wait_healthy: bool = True) -> ServeProcess:
    """`vaultgraph serve --port P` on a free loopback port, its output appended to `log`; returns once /healthz
    says ok (unless told not to wait, e.g. while Neo4j is down)."""
    port = free_port()
    child = spawn("vaultgraph serve", [*_vaultgraph_command(), "serve", "--host", "127.0.0.1", "--port", str(port)],
                  log=log, env=env, cwd=REPO, append=True, error=AssertionError)
    served = ServeProcess(child, port)
    try:
        if wait_healthy:
            await served.wait_healthy(healthy_within)
    except BaseException:
        await served.kill()
        await served.client.aclose()
        raise
    return served


@contextlib.asynccontextmanager
async def serving(env: Mapping[str, str], log: Path, **kwargs: Any) -> AsyncIterator[ServeProcess]:
    served = await start_serve(env, log, **kwargs)
    try:
        yield served
    finally:
        await served.stop()


@dataclass
class PrivateNeo4j:
    """A local Neo4j of the test's own (vaultgraph/neo4j_local), which it may SIGKILL and start on the same data."""

    settings: Settings

    @classmethod
    def at(cls, data_dir: Path, port: int) -> PrivateNeo4j:
        # Small memory: it holds one test's data on a machine shared with other test Neo4j servers.
        return cls(Settings(data_dir=data_dir, neo4j_bolt_port=port, neo4j_heap_mb=512, neo4j_pagecache_mb=128))

    @property
    def server(self) -> local_neo4j.LocalNeo4j:
        return local_neo4j.LocalNeo4j.from_settings(self.settings, short_lived=True)

    @property
    def uri(self) -> str:
        return self.settings.local_bolt_uri

    def pid(self) -> int | None:
        return self.server.pid()

    async def start(self) -> None:
        """Start it (blocking work in a thread); a server left running on this port and home is reused."""
        await asyncio.to_thread(local_neo4j.start, self.server, self.settings.java_home,
                                self.settings.neo4j_start_timeout)

    async def kill(self) -> None:
        """SIGKILL the JVM: no shutdown hook, no checkpoint; the next start recovers from the transaction log."""
        pid = self.pid()
        assert pid is not None, "the private Neo4j is not running"
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while self.server.bolt_answers() or _alive(pid):
            assert time.monotonic() < deadline, f"Neo4j pid {pid} still alive 30 s after SIGKILL"
            await asyncio.sleep(0.05)
        self.server.pid_file.unlink(missing_ok=True)

    async def stop(self) -> None:
        await asyncio.to_thread(local_neo4j.stop, self.server)


def _alive(pid: int) -> bool:
    """True while the process exists and is not a zombie (a zombie is reaped here when it is our child)."""
    with contextlib.suppress(ChildProcessError):
        reaped, _ = os.waitpid(pid, os.WNOHANG)
        if reaped == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class Clock:
    """Prints how long each step took (shown when a test fails: on a loaded machine, which step was slow)."""

    def __init__(self) -> None:
        self.start = self.last = time.monotonic()

    def lap(self, what: str) -> None:
        now = time.monotonic()
        print(f"{now - self.start:7.1f}s (+{now - self.last:5.1f}s) {what}")
        self.last = now
