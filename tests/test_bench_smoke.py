"""The benchmark suite at a tiny size, so that it cannot rot: every workload still runs and prints its row.

Benchmarks are not tests: nothing here looks at a time. It runs `python -m bench` as `make bench` does, against
the test Neo4j (`--neo4j-uri`: its own tenants, nothing wiped), with a couple of calls per workload. The peer
(@neo4j/graphql) joins when bench/peer/node_modules is installed (`make bench` installs it); `make test` does not
need it, and the bench then says the peer was skipped.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import neo4j

pytestmark = [pytest.mark.api, pytest.mark.graph, pytest.mark.timeout(420)]

REPO = Path(__file__).resolve().parents[1]

# Every workload of the suite, as its row in the table begins.
WORKLOADS = (
    "ingest: bulk UNWIND",
    "round trip: { __typename }",
    "backlinks page (first 50), ordinary note",
    "backlinks page (first 50), hub",
    "page of 100 notes with backlink counts",
    "property query (status = open, priority >= 5, by priority), first 100",
    "2-hop traverse (≤200 nodes), ordinary note",
    "2-hop graph view (cut at 200), hub",
    "search keyword, limit 10",
    "search vector, limit 10",
    "search hybrid, limit 10",
    "search graph, limit 10",
    "search hybrid at depth",  # its floor column is limit 10: not among COMPARED
    "search hybrid, new text each call",
    "vector recall@10",
    "ingest: saveNote",
    "ingest: vault import (bulk save, embedding deferred)",
    "ingest: vault import, graph only",
    "subscription fan-out",
    "metrics on ÷ off: round trip",
)
# Rows whose sides each answer objects, and must agree on how many.
COMPARED = WORKLOADS[2:12]

# Two samples a row and 100 notes: what runs is each workload's whole code path, not a measurement (about a fifth
# less time than three samples on 200 notes, measured warm: 19 s against 24 s).
TINY = ["--notes", "100", "--warmup", "1", "--iterations", "2", "--max-seconds", "0.15", "--concurrency", "1",
        "--ingest-notes", "5", "--ingest-batch", "5", "--ingest-concurrency", "1", "--ingest-seconds", "2",
        "--ingest-bulk-notes", "10", "--subscribers", "3", "--events", "2", "--event-rate", "8",
        "--search-queries", "2"]


def test_the_suite_runs_every_workload_at_a_tiny_size(neo4j_server: neo4j.TestNeo4j, tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    run = subprocess.run(
        [sys.executable, "-m", "bench", *TINY, "--neo4j-uri", neo4j_server.uri, "--json", str(figures)],
        cwd=REPO, capture_output=True, text=True, timeout=400,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    table = [line for line in run.stdout.splitlines() if line.startswith("| ")]  # not the |---| rule
    assert table[0].split("|")[1].strip() == "workload"
    printed = [line.split("|")[1].strip() for line in table[1:]]
    for workload in WORKLOADS:
        assert any(name.startswith(workload) for name in printed), (workload, printed)

    rows = {row["workload"]: row for row in json.loads(figures.read_text())["rows"]}
    failed = {name: row["vaultgraph"]["error"] for name, row in rows.items()
              if row.get("vaultgraph") and row["vaultgraph"]["error"] is not None}
    assert not failed, failed  # a workload that failed prints its row too, with the error in its note
    for workload in COMPARED:
        [row] = [row for name, row in rows.items() if name.startswith(workload)]
        vaultgraph, floor = row["vaultgraph"], row["floor"]
        assert vaultgraph["error"] is None and floor["error"] is None, row
        assert vaultgraph["samples"] > 0 and floor["samples"] > 0, row
        assert vaultgraph["objects"] == floor["objects"] > 0, row  # both sides answered the same objects


def test_the_execution_bench_runs_and_both_executors_agree() -> None:
    # bench/execution.py compares the two executors' answers before it times them; a disagreement fails the run.
    run = subprocess.run([sys.executable, "-m", "bench.execution", "--nodes", "5", "--rounds", "1", "--calls", "1"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    shapes = [line.split(" (")[0] for line in run.stdout.splitlines()]
    assert shapes == ["traversal", "backlinks page", "graph view"], run.stdout
