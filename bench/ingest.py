"""Ingest through the API: notes per second through `saveNote`, several per request, a few requests in flight.

Each save runs the whole pipeline, including what the server hooks onto it (indexing with its embedding model,
the fuzzy pass over unresolved links), so this is slow next to the bulk path; the run stops after a time cap.

The notes come from the same generator, in a tenant of their own so the read workloads' data stays as loaded.
Their wikilinks name each other, so saves exercise the whole pipeline: parse, resolve (a target saved later binds
its ghosts then), write the edges, and index when the server indexes on save.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from bench.client import GraphQLClient
from bench.generate import generate
from bench.measure import Stats
from bench.report import Row


def mutation(count: int) -> str:
    """`saveNote` under `count` aliases in one operation (the API's alias limit is 15)."""
    params = ", ".join(f"$n{i}: NoteInput!" for i in range(count))
    fields = " ".join(f"n{i}: saveNote(input: $n{i}) {{ created linksAdded }}" for i in range(count))
    return f"mutation Save({params}) {{ {fields} }}"


async def run(url: str, tenant: str, notes: int, seed: int, batch: int, concurrency: int, max_seconds: float,
              server_log: Path) -> Row:
    """Save `notes` notes (or as many as `max_seconds` allows) and count them per second."""
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
                data = await client.execute(mutation(len(chunk)), {f"n{i}": note for i, note in enumerate(chunk)})
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
    return Row(f"ingest: saveNote, {batch} a request, {concurrency} in flight", vaultgraph=stats, unit="notes/s",
               note=note)


def _deadlocks(log: Path) -> int:
    try:
        return log.read_text(errors="replace").count("DeadlockDetected")
    except FileNotFoundError:
        return 0
