"""vaultgraph as real separate processes: API replicas (`vaultgraph serve --no-workers`) and workers
(`vaultgraph worker`), each a subprocess of the installed CLI with its own environment and log file.

Used by the scaling tests and bench/scaling.py. Every process gets the same data directory (the workspace is
shared, as on a shared volume), Neo4j, Redis and model endpoint; `base_env` builds that environment.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.redis import free_port

VAULTGRAPH = Path(sys.executable).with_name("vaultgraph")
READY_LINE = "worker process ready"
STARTUP_TIMEOUT = 240.0  # a loaded 2-core machine takes a while to import the CLI in four processes at once


def base_env(*, neo4j_uri: str, redis_url: str, data_dir: Path, tenant: str, model_base_url: str,
             **extra: str) -> dict[str, str]:
    """The environment every process of one deployment shares (the current environment's VAULTGRAPH_*,
    NEO4J_*, OPENAI_* and REDIS_URL are replaced, not inherited)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VAULTGRAPH_", "NEO4J_", "OPENAI_", "REDIS_"))}
    env.update({
        "NEO4J_URI": neo4j_uri, "REDIS_URL": redis_url, "VAULTGRAPH_DATA_DIR": str(data_dir),
        "VAULTGRAPH_DEV_TENANT": tenant, "VAULTGRAPH_ENRICHMENT_TENANTS": json.dumps([tenant]),
        "OPENAI_BASE_URL": model_base_url, "OPENAI_API_KEY": "sk-test", "VAULTGRAPH_CHAT_MODEL": "test-chat",
        "VAULTGRAPH_EMBEDDING_MODEL": "test-embedding", "VAULTGRAPH_LOG_FORMAT": "json",
        "VAULTGRAPH_LOG_LEVEL": "INFO", "VAULTGRAPH_RATE_LIMIT_PER_SECOND": "0",
    })
    env.update(extra)
    return env


@dataclass
class Process:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    url: str | None = None  # an API replica's base URL

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL: a crash, nothing released."""
        if self.alive():
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait(10)

    def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM and wait: the process shuts down cleanly (workers give their leases back)."""
        if self.alive():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(10)
        return int(self.popen.returncode)


def _spawn(name: str, args: list[str], env: dict[str, str], logs: Path) -> Process:
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"{name}.log"
    with log.open("wb") as out:
        popen = subprocess.Popen([str(VAULTGRAPH), *args], env=env, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
    return Process(name, popen, log)


def start_replica(name: str, env: dict[str, str], logs: Path) -> Process:
    """`vaultgraph serve --no-workers` on a free port, not waited for (see `wait_healthy`)."""
    port = free_port()
    process = _spawn(name, ["serve", "--no-workers", "--port", str(port)], env, logs)
    process.url = f"http://127.0.0.1:{port}"
    return process


def wait_healthy(process: Process, timeout: float = STARTUP_TIMEOUT) -> None:
    """Until the replica's /healthz answers 200 (Neo4j up, migrations applied, lifespan started)."""
    deadline = time.monotonic() + timeout
    while True:
        if not process.alive():
            raise RuntimeError(f"{process.name} exited with {process.popen.returncode}:\n{process.output()[-3000:]}")
        try:
            if httpx.get(f"{process.url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{process.name} not healthy in {timeout:g} s:\n{process.output()[-3000:]}")
        time.sleep(0.1)


def start_worker(name: str, env: dict[str, str], logs: Path) -> Process:
    """`vaultgraph worker`, not waited for (see `wait_ready`), so several start at once."""
    return _spawn(name, ["worker"], env, logs)


def wait_ready(process: Process, timeout: float = STARTUP_TIMEOUT) -> None:
    """Until the worker logged that its pool runs (subscribed to Redis, first sweep under way)."""
    deadline = time.monotonic() + timeout
    while READY_LINE not in process.output():
        if not process.alive():
            raise RuntimeError(f"{process.name} exited with {process.popen.returncode}:\n{process.output()[-3000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{process.name} not ready in {timeout:g} s:\n{process.output()[-3000:]}")
        time.sleep(0.1)
