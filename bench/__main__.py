"""`python -m bench`: generate a vault, load it into a fresh Neo4j, serve it through vaultgraph and the peer, and
print p50 / p95 / throughput per workload with the ratios to the raw floor and to the peer, measured in one run.

    python -m bench                 # 10k notes
    python -m bench --large         # 100k notes
    python -m bench --notes 1000    # any size; a quick check of the harness
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
import uuid
from pathlib import Path

from bench.measure import Budget
from bench.processes import DATA_DIR, BenchError
from bench.report import render, write_json
from bench.run import Options, run

# --smoke: enough of everything to show that every workload still runs, in a minute or two.
SMOKE = {"notes": 200, "large": False, "warmup": 1, "iterations": 5, "max_seconds": 0.5, "concurrency": 2,
         "ingest_notes": 20, "ingest_seconds": 15.0, "ingest_bulk_notes": 50, "subscribers": "10", "events": 2,
         "search_queries": 5}


def parse(argv: list[str]) -> tuple[Options, Path]:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    size = parser.add_argument_group("data")
    size.add_argument("--notes", type=int, default=10_000, help="notes in the main tenant (default 10,000)")
    size.add_argument("--large", action="store_true", help="100,000 notes (overrides --notes)")
    size.add_argument("--other-share", type=float, default=0.2,
                      help="a second tenant this share of the size shares every index (default 0.2)")
    size.add_argument("--seed", type=int, default=7)
    timing = parser.add_argument_group("timing")
    timing.add_argument("--warmup", type=int, default=20, help="untimed calls per target first (default 20)")
    timing.add_argument("--iterations", type=int, default=200, help="latency samples per target (default 200)")
    timing.add_argument("--max-seconds", type=float, default=6.0,
                        help="time cap per target and phase; slow workloads take fewer samples (default 6)")
    timing.add_argument("--concurrency", type=int, default=4, help="clients of the throughput burst (default 4)")
    work = parser.add_argument_group("workloads")
    work.add_argument("--only", default="graph,search,ingest,fanout,metrics",
                      help="comma-separated groups to run: graph, search, ingest, fanout, metrics (/metrics on "
                           "against off) (default: all)")
    work.add_argument("--ingest-notes", type=int, default=500, help="notes to save through saveNote (default 500)")
    work.add_argument("--ingest-batch", type=int, default=10, help="saveNote fields per request (default 10)")
    work.add_argument("--ingest-concurrency", type=int, default=2, help="requests in flight (default 2)")
    work.add_argument("--ingest-seconds", type=float, default=60.0,
                      help="stop saving after this long (default 60)")
    # 1,000 by default: with the offline model embedding each batch the import runs at 5-20 notes/s on 2 cores,
    # so 5,000 would add minutes to every run.
    work.add_argument("--ingest-bulk-notes", type=int, default=1000,
                      help="notes of the vault the bulk path imports, twice (with and without embedding); "
                      "at most 5,000, the scan's file limit; 0 skips it (default 1,000)")
    work.add_argument("--search-queries", type=int, default=50, help="queries for recall@10 (default 50)")
    work.add_argument("--subscribers", default="500",
                      help="WebSocket subscribers; a comma-separated list gives one fan-out row per count, the curve "
                           "(default 500)")
    work.add_argument("--events", type=int, default=20, help="events published to them (default 20)")
    work.add_argument("--event-rate", type=float, default=2.0, help="events a second (default 2)")
    work.add_argument("--no-peer", action="store_true", help="skip @neo4j/graphql")
    infra = parser.add_argument_group("neo4j and output")
    infra.add_argument("--neo4j-port", type=int, default=7695, help="Bolt port of the bench's Neo4j (default 7695)")
    infra.add_argument("--neo4j-heap-mb", type=int, default=1024)
    infra.add_argument("--neo4j-pagecache-mb", type=int, default=1024)
    infra.add_argument("--keep-data", action="store_true",
                       help="do not wipe bench/.data/neo4j first (the load then adds a second copy: for debugging)")
    infra.add_argument("--neo4j-uri", help="use this Neo4j instead of starting one (nothing is wiped; tenants get a "
                       "unique suffix; no peak RSS for it)")
    infra.add_argument("--smoke", action="store_true",
                       help="a tiny run that checks the harness, not the speed (200 notes, a few calls each)")
    infra.add_argument("--profile", type=Path, metavar="DIR",
                       help="record the server with py-spy during each workload: one flame graph per row in DIR")
    infra.add_argument("--against", type=Path, metavar="TREE",
                       help="also run the graph rows against a server from another source tree (e.g. `git archive` "
                            "of the commit before), taking turns, in the floor column: a before/after in one run")
    infra.add_argument("--json", type=Path, default=DATA_DIR / "last-run.json", help="where to write the figures")
    args = parser.parse_args(argv)
    if args.smoke:
        for name, value in SMOKE.items():
            setattr(args, name, value)
    groups = {g.strip() for g in args.only.split(",") if g.strip()}
    unknown = groups - {"graph", "search", "ingest", "fanout", "metrics"}
    if unknown:
        parser.error(f"unknown groups in --only: {', '.join(sorted(unknown))}")
    return Options(
        notes=100_000 if args.large else args.notes, other_share=args.other_share, seed=args.seed,
        budget=Budget(warmup=args.warmup, iterations=args.iterations, max_seconds=args.max_seconds,
                      concurrency=args.concurrency),
        groups=frozenset(groups), ingest_notes=args.ingest_notes, ingest_batch=args.ingest_batch,
        ingest_concurrency=args.ingest_concurrency, ingest_seconds=args.ingest_seconds,
        ingest_bulk_notes=args.ingest_bulk_notes,
        search_queries=args.search_queries,
        subscribers=tuple(int(n) for n in str(args.subscribers).split(",")), events=args.events,
        event_rate=args.event_rate, peer=not args.no_peer,
        neo4j_port=args.neo4j_port, neo4j_heap_mb=args.neo4j_heap_mb, neo4j_pagecache_mb=args.neo4j_pagecache_mb,
        keep_data=args.keep_data, neo4j_uri=args.neo4j_uri, profile=args.profile,
        against=args.against.resolve() if args.against else None,
        tenant=f"bench-{uuid.uuid4().hex[:8]}" if args.neo4j_uri else "bench",
        command="python -m bench " + shlex.join(argv),
    ), args.json


def main(argv: list[str] | None = None) -> int:
    options, json_path = parse(sys.argv[1:] if argv is None else argv)
    try:
        report = asyncio.run(run(options))
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 1
    print()
    print(render(report))
    json_path.parent.mkdir(parents=True, exist_ok=True)
    write_json(report, json_path)
    print(f"figures written to {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
