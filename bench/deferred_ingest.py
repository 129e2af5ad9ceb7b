"""Saving and importing with embedding deferred to the workers, and search while they embed (issue 25, items 4-6).

    .venv/bin/python -m bench.deferred_ingest --neo4j-uri bolt://127.0.0.1:7690 --notes 1000

Starts a vaultgraph server with its enrichment workers on (the main bench's server runs without them) over an
existing Neo4j, each workload in a tenant of its own, and prints one line per figure:

- saveNote, 10 a request, 2 in flight, embedding inline and deferred (`deferIndexing: true`), notes/s;
- saveNotes, 100 a request, deferred, notes/s;
- importVault of a generated vault (the bench's generator, `<title>.md` files): the call's own notes/s (notes,
  links and full text committed), then the workers' background embedding, notes/s from the call's return until
  `enrichmentProgress.notesPending` is 0, against the model's own batched throughput over the same notes' texts
  measured alone in this process before the server starts, same model and settings;
- hybrid search, a new query text each call (so each call embeds its query), p50 on an idle server and while a
  second import of the vault embeds in the background: once with words the vault does not hold (the keyword
  channel's substring fallback answers), once with words of its titles (Lucene answers).

Figures are from one run on a shared machine: read the ratios, not the absolute times.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench import ingest
from bench.client import GraphQLClient
from bench.generate import generate
from bench.processes import LOG_DIR, vaultgraph_server
from vaultgraph.config import Settings
from vaultgraph.models.local_embedding import LocalEmbedder
from vaultgraph.runtime import model_config

SAVE_MANY = """mutation($inputs: [NoteInput!]!) { saveNotes(inputs: $inputs, deferIndexing: true) { saved failed } }"""
IMPORT = "mutation($path: String!) { importVault(path: $path) { created indexPending } }"
PENDING = "{ enrichmentProgress { notesPending notesIndexed } }"
SEARCH = """query($q: String!, $mode: SearchMode!) {
  search(query: $q, mode: $mode, limit: 10) { score vectorAvailable } }"""
WORDS = ("river", "ledger", "signal", "harbor", "lantern", "meadow", "archive", "bridge", "compass", "orchard",
         "furnace", "summit", "canvas", "method", "budget", "review", "planning", "garden", "engine", "tides")


def _client(url: str, tenant: str) -> GraphQLClient:
    return GraphQLClient(url, headers={"X-Vaultgraph-Tenant": tenant})


async def _wait_indexed(client: GraphQLClient, expected: int, within: float) -> float:
    """Seconds until the tenant has no pending note and `expected` indexed ones."""
    started = time.perf_counter()
    while True:
        progress = (await client.execute(PENDING))["enrichmentProgress"]
        if progress["notesPending"] == 0 and progress["notesIndexed"] >= expected:
            return time.perf_counter() - started
        if time.perf_counter() - started > within:
            raise TimeoutError(f"still {progress} after {within:.0f} s")
        await asyncio.sleep(0.2)


async def _drain(url: str, tenant: str, within: float) -> None:
    client = _client(url, tenant)
    await _wait_indexed(client, 0, within)
    await client.close()


def _query(words: tuple[str, ...], n: int) -> str:
    """A text never asked before (the server caches query vectors): three words and a counter."""
    return f"{words[n % len(words)]} {words[(n * 7 + 3) % len(words)]} {words[(n * 11 + 5) % len(words)]} {n}"


def _vault_words(titles: list[str]) -> tuple[str, ...]:
    """Words of the vault's titles (its topics' words), for queries Lucene answers."""
    return tuple(sorted({word.lower() for title in titles for word in title.split() if word.isalpha()})[:len(WORDS)])


Samples = dict[tuple[str, str], list[float]]  # (word set, mode) → seconds


async def _search_p50(client: GraphQLClient, start: int, count: int, word_sets: dict[str, tuple[str, ...]],
                      until: asyncio.Event | None = None, modes: tuple[str, ...] = ("HYBRID",)) -> Samples:
    """Latencies of `count` searches per word set and mode with fresh texts, one at a time, taking turns
    (stopping early once `until` is set)."""
    samples: Samples = {(name, mode): [] for name in word_sets for mode in modes}
    for n in range(start, start + count):
        for name, words in word_sets.items():
            for mode in modes:
                if until is not None and until.is_set():
                    return samples
                sent = time.perf_counter()
                await client.execute(SEARCH, {"q": _query(words, n), "mode": mode})
                samples[(name, mode)].append(time.perf_counter() - sent)
    return samples


async def _saves_many(url: str, tenant: str, notes: int, seed: int) -> tuple[float, int]:
    dataset = generate(tenant, notes, seed)
    inputs = [{"title": n.title, "body": n.body, "kind": n.kind} for n in dataset.notes]
    client = _client(url, tenant)
    started = time.perf_counter()
    saved = 0
    for start in range(0, len(inputs), 100):
        saved += (await client.execute(SAVE_MANY, {"inputs": inputs[start:start + 100]}))["saveNotes"]["saved"]
    elapsed = time.perf_counter() - started
    await client.close()
    return saved / elapsed, saved


async def _import(url: str, tenant: str, vault: Path) -> tuple[float, int, GraphQLClient]:
    client = _client(url, tenant)
    started = time.perf_counter()
    report = (await client.execute(IMPORT, {"path": str(vault)}))["importVault"]
    elapsed = time.perf_counter() - started
    return elapsed, len(report["created"]), client


async def main(args: argparse.Namespace) -> None:
    run = uuid.uuid4().hex[:6]
    work = Path(tempfile.mkdtemp(prefix="bench-deferred-"))
    vault = work / "vault"
    dataset = generate(f"dv-{run}", args.notes, args.seed)
    files = ingest.write_vault(dataset, vault)
    texts = [f"{n.title}\n\n{n.body.strip()}" for n in dataset.notes]  # what indexing embeds for a short note
    env = {"VAULTGRAPH_ENRICHMENT_WORKERS": "true", "VAULTGRAPH_VAULT_DIRS": f'["{work}"]',
           "VAULTGRAPH_ENRICHMENT_GIVE_WAY_SECONDS": str(args.give_way)}
    lines = _Lines()
    lines.append(f"run {run}: {files} notes, {len(dataset.links):,} links; background steps give way to requests "
                 f"for up to {args.give_way:g} s")
    log = LOG_DIR / "deferred-ingest-server.log"
    try:
        # The model alone, in this process, before the server starts (whose workers load their own model as it
        # starts, on the same cores): its own batched throughput over the same texts.
        embedder = LocalEmbedder(model_config(Settings()).local)  # the offline model the server runs
        await embedder.warm_up()
        started = time.perf_counter()
        await embedder.embed(texts)
        alone = len(texts) / (time.perf_counter() - started)
        lines.append(f"model alone (LocalEmbedder.embed, batches of {embedder.config.batch_size}, this process, "
                     f"before the server starts): {alone:.1f} notes/s")
        del embedder
        with vaultgraph_server(args.neo4j_uri, env, log=log) as (url, _):
            for defer in (False, True):
                row = await ingest.run(url, f"ds-{run}-{int(defer)}", args.save_notes, args.seed + 1, 10, 2,
                                       args.save_seconds, log, defer=defer)
                assert row.vaultgraph is not None
                lines.append(f"{row.workload}: {row.vaultgraph.ops_per_second or 0:.1f} notes/s ({row.note})")
                await _drain(url, f"ds-{run}-{int(defer)}", args.within)  # the next row starts with idle workers
            rate, saved = await _saves_many(url, f"dm-{run}", args.save_notes, args.seed + 2)
            lines.append(f"saveNotes, 100 a request, embedding deferred: {rate:.1f} notes/s ({saved} notes)")
            await _drain(url, f"dm-{run}", args.within)

            elapsed, created, first = await _import(url, f"di-{run}-a", vault)
            lines.append(f"importVault returned: {created} notes in {elapsed:.1f} s = {created / elapsed:.1f} notes/s")
            background = await _wait_indexed(first, created, args.within)
            rate = created / background
            lines.append(f"background embedding after it: {created} notes in {background:.1f} s = {rate:.1f} "
                         f"notes/s = {rate / alone:.2f} x the model alone")

            modes = ("HYBRID", "KEYWORD", "VECTOR") if args.channels else ("HYBRID",)
            word_sets = {"words the vault does not hold": WORDS,
                         "words of the vault": _vault_words([n.title for n in dataset.notes])}
            idle = await _search_p50(first, 0, args.queries, word_sets, modes=modes)
            elapsed, created, second = await _import(url, f"di-{run}-b", vault)
            done = asyncio.Event()

            async def watch() -> float:
                try:
                    return await _wait_indexed(second, created, args.within)
                finally:
                    done.set()

            watcher = asyncio.create_task(watch())
            busy = await _search_p50(first, 10_000, args.queries, word_sets, until=done, modes=modes)
            background = await watcher
            lines.append(f"hybrid search, new text each call, idle and while a {created}-note import embeds (it "
                         f"embedded in {background:.1f} s = {created / background:.1f} notes/s):")
            for name in word_sets:
                for mode in modes:  # --channels: where the time went
                    calm, loaded = (statistics.median(runs[(name, mode)]) if runs[(name, mode)] else float("nan")
                                    for runs in (idle, busy))
                    label = f"{name}, {mode.lower()}" + (" alone, taking turns with it" if mode != "HYBRID" else "")
                    lines.append(f"  {label}: idle p50 {calm * 1000:.0f} ms, during the import {loaded * 1000:.0f} "
                                 f"ms = {loaded / calm:.2f} x ({len(busy[(name, mode)])} calls)")
            for client in (first, second):
                await client.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


class _Lines(list[str]):
    """The figures, each printed as it is measured (a long run interrupted still shows what it measured)."""

    def append(self, line: str) -> None:
        super().append(line)
        print(line, flush=True)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--neo4j-uri", required=True, help="an existing Neo4j (tenants are unique to the run)")
    parser.add_argument("--notes", type=int, default=1000, help="notes in the imported vault (default 1000)")
    parser.add_argument("--save-notes", type=int, default=500, help="notes per save workload (default 500)")
    parser.add_argument("--save-seconds", type=float, default=40.0, help="time cap of each saveNote row")
    parser.add_argument("--queries", type=int, default=40, help="searches per p50 (default 40)")
    parser.add_argument("--within", type=float, default=1800.0, help="longest wait for the background embedding")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--channels", action="store_true",
                        help="also time KEYWORD and VECTOR searches, taking turns with the hybrid ones")
    parser.add_argument("--give-way", type=float, default=Settings().enrichment_give_way_seconds,
                        help="VAULTGRAPH_ENRICHMENT_GIVE_WAY_SECONDS of the server (0: background never waits)")
    return parser.parse_args()


def _run() -> None:
    arguments: dict[str, Any] = vars(_arguments())
    asyncio.run(main(argparse.Namespace(**arguments)))


if __name__ == "__main__":
    _run()
