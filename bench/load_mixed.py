"""`python -m bench.load_mixed`: a load run of mixed reads, searches and writes by many concurrent clients.

Starts its own Neo4j (vaultgraph's embedded default, data under bench/.data/load-mixed, wiped first) unless
--neo4j-uri is given, then the vaultgraph server (`python -m bench.server`) with API keys required, seeds one tenant
through the API (notes with [[wikilinks]] and #tags, documents), creates one API key per simulated client, and runs
locust headless (bench/load_mixed_users.py). It prints the error rate, p50/p95/p99 per request type and the
throughput, and writes them to bench/.data/load-mixed/last-run.json. A benchmark, not a test: it asserts nothing.

    .venv/bin/pip install -e '.[bench]'                      # locust (and gevent) live in the `bench` extra
    .venv/bin/python -m bench.load_mixed                     # 200 clients, 20 a second, 5 minutes
    .venv/bin/python -m bench.load_mixed -u 20 -t 30s --notes 100   # a quick check of the harness
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from bench.processes import DATA_DIR, REPO, BenchError, Proc, neo4j, vaultgraph_server
from tests.support.harness import free_port
from vaultgraph.graph.session import Graph
from vaultgraph.logs import configure_logging
from vaultgraph.services.auth import ApiKeyService

RUN_DIR = DATA_DIR / "load-mixed"
USERS_FILE = Path(__file__).resolve().parent / "load_mixed_users.py"
TENANT = "loadmixed"
WORDS = ["solar", "inverter", "battery", "storage", "cabin", "panel", "charge", "controller", "roof", "garden",
         "compost", "tomato", "harvest", "river", "bridge", "budget", "roadmap", "meeting", "review", "draft",
         "release", "vector", "index", "graph", "query", "search", "note", "link", "agent", "team", "wiki",
         "backlink", "summary", "embedding", "cluster", "shard", "replica", "latency", "cache", "queue",
         "worker"]


@contextlib.contextmanager
def own_neo4j(port: int) -> Iterator[str]:
    """A fresh Neo4j for this run only (its own data folder, so it never touches another bench's server)."""
    with neo4j(port, heap_mb=768, pagecache_mb=256, keep_data=False, data_dir=RUN_DIR) as (uri, _):
        yield uri


def keyed_server(neo4j_uri: str) -> contextlib.AbstractContextManager[tuple[str, Proc]]:
    """`python -m bench.server` on a free loopback port with API keys required and the default rate limit (50/s,
    burst 100) per key; its log in bench/.data/load-mixed/server.log (apart from the other benches' logs)."""
    return vaultgraph_server(neo4j_uri, {
        "VAULTGRAPH_DEV_MODE": "false",  # every client authenticates with its own key
        "VAULTGRAPH_RATE_LIMIT_PER_SECOND": "50", "VAULTGRAPH_RATE_LIMIT_BURST": "100",  # the defaults, per key
        "VAULTGRAPH_ENRICHMENT_WORKERS": "false",  # notes are embedded on save; nothing here needs enrichment
    }, data_dir=RUN_DIR, log=RUN_DIR / "server.log", timeout=600)


async def _post(client: httpx.AsyncClient, secret: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    for _ in range(20):
        response = await client.post("/graphql", json={"query": query, "variables": variables},
                                     headers={"Authorization": f"Bearer {secret}"})
        if response.status_code == 429:
            await asyncio.sleep(float(response.headers.get("retry-after", "1")))
            continue
        body: dict[str, Any] = response.json()
        if response.status_code != 200 or body.get("errors"):
            raise BenchError(f"seeding failed: {response.status_code} {response.text[:300]}")
        return body["data"]  # type: ignore[no-any-return]
    raise BenchError("seeding was rate limited twenty times in a row")


async def seed(url: str, neo4j_uri: str, notes: int, documents: int, users: int, rng: random.Random) -> dict[str, Any]:
    """One tenant through the API (the real write path), and one key per simulated client."""
    graph = Graph.connect(neo4j_uri, "neo4j", None)
    try:
        keys = ApiKeyService(graph)
        admin = (await keys.create(TENANT, all_scopes=True, name="load-mixed seeding")).secret
        client_keys = [(await keys.create(TENANT, all_scopes=True, name=f"load-mixed client {n}")).secret
                       for n in range(users)]
    finally:
        await graph.close()
    save = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }"
    create = "mutation($input: DocumentInput!) { createDocument(input: $input) { id } }"
    # Hubs first, one at a time; then the other notes, a few at once, each linking only to hubs, which exist by
    # then: concurrent saves whose [[links]] create and bind the same ghosts can fail today (a ghost deleted while
    # another save links to it; see the README's load section). The load's own writes save concurrently.
    hubs = max(1, notes // 5)
    gate = asyncio.Semaphore(4)
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        async def note(n: int) -> str:
            links = " ".join(f"[[Seed note {rng.randrange(hubs)}]]" for _ in range(4)) if n >= hubs else ""
            body = f"{' '.join(rng.choices(WORDS, k=40))}. {links} #{rng.choice(WORDS)} #seed"
            async with gate:
                data = await _post(client, admin, save, {"input": {"title": f"Seed note {n}", "body": body}})
            return str(data["saveNote"]["note"]["id"])

        async def document(n: int) -> str:
            content = f"# Document {n}\n\n{' '.join(rng.choices(WORDS, k=120))}\n"
            async with gate:
                data = await _post(client, admin, create, {"input": {"path": f"docs/d{n}.md", "content": content}})
            return str(data["createDocument"]["id"])

        note_ids = [await note(n) for n in range(hubs)]
        note_ids += await asyncio.gather(*(note(n) for n in range(hubs, notes)))
        await asyncio.gather(*(document(n) for n in range(documents)))
    return {"keys": client_keys, "notes": note_ids, "words": list(WORDS)}


def run_locust(url: str, seed_file: Path, users: int, spawn_rate: float, duration: str) -> Path:
    prefix = RUN_DIR / "locust"
    command = [sys.executable, "-m", "locust", "-f", str(USERS_FILE), "--headless", "-u", str(users),
               "-r", str(spawn_rate), "-t", duration, "--host", url, "--csv", str(prefix), "--only-summary",
               "--stop-timeout", "10", "--loglevel", "WARNING"]
    print("$", " ".join(command[1:]), flush=True)
    env = {**os.environ, "VAULTGRAPH_LOAD_SEED": str(seed_file)}
    subprocess.run(command, env=env, check=False, cwd=REPO)
    stats = Path(f"{prefix}_stats.csv")
    if not stats.exists():
        raise BenchError(f"locust wrote no {stats}; see its output above")
    return stats


def _ms(value: str) -> float | None:
    return None if value in ("", "N/A") else float(value)


def summarize(stats: Path) -> list[dict[str, Any]]:
    rows = []
    with stats.open() as handle:
        for row in csv.DictReader(handle):
            requests, failures = int(row["Request Count"]), int(row["Failure Count"])
            rows.append({
                "type": row["Name"] if row["Name"] != "Aggregated" else "all", "requests": requests,
                "failures": failures, "error_rate": failures / requests if requests else 0.0,
                "p50_ms": _ms(row["50%"]), "p95_ms": _ms(row["95%"]), "p99_ms": _ms(row["99%"]),
                "rps": float(row["Requests/s"]),
            })
    return rows


def render(rows: list[dict[str, Any]]) -> str:
    lines = ["| request | requests | errors | p50 ms | p95 ms | p99 ms | req/s |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['type']} | {r['requests']:,} | {r['error_rate']:.2%} | {r['p50_ms']:.0f} | "
                     f"{r['p95_ms']:.0f} | {r['p99_ms']:.0f} | {r['rps']:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load_mixed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-u", "--users", type=int, default=200, help="concurrent clients (default 200)")
    parser.add_argument("-r", "--spawn-rate", type=float, default=20, help="clients started a second (default 20)")
    parser.add_argument("-t", "--time", default="5m", help="run time, locust's format (default 5m)")
    parser.add_argument("--notes", type=int, default=100, help="notes seeded through the API (default 100)")
    parser.add_argument("--documents", type=int, default=20, help="documents seeded (default 20)")
    parser.add_argument("--neo4j-uri", help="use this Neo4j instead of starting one (nothing is wiped)")
    parser.add_argument("--neo4j-port", type=int, default=0, help="Bolt port of the run's own Neo4j (default: free)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    configure_logging("WARNING", "console")
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    try:
        with contextlib.ExitStack() as stack:
            uri = args.neo4j_uri or stack.enter_context(own_neo4j(args.neo4j_port or free_port()))
            url, proc = stack.enter_context(keyed_server(uri))
            started = time.monotonic()
            data = asyncio.run(seed(url, uri, args.notes, args.documents, args.users, random.Random(args.seed)))
            print(f"seeded {args.notes} notes and {args.documents} documents, {args.users} keys "
                  f"in {time.monotonic() - started:.0f}s", flush=True)
            seed_file = RUN_DIR / "seed.json"
            seed_file.write_text(json.dumps(data))
            cpu_before = proc.cpu_seconds()
            stats = run_locust(url, seed_file, args.users, args.spawn_rate, args.time)
            report(args, proc, proc.cpu_seconds() - cpu_before, summarize(stats))
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 1
    return 0


def report(args: argparse.Namespace, proc: Proc, cpu: float, rows: list[dict[str, Any]]) -> None:
    total = next(r for r in rows if r["type"] == "all")
    print()
    print(render(rows))
    print(f"\n{args.users} clients for {args.time}: {total['requests']:,} requests, error rate "
          f"{total['error_rate']:.2%}, {total['rps']:.1f} req/s; server CPU {cpu:.0f}s, "
          f"peak RSS {proc.peak_rss_mb() or 0:.0f} MB; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    (RUN_DIR / "last-run.json").write_text(json.dumps({
        "users": args.users, "spawn_rate": args.spawn_rate, "time": args.time, "notes": args.notes,
        "documents": args.documents, "server_cpu_seconds": cpu, "load_average": os.getloadavg()[0],
        "server_peak_rss_mb": proc.peak_rss_mb(),
        "rows": rows}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
