"""Ingest: notes per second through `saveNote` (several per request, a few requests in flight) and through the
product's bulk path, a vault import (`NoteService.save_many`: a batch of notes per transaction, one embedding call
per batch).

Each save runs the whole pipeline, including what the server hooks onto it (indexing with its embedding model,
the fuzzy pass over unresolved links), so this is slow next to the bulk path; the run stops after a time cap.

The notes come from the same generator, in a tenant of their own so the read workloads' data stays as loaded.
Their wikilinks name each other, so saves exercise the whole pipeline: parse, resolve (a target saved later binds
its ghosts then), write the edges, and index when the server indexes on save.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.client import GraphQLClient
from bench.generate import Dataset, generate
from bench.measure import Stats
from bench.report import Row
from vaultgraph.config import Settings
from vaultgraph.domain import Principal
from vaultgraph.file_walk import MAX_FILES
from vaultgraph.graph.session import Graph
from vaultgraph.runtime import build_runtime

IMPORT_VAULT = """
mutation Import($path: String!) { importVault(path: $path) { files created conflicts skipped { path reason } } }
"""
AWAIT_INDEXES = "CALL db.awaitIndexes(600)"


def mutation(count: int, defer: bool = False) -> str:
    """`saveNote` under `count` aliases in one operation (the API's alias limit is 15)."""
    params = ", ".join(f"$n{i}: NoteInput!" for i in range(count))
    arguments = ", deferIndexing: true" if defer else ""
    fields = " ".join(f"n{i}: saveNote(input: $n{i}{arguments}) {{ created linksAdded }}" for i in range(count))
    return f"mutation Save({params}) {{ {fields} }}"


async def run(url: str, tenant: str, notes: int, seed: int, batch: int, concurrency: int, max_seconds: float,
              server_log: Path, defer: bool = False) -> Row:
    """Save `notes` notes (or as many as `max_seconds` allows) and count them per second; with `defer` the saves
    leave embedding to the server's workers (`deferIndexing: true`)."""
    dataset = generate(tenant, notes, seed)
    inputs = [{"title": n.title, "body": n.body, "kind": n.kind} for n in dataset.notes]
    batches = [inputs[i:i + batch] for i in range(0, len(inputs), batch)]
    queue: asyncio.Queue[list[dict[str, Any]]] = asyncio.Queue()
    for chunk in batches:
        queue.put_nowait(chunk)
    stats = Stats(objects=0)
    headers = {"X-Vaultgraph-Tenant": tenant}

    async def worker() -> None:
        client = GraphQLClient(url, headers=headers)
        try:
            while not queue.empty() and time.perf_counter() - started < max_seconds:
                chunk = queue.get_nowait()
                await client.ready()
                sent = time.perf_counter()
                data = await client.execute(mutation(len(chunk), defer),
                                            {f"n{i}": note for i, note in enumerate(chunk)})
                stats.samples.append(time.perf_counter() - sent)
                stats.objects = (stats.objects or 0) + sum(1 for v in data.values() if v["created"])
        finally:
            await client.close()

    retries_before = _deadlocks(server_log)
    started = time.perf_counter()
    try:
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    except Exception as exc:  # reported in the row, the run goes on
        stats.error = f"{type(exc).__name__}: {exc}"[:200]
    elapsed = time.perf_counter() - started
    stats.ops_per_second = (stats.objects or 0) / elapsed if elapsed else None
    deadlocks = _deadlocks(server_log) - retries_before
    note = f"p50/p95 per request of {batch}; {stats.objects} of {len(inputs)} notes in {elapsed:.1f} s"
    if deadlocks:
        note += f"; {deadlocks} transactions retried after a deadlock (server log)"
    deferred = ", embedding deferred" if defer else ""
    return Row(f"ingest: saveNote, {batch} a request, {concurrency} in flight{deferred}", vaultgraph=stats,
               unit="notes/s", note=note)


def _deadlocks(log: Path) -> int:
    try:
        return log.read_text(errors="replace").count("DeadlockDetected")
    except FileNotFoundError:
        return 0


def write_vault(dataset: Dataset, root: Path) -> int:
    """The dataset as an Obsidian vault: one `<title>.md` per note (its links name titles, so they resolve)."""
    root.mkdir(parents=True, exist_ok=True)
    for note in dataset.notes:
        (root / f"{note.title}.md").write_text(note.body, encoding="utf-8")
    return len(dataset.notes)


async def _await_indexes(graph: Graph) -> None:
    async with graph.driver.session(database=graph.database) as session:
        await (await session.run(AWAIT_INDEXES)).consume()


async def run_bulk(url: str, uri: str, graph: Graph, tenant: str, notes: int, seed: int) -> list[Row]:
    """The bulk path twice over a generated vault of `notes` notes (at most the scan's file limit), each in a
    tenant of its own, timed until every index is online: `importVault` through the API (it returns before the
    embedding, which the server's workers do afterwards), and the same import in this process with no embedding
    (what `vaultgraph import-vault` runs: the graph side of the bulk path alone)."""
    notes = min(notes, MAX_FILES)
    workdir = Path(tempfile.mkdtemp(prefix="bench-vault-"))
    rows = []
    try:
        dataset = generate(f"{tenant}-vault", notes, seed)
        files = write_vault(dataset, workdir / "vault")
        links = len(dataset.links)

        client = GraphQLClient(url, headers={"X-Vaultgraph-Tenant": f"{tenant}-bulk"})
        stats = Stats(objects=0)
        try:
            started = time.perf_counter()
            data = (await client.execute(IMPORT_VAULT, {"path": str(workdir / "vault")}))["importVault"]
            await _await_indexes(graph)
            elapsed = time.perf_counter() - started
            stats.samples.append(elapsed)
            stats.objects = len(data["created"])
            stats.ops_per_second = stats.objects / elapsed
            if stats.objects != files:
                stats.error = f"{stats.objects} of {files} notes created; skipped {data['skipped'][:3]}"
        except Exception as exc:  # reported in the row, the run goes on
            stats.error = f"{type(exc).__name__}: {exc}"[:200]
            elapsed = 0.0
        finally:
            await client.close()
        rows.append(Row("ingest: vault import (bulk save, embedding deferred), all indexes live", vaultgraph=stats,
                        unit="notes/s", note=f"importVault of {files} files, {links:,} links, in {elapsed:.1f} s; "
                                             "returns before the embedding, which the server's workers do after "
                                             "(none run in the suite's server: bench/deferred_ingest.py times it)"))

        # The import `vaultgraph import-vault` runs: the one Runtime's services, no workers (embedding deferred).
        settings = Settings(data_dir=workdir / "data", enrichment_workers=False, workspace_watch=False)
        async with build_runtime(settings, uri, workers=False, watcher=False).running(require_neo4j=True) as runtime:
            stats = Stats(objects=0)
            started = time.perf_counter()
            report = await runtime.operator_vault().import_vault(Principal(f"{tenant}-bulk-graph",
                                                                           sees_all_scopes=True), workdir / "vault")
            await _await_indexes(runtime.graph)
            elapsed = time.perf_counter() - started
        stats.samples.append(elapsed)
        stats.objects = len(report.created)
        stats.ops_per_second = stats.objects / elapsed
        rows.append(Row("ingest: vault import, graph only (no embedding), all indexes live", vaultgraph=stats,
                        unit="notes/s", note=f"the Runtime's vault import in the bench process, as `vaultgraph "
                                             f"import-vault`; {files} files, {links:,} links in {elapsed:.1f} s"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return rows
