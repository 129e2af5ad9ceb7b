"""One run, start to end: data, Neo4j, load, servers, workloads, peak memory, the report."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import time
from dataclasses import dataclass
from pathlib import Path

from bench import fanout, ingest, profiles, search
from bench.client import GraphQLClient
from bench.generate import Dataset, generate, pick_seeds, verify
from bench.load import bulk_load, prepare_schema
from bench.measure import Budget, Stats, Target, compare
from bench.processes import (
    DATA_DIR,
    DEFAULT_NEO4J_PORT,
    LOG_DIR,
    BenchError,
    Proc,
    neo4j,
    peer_available,
    peer_server,
    vaultgraph_server,
)
from bench.report import Report, Row, machine
from bench.targets import Endpoint, Floor
from bench.workloads import Sides, graph_workloads
from vaultgraph.graph.session import Graph

PROBE = """
{ __schema {
    queryType { fields { name } }
    mutationType { fields { name } }
    subscriptionType { fields { name } }
} }"""


@dataclass(frozen=True)
class Options:
    notes: int
    other_share: float
    seed: int
    budget: Budget
    groups: frozenset[str]
    ingest_notes: int
    ingest_batch: int
    ingest_concurrency: int
    ingest_seconds: float
    ingest_bulk_notes: int
    search_queries: int
    subscribers: tuple[int, ...]  # one fan-out row per count: the curve
    events: int
    event_rate: float
    peer: bool
    neo4j_port: int
    neo4j_heap_mb: int
    neo4j_pagecache_mb: int
    keep_data: bool
    neo4j_uri: str | None  # an existing Neo4j: nothing is started or wiped, tenants get a unique suffix
    profile: Path | None  # py-spy flame graphs of the server, one per row (bench/profiles.py)
    against: Path | None  # another source tree: its server beside this one, row by row (before/after)
    tenant: str
    command: str


async def api_fields(url: str) -> set[str]:
    """`Type.field` for every root field the running server offers (search and enrichment may not exist yet)."""
    client = GraphQLClient(url)
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                data = (await client.execute(PROBE))["__schema"]
                break
            except (OSError, RuntimeError):
                if time.monotonic() > deadline:
                    raise
                await client.close()
                await asyncio.sleep(0.5)
    finally:
        await client.close()
    fields = set()
    for root, key in (("Query", "queryType"), ("Mutation", "mutationType"), ("Subscription", "subscriptionType")):
        for field in (data.get(key) or {}).get("fields") or ():
            fields.add(f"{root}.{field['name']}")
    return fields


def _generate(options: Options, report: Report) -> tuple[Dataset, Dataset]:
    started = time.perf_counter()
    dataset = generate(options.tenant, options.notes, options.seed)
    other = generate(f"{options.tenant}-other", max(10, int(options.notes * options.other_share)), options.seed + 100)
    verify(dataset)
    report.facts["data"] = (
        f"{len(dataset.notes):,} notes and {len(dataset.links):,} wikilinks in tenant `{dataset.tenant}` "
        f"(+{len(other.notes):,} notes in `{other.tenant}` sharing every index); hub in-degree "
        f"{int(dataset.in_degree.max()):,}, median {int(sorted(dataset.in_degree)[len(dataset.notes) // 2])}; "
        f"generated in {time.perf_counter() - started:.1f} s")
    return dataset, other


def _memory(report: Report, procs: list[Proc]) -> None:
    peaks = []
    for proc in procs:
        peak = proc.peak_rss_mb()
        peaks.append(f"{proc.name} {peak:,.0f} MB" if peak is not None else f"{proc.name} —")
    report.facts["peak RSS"] = ", ".join(peaks)


async def run(options: Options) -> Report:
    report = Report(command=options.command, facts=machine())
    print(f"generating {options.notes:,} notes …", flush=True)
    dataset, other = _generate(options, report)
    seeds = pick_seeds(dataset)
    with contextlib.ExitStack() as stack:
        procs: list[Proc] = []
        if options.neo4j_uri is None:
            print(f"starting Neo4j on port {options.neo4j_port} …", flush=True)
            uri, neo4j_proc = stack.enter_context(
                neo4j(options.neo4j_port, options.neo4j_heap_mb, options.neo4j_pagecache_mb, options.keep_data,
                      # another port is another engineer's run: its own data folder, never wiped by this one
                      DATA_DIR if options.neo4j_port == DEFAULT_NEO4J_PORT
                      else DATA_DIR / f"port-{options.neo4j_port}"))
            procs.append(neo4j_proc)
        else:
            uri = options.neo4j_uri
            report.skipped["Neo4j's peak RSS"] = f"an existing Neo4j ({uri}) was used"
        graph = Graph.connect(uri, "neo4j", None)
        try:
            await prepare_schema(graph)
            print("bulk load …", flush=True)
            loaded = await bulk_load(graph, dataset)
            await bulk_load(graph, other)
            report.add(Row("ingest: bulk UNWIND, all indexes live", Stats(ops_per_second=loaded.notes_per_second,
                                                                         objects=loaded.notes),
                           unit="notes/s", note=f"{loaded.links:,} links and 384-d vectors in {loaded.seconds:.1f} s"))
            print("starting vaultgraph and the peer …", flush=True)
            url, server_proc = stack.enter_context(vaultgraph_server(uri, {}))
            procs.insert(0, server_proc)
            peer: Endpoint | None = None
            why_not = peer_available() if options.peer else "--no-peer"
            if why_not is None:
                peer_url, peer_proc = stack.enter_context(peer_server(uri))
                peer = Endpoint("peer", peer_url)
                procs.append(peer_proc)
            else:
                report.skipped["peer (@neo4j/graphql)"] = why_not
            fields = await api_fields(url)
            sides = Sides(vaultgraph=Endpoint("vaultgraph", url, {"X-Vaultgraph-Tenant": dataset.tenant}),
                          floor=Floor(graph, dataset.tenant), peer=peer, dataset=dataset, seeds=seeds)
            await _workloads(options, report, sides, fields, url, server_proc, uri)
            report.skipped.update(sides.skipped)
            await sides.vaultgraph.close()
            if peer is not None:
                await peer.close()
            _memory(report, procs)
        finally:
            await graph.close()
    return report


METRICS_ROWS = 3  # round trip, backlinks of an ordinary note, of the hub: the fixed cost and a real read


async def _side_by_side(options: Options, report: Report, sides: Sides, this_proc: Proc,
                        server: contextlib.AbstractContextManager[tuple[str, Proc]], label: str, note: str,
                        rows: int | None = None) -> None:
    """The graph rows against a second vaultgraph server, taking turns in one run (on a noisy machine the only
    fair before/after); the second server sits in the floor column, so ×floor is this one ÷ that one."""
    with server as (other_url, other_proc):
        other = Endpoint("other", other_url, sides.vaultgraph.headers)
        mine = graph_workloads(sides)[:rows]
        theirs = graph_workloads(dataclasses.replace(sides, vaultgraph=other))[:rows]
        for workload, counterpart in zip(mine, theirs, strict=True):
            (this, these), (that, those) = _counted(workload.targets[0]), _counted(counterpart.targets[0])
            cpu = (this_proc.cpu_seconds(), other_proc.cpu_seconds())
            stats = await compare([this, dataclasses.replace(that, name="floor")], options.budget)
            # Server CPU per request: far steadier than latency on a loaded machine (waiting for a core is not
            # in it); each server idles while the other answers, so its CPU over the row is its own requests'.
            per_call = ((this_proc.cpu_seconds() - cpu[0]) / max(1, these[0]),
                        (other_proc.cpu_seconds() - cpu[1]) / max(1, those[0]))
            report.add(Row(f"{label}: {workload.name.split(' (floor')[0]}", stats.get("vaultgraph"),
                           stats.get("floor"), per_object=workload.per_object,
                           note=f"{note}; server CPU per request {per_call[0] * 1e3:.2f} ms ÷ "
                                f"{per_call[1] * 1e3:.2f} ms = {per_call[0] / max(per_call[1], 1e-9):.2f}×"))
        await other.close()


def _counted(target: Target) -> tuple[Target, list[int]]:
    """The target, counting its calls in the list's one item."""
    calls = [0]

    async def call(worker: int, i: int) -> int:
        calls[0] += 1
        return await target.call(worker, i)

    return dataclasses.replace(target, call=call), calls


async def _metrics_overhead(options: Options, report: Report, sides: Sides, uri: str, this_proc: Proc) -> None:
    """/metrics' cost on the hot path: the same requests to a server with VAULTGRAPH_METRICS=false."""
    await _side_by_side(options, report, sides, this_proc, vaultgraph_server(
        uri, {"VAULTGRAPH_METRICS": "false"}, data_dir=DATA_DIR / "no-metrics",
        log=LOG_DIR / "vaultgraph-server-no-metrics.log"), "metrics on ÷ off",
        "floor column: the same server with VAULTGRAPH_METRICS=false", METRICS_ROWS)


async def _against(options: Options, report: Report, sides: Sides, uri: str, this_proc: Proc, tree: Path) -> None:
    """Before/after: every graph row against the server of another source tree (`--against TREE`)."""
    await _side_by_side(options, report, sides, this_proc, vaultgraph_server(
        uri, {"PYTHONPATH": str(tree)}, data_dir=DATA_DIR / "against", log=LOG_DIR / "vaultgraph-server-against.log",
        cwd=tree), "this ÷ --against", f"floor column: the server of {tree}")


async def _workloads(options: Options, report: Report, sides: Sides, fields: set[str], url: str,
                     server: Proc, uri: str) -> None:
    if "graph" in options.groups:
        for workload in graph_workloads(sides):
            with profiles.recording(server, options.profile, workload.name):
                stats = await compare(workload.targets, options.budget)
            report.add(Row(workload.name, stats.get("vaultgraph"), stats.get("floor"), stats.get("peer"),
                           note=workload.note, per_object=workload.per_object))
    if "search" in options.groups:
        graphql = "Query.search" in fields
        if not graphql:
            report.skipped["search through GraphQL"] = "the server has no `search` query yet (recall still measured)"
        for row in await search.run(sides, options.budget, options.search_queries, graphql):
            report.add(row)
    if "ingest" in options.groups:
        if "Mutation.saveNote" not in fields:
            raise BenchError("the server has no saveNote mutation")
        report.add(await ingest.run(url, f"{options.tenant}-ingest", options.ingest_notes, options.seed + 200,
                                    options.ingest_batch, options.ingest_concurrency, options.ingest_seconds,
                                    LOG_DIR / "vaultgraph-server.log"))
        if options.ingest_bulk_notes > 0:
            if "Mutation.importVault" not in fields:
                report.skipped["vault import"] = "the server has no importVault mutation"
            else:
                for row in await ingest.run_bulk(url, uri, sides.floor.graph, options.tenant,
                                                 options.ingest_bulk_notes, options.seed + 300):
                    report.add(row)
    if "metrics" in options.groups:
        await _metrics_overhead(options, report, sides, uri, server)
    if options.against is not None:
        await _against(options, report, sides, uri, server, options.against)
    if "fanout" in options.groups:
        missing = fanout.missing(fields)
        if missing:
            report.skipped["subscription fan-out"] = missing
        else:
            for subscribers in options.subscribers:
                report.add(await fanout.run(
                    url, sides.dataset.tenant, server, subscribers, options.events, options.event_rate,
                    functools.partial(profiles.recording, server, options.profile, f"fanout-{subscribers}")))
