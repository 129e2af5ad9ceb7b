"""vaultgraph as real separate processes: API replicas (`vaultgraph serve --no-workers`) and workers
(`vaultgraph worker`), each a subprocess of the installed CLI with its own environment and log file.

Used by the scaling tests and bench/scaling.py. Every process gets the same data directory (the workspace is
shared, as on a shared volume), Neo4j, Redis and model endpoint; `base_env` builds that environment.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.support.harness import Child, free_port, http_ok, spawn

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


def _spawn(name: str, args: list[str], env: dict[str, str], logs: Path, url: str | None = None) -> Child:
    return spawn(name, [str(VAULTGRAPH), *args], log=logs / f"{name}.log", env=env, url=url)


def start_replica(name: str, env: dict[str, str], logs: Path) -> Child:
    """`vaultgraph serve --no-workers` on a free port, not waited for (see `wait_healthy`)."""
    port = free_port()
    return _spawn(name, ["serve", "--no-workers", "--port", str(port)], env, logs, url=f"http://127.0.0.1:{port}")


def wait_healthy(process: Child, timeout: float = STARTUP_TIMEOUT) -> None:
    """Until the replica's /healthz answers 200 (Neo4j up, migrations applied, lifespan started)."""
    process.wait_until(lambda: http_ok(f"{process.url}/healthz"), timeout, "healthy")


def start_worker(name: str, env: dict[str, str], logs: Path) -> Child:
    """`vaultgraph worker`, not waited for (see `wait_ready`), so several start at once."""
    return _spawn(name, ["worker"], env, logs)


def wait_ready(process: Child, timeout: float = STARTUP_TIMEOUT) -> None:
    """Until the worker logged that its pool runs (subscribed to Redis, first sweep under way)."""
    process.wait_until(lambda: READY_LINE in process.output(), timeout, "ready")
