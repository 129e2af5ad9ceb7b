"""A real Redis for the tests: Debian's `redis-server` on a free loopback port, its files in a temp dir.

`make test` installs it when missing (`make redis`); a test needing it fails with that hint otherwise. With
`REDIS_URL` set, that server is used instead and nothing is started.
"""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.harness import Child, free_port, spawn

REDIS_SERVER = Path("/usr/bin/redis-server")


@dataclass
class RedisServer:
    url: str
    process: Child | None  # None: an external server (REDIS_URL)

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop(10)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(directory: Path, timeout: float = 10.0) -> RedisServer:
    """Start redis-server on a free port with no persistence, its log in `directory`; returns once it answers
    PING."""
    if not REDIS_SERVER.exists():
        raise RuntimeError(f"{REDIS_SERVER} is missing: run `make redis` (apt-get install redis-server)")
    port = free_port()
    process = spawn("redis-server", [
        str(REDIS_SERVER), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory), "--save", "",
        "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning",
    ], log=directory / "redis.log")
    try:
        process.wait_until(lambda: _answers(port), timeout, f"answering PING on port {port}", every=0.05)
    except BaseException:
        process.kill()
        raise
    return RedisServer(f"redis://127.0.0.1:{port}/0", process)


@contextlib.contextmanager
def running_redis() -> Iterator[RedisServer]:
    """REDIS_URL's server if set, else a fresh redis-server for the block."""
    external = os.environ.get("REDIS_URL")
    if external:
        yield RedisServer(external, None)
        return
    with tempfile.TemporaryDirectory(prefix="vaultgraph-redis-") as directory:
        redis = start_redis(Path(directory))
        try:
            yield redis
        finally:
            redis.stop()
