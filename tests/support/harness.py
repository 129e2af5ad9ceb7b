"""A child process of the tests or the benchmarks: started with its own environment and its output in a log file,
waited for until a probe answers (an HTTP URL, a TCP port, a line in the log), stopped with SIGTERM then SIGKILL.

One place for what the crash tests (tests/support/processes.py), the multi-process deployments
(tests/support/cluster.py), the test Redis (tests/support/redis.py) and the benchmarks (bench/processes.py) all
do. It imports nothing of vaultgraph, so bench/ may use it as freely as the tests. A wait that fails says which
process, why (it exited with its code, or did not answer within the deadline) and the last lines of its log.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

TAIL_LINES = 40  # of the log, in the error of a wait that failed


def free_port() -> int:
    """A loopback port nobody listens on now (the OS picks it; a child binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_answers(port: int) -> bool:
    """True once something accepts a TCP connection on the loopback port."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def http_ok(url: str, timeout: float = 2.0) -> bool:
    """True once a GET of the URL answers 200."""
    try:
        return httpx.get(url, timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class Child:
    """One started process. `error` is the exception a failed wait raises (AssertionError in a test's own
    process, RuntimeError in a deployment's, the bench's BenchError)."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    error: type[Exception] = RuntimeError
    url: str | None = None  # an HTTP server's base URL

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def tail(self, lines: int = TAIL_LINES) -> str:
        return "\n".join(self.output().splitlines()[-lines:])

    def wait_until(self, ready: Callable[[], bool], within: float, what: str, every: float = 0.1) -> None:
        """Until `ready()` is true; raises `error` with the log's tail if the process exits or `within` seconds
        pass first (`what` says what it was waited for: "healthy", "ready", "listening on port 8000")."""
        deadline = time.monotonic() + within
        while not ready():
            if not self.alive():
                raise self.error(f"{self.name} exited with {self.popen.returncode}:\n{self.tail()}")
            if time.monotonic() > deadline:
                raise self.error(f"{self.name} not {what} within {within:g} s:\n{self.tail()}")
            time.sleep(every)

    def kill(self) -> None:
        """SIGKILL: a crash, nothing released, connections cut mid-request."""
        if self.alive():
            self.popen.send_signal(signal.SIGKILL)
        self.popen.wait()

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM and wait `timeout` seconds for a clean shutdown, then SIGKILL; returns the exit code."""
        if self.alive():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return int(self.popen.returncode)


def spawn(name: str, argv: list[str], *, log: Path, env: Mapping[str, str] | None = None, cwd: Path | None = None,
          append: bool = False, error: type[Exception] = RuntimeError, url: str | None = None) -> Child:
    """Start `argv` with stdout and stderr into `log` (appended to, when a restart should keep the first run's),
    stdin closed; not waited for (see `Child.wait_until`), so several can start at once."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab" if append else "wb") as out:
        popen = subprocess.Popen(argv, cwd=cwd, env=None if env is None else dict(env), stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=subprocess.STDOUT)
    return Child(name, popen, log, error, url)
