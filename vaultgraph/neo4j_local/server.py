"""Start, stop and inspect the local Neo4j process; data and logs live under the data directory."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import structlog

from vaultgraph.config import Settings
from vaultgraph.neo4j_local.java import find_java_home, find_maven

log = structlog.get_logger(__name__)

MODULE_DIR = Path(__file__).resolve().parent / "launcher"
LIB_DIR = MODULE_DIR / "target" / "lib"
CLASSES_DIR = MODULE_DIR / "target" / "classes"
LAUNCHER_CLASS = "vaultgraph.Launcher"

# Launchers this process started: kept so they are reaped on stop and not reported as leaked while running.
_children: dict[int, subprocess.Popen[bytes]] = {}


class Neo4jStartError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class LocalNeo4j:
    home: Path
    port: int
    heap_mb: int
    pagecache_mb: int
    short_lived: bool = False  # a server for one run of minutes (tests, a benchmark): see SHORT_LIVED_*

    @classmethod
    def from_settings(cls, settings: Settings, *, short_lived: bool = False) -> LocalNeo4j:
        return cls(settings.neo4j_home.resolve(), settings.neo4j_bolt_port, settings.neo4j_heap_mb,
                   settings.neo4j_pagecache_mb, short_lived)

    @property
    def pid_file(self) -> Path:
        return self.home / "neo4j.pid"

    @property
    def log_file(self) -> Path:
        return self.home / "logs" / "launcher.log"

    def pid(self) -> int | None:
        """The pid of our running launcher, or None (a stale pid file is removed)."""
        try:
            pid = int(self.pid_file.read_text().strip())
            os.kill(pid, 0)
        except (FileNotFoundError, ValueError, ProcessLookupError):
            self.pid_file.unlink(missing_ok=True)
            return None
        except PermissionError:
            return None
        return pid

    def bolt_answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1.0):
                return True
        except OSError:
            return False


# Settings of the local Neo4j beyond those the launcher sets, in neo4j.conf's format (written to its home at each
# start). `internal.cypher.use_parameter_size=false`: Neo4j keys its plan cache on each list and string parameter's
# size bucket (1, 2-10, 11-100, ...) as well as its type, so one statement is planned again, at up to seconds per
# plan, for every bucket of every parameter it takes (measured: an id list of 1, 2, 11, 101 and 1001 items gave
# five plans of one statement; with the setting off, one). Our statements seek by (tenantId, id) whatever the list
# size, so the size buys no better plan. An operator of a standalone Neo4j may set the same in its neo4j.conf.
NEO4J_SETTINGS = {"internal.cypher.use_parameter_size": "false"}

# A Neo4j that lives for minutes (a test run) spends most of its CPU compiling itself and replanning: measured on a
# fresh server under tests/services + tests/resolvers/test_notes_api.py, the JIT's compile time was over half the
# JVM's CPU, and Cypher replans each statement as the statistics of a database growing from empty diverge. C1
# alone (no C2 tier) compiles cheaply enough for such a run, and plans are kept; a long-running server wants both.
SHORT_LIVED_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1",)
SHORT_LIVED_SETTINGS = {"dbms.cypher.min_replan_interval": "1h", "dbms.cypher.statistics_divergence_threshold": "1.0"}


def write_settings(server: LocalNeo4j) -> Path:
    target = server.home / "vaultgraph-neo4j.conf"
    target.parent.mkdir(parents=True, exist_ok=True)
    settings = {**NEO4J_SETTINGS, **(SHORT_LIVED_SETTINGS if server.short_lived else {})}
    target.write_text("".join(f"{key}={value}\n" for key, value in settings.items()))
    return target


def build_launcher(java_home: Path) -> None:
    """Fetch the Neo4j jars and compile the launcher once; later calls find them and return at once."""
    source = MODULE_DIR / "src" / "main" / "java" / "vaultgraph" / "Launcher.java"
    stamp = CLASSES_DIR / "vaultgraph" / "Launcher.class"
    pom = MODULE_DIR / "pom.xml"
    if stamp.exists() and LIB_DIR.is_dir() and stamp.stat().st_mtime >= max(source.stat().st_mtime,
                                                                             pom.stat().st_mtime):
        return
    log.info("building the local Neo4j launcher (first run downloads about 150 MB of jars)")
    env = {**os.environ, "JAVA_HOME": str(java_home)}
    result = subprocess.run([find_maven(), "-B", "-q", "package", "-DskipTests"], cwd=MODULE_DIR, env=env,
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-30:])
        raise Neo4jStartError(f"Maven could not build the Neo4j launcher in {MODULE_DIR}:\n{tail}")


def start(server: LocalNeo4j, java_home_setting: Path | None, timeout: float) -> bool:
    """Start the local Neo4j unless it already runs; returns True when this call started it."""
    if server.pid() is not None and server.bolt_answers():
        return False
    if server.bolt_answers():
        raise Neo4jStartError(
            f"port {server.port} already answers but not as our Neo4j; stop that process, set "
            "VAULTGRAPH_NEO4J_BOLT_PORT to a free port, or point NEO4J_URI at it"
        )
    java_home = find_java_home(java_home_setting, os.environ.get("JAVA_HOME"))
    build_launcher(java_home)
    server.log_file.parent.mkdir(parents=True, exist_ok=True)
    command = [
        str(java_home / "bin" / "java"), f"-Xms{server.heap_mb}m", f"-Xmx{server.heap_mb}m",
        "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", *(SHORT_LIVED_JVM_OPTIONS if server.short_lived else ()),
        "--enable-native-access=ALL-UNNAMED",
        "-cp", f"{CLASSES_DIR}{os.pathsep}{LIB_DIR}/*", LAUNCHER_CLASS,
        str(server.home), str(server.port), str(server.pagecache_mb), str(write_settings(server)),
    ]
    with server.log_file.open("ab") as log_handle:
        process = subprocess.Popen(command, stdout=log_handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    server.pid_file.write_text(str(process.pid))
    _children[process.pid] = process
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if process.poll() is not None:
            server.pid_file.unlink(missing_ok=True)
            _children.pop(process.pid, None)
            raise Neo4jStartError(f"Neo4j exited with code {process.returncode}; last lines of "
                                  f"{server.log_file}:\n{_tail(server.log_file)}")
        if server.bolt_answers():
            log.info("local neo4j ready", bolt=f"bolt://127.0.0.1:{server.port}", pid=process.pid,
                     seconds=round(time.monotonic() - started, 1))
            return True
        time.sleep(0.25)
    stop(server)
    raise Neo4jStartError(f"Neo4j did not open Bolt within {timeout:.0f}s; see {server.log_file}")


def stop(server: LocalNeo4j, timeout: float = 60.0) -> bool:
    """Ask Neo4j to shut down cleanly (SIGTERM runs its shutdown hook); returns False when it was not running."""
    pid = server.pid()
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        _reap(pid)
        time.sleep(0.2)
    else:
        log.warning("neo4j did not stop in time; killing it", pid=pid)
        os.kill(pid, signal.SIGKILL)
    server.pid_file.unlink(missing_ok=True)
    return True


def _reap(pid: int) -> None:
    """Collect the exit status when the launcher is our own child, so it does not linger as a zombie."""
    child = _children.get(pid)
    if child is not None and child.poll() is not None:
        del _children[pid]


def _tail(path: Path, lines: int = 25) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"
