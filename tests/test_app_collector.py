"""A serving process tunes the cyclic collector before it serves (app.tune_collector): with CPython's default, a
fan-out to many sockets ran full collections over every socket's objects in the middle of its events
(bench/README.md, fan-out)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# A fresh interpreter: the collector's settings are the process's, and this one must keep pytest's.
PROBE = """
import gc
from vaultgraph.app import COLLECTOR_THRESHOLDS, tune_collector
before = gc.get_freeze_count()
tune_collector()
print(gc.get_threshold() == COLLECTOR_THRESHOLDS, gc.get_freeze_count() > before, gc.isenabled())
"""


def test_tune_collector_raises_the_thresholds_and_freezes_what_was_built_before() -> None:
    run = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True", "True"]


def test_both_servers_tune_the_collector_before_serving() -> None:
    """`vaultgraph serve` and the bench's server (so the bench measures what is deployed)."""
    for path in ("vaultgraph/cli/serve.py", "bench/server.py"):
        source = (REPO / path).read_text()
        assert source.index("tune_collector()") < source.index("uvicorn.run("), path
