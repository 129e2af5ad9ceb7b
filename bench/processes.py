"""The processes a run owns — its Neo4j, the vaultgraph server, the peer — and what /proc says about them.

Each runs apart from the bench, so its peak RSS (VmHWM) and CPU time are its own. Logs go to bench/.data/logs.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.harness import free_port, port_answers, spawn
from vaultgraph.config import Settings
from vaultgraph.neo4j_local import server as local_neo4j

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
DATA_DIR = BENCH_DIR / ".data"
LOG_DIR = DATA_DIR / "logs"
DEFAULT_NEO4J_PORT = 7695  # its data lives in DATA_DIR/neo4j; any other port's in DATA_DIR/port-N/neo4j
PEER_DIR = BENCH_DIR / "peer"
TICKS = os.sysconf("SC_CLK_TCK")


class BenchError(RuntimeError):
    """Something the run needs is missing or failed to start; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Proc:
    """A process the run measures."""

    name: str
    pid: int

    def peak_rss_mb(self) -> float | None:
        """VmHWM: the most resident memory the process ever had."""
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except FileNotFoundError:
            return None
        return None

    def cpu_seconds(self) -> float:
        """User + system CPU time so far (threads included)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS


@contextlib.contextmanager
def neo4j(port: int, heap_mb: int, pagecache_mb: int, keep_data: bool,
          data_dir: Path = DATA_DIR) -> Iterator[tuple[str, Proc]]:
    """The bench's own Neo4j under `data_dir`/neo4j (wiped first unless keep_data), stopped afterwards."""
    settings = Settings(data_dir=data_dir, neo4j_bolt_port=port, neo4j_heap_mb=heap_mb,
                        neo4j_pagecache_mb=pagecache_mb)
    server = local_neo4j.LocalNeo4j.from_settings(settings)
    if server.pid() is not None:  # left over from an interrupted run: ours, so stop it before touching its data
        local_neo4j.stop(server)
    if not keep_data and server.home.exists():
        shutil.rmtree(server.home)
    local_neo4j.start(server, settings.java_home, settings.neo4j_start_timeout)
    pid = server.pid()
    if pid is None:
        raise BenchError(f"Neo4j started but wrote no pid file under {server.home}")
    try:
        yield settings.local_bolt_uri, Proc("neo4j", pid)
    finally:
        local_neo4j.stop(server)


@contextlib.contextmanager
def vaultgraph_server(neo4j_uri: str, extra_env: dict[str, str], data_dir: Path = DATA_DIR,
                      log: Path = LOG_DIR / "vaultgraph-server.log",
                      timeout: float = 120, cwd: Path = REPO) -> Iterator[tuple[str, Proc]]:
    """`python -m bench.server` (uvicorn + create_app) on a free loopback port, in development mode unless
    `extra_env` says otherwise (it overrides every default below)."""
    port = free_port()
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_uri,
        "VAULTGRAPH_HOST": "127.0.0.1",
        "VAULTGRAPH_PORT": str(port),
        "VAULTGRAPH_DATA_DIR": str(data_dir / "server"),
        "VAULTGRAPH_DEV_MODE": "true",  # loopback only; the tenant comes from X-Vaultgraph-Tenant
        "VAULTGRAPH_RATE_LIMIT_PER_SECOND": "0",  # a benchmark is one client asking as fast as it can
        "VAULTGRAPH_ENRICHMENT_WORKERS": "false",  # nothing to enrich; fan-out events come from reenrich
        "VAULTGRAPH_LOG_LEVEL": "WARNING",
        # The bulk-import row writes its generated vault under the system's temporary folder (ingest.run_bulk).
        "VAULTGRAPH_VAULT_DIRS": json.dumps([tempfile.gettempdir()]),
        # The stored vectors are synthetic (bench/generate.py), not the server's model's: a floor read off that
        # model's background would drop every hit, and the vector row would compare no work with the floor's.
        "VAULTGRAPH_SEARCH_SIMILARITY_FLOOR": "false",
        **extra_env,
    }
    process = spawn(log.stem, [sys.executable, "-m", "bench.server"], log=log, env=env, cwd=cwd, error=BenchError)
    try:
        process.wait_until(lambda: port_answers(port), timeout, f"listening on port {port}")
        yield f"http://127.0.0.1:{port}", Proc("vaultgraph", process.pid)
    finally:
        process.stop(20)


def peer_available() -> str | None:
    """None when the peer can run, else why not."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (PEER_DIR / "node_modules" / "@neo4j" / "graphql").is_dir():
        return "bench/peer/node_modules is missing: run `npm ci` in bench/peer (make bench does)"
    return None


@contextlib.contextmanager
def peer_server(neo4j_uri: str) -> Iterator[tuple[str, Proc]]:
    """bench/peer/server.mjs: @neo4j/graphql under Apollo Server, over the same Neo4j."""
    port = free_port()
    env = {**os.environ, "NEO4J_URI": neo4j_uri, "PEER_PORT": str(port), "NODE_ENV": "production"}
    process = spawn("peer-server", [shutil.which("node") or "node", "server.mjs"], log=LOG_DIR / "peer-server.log",
                    env=env, cwd=PEER_DIR, error=BenchError)
    try:
        process.wait_until(lambda: port_answers(port), 60, f"listening on port {port}")
        yield f"http://127.0.0.1:{port}", Proc("peer", process.pid)
    finally:
        process.stop(20)
