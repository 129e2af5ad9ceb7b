"""Retrieval quality of vaultgraph's search on SciFact (BEIR test split), through the real GraphQL API.

Starts a real vaultgraph server (uvicorn, in this process) against NEO4J_URI or the embedded-default Neo4j,
loads the corpus as notes through the bulk save of `importVault` (the save pipeline of `saveNote`, a batch at a
time: it embeds and chunks each one, exactly as for any note), then runs every test claim through `search` in four
ways (KEYWORD, VECTOR, HYBRID with weighted fusion, HYBRID with RRF) and prints nDCG@10 and recall@100 per mode,
with the time the load and the queries took.

    .venv/bin/python bench/search_quality.py                  # a 1,000-abstract subset (a few minutes on 2 cores)
    .venv/bin/python bench/search_quality.py --docs 0         # the full 5,183 abstracts
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python bench/search_quality.py --docs 0

The subset holds every abstract judged relevant to a test claim plus a seeded random sample of the others, so its
figures are higher than the full corpus's (fewer distractors); the full run is the one to compare with published
figures. The model is whatever the settings configure (the offline bge-small-en-v1.5 when no endpoint is set;
set OPENAI_BASE_URL and VAULTGRAPH_EMBEDDING_MODEL to measure another; VAULTGRAPH_RERANK_URL and _MODEL rerank
every mode's top fused hits through that endpoint). The corpus loads into a tenant of its own, named after the
corpus size, seed, model and chunk size, and stays there: a second run skips the load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import random
import statistics
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import uvicorn

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vaultgraph.app import create_app  # noqa: E402
from vaultgraph.config import Settings  # noqa: E402
from vaultgraph.domain import Principal  # noqa: E402
from vaultgraph.errors import AppError  # noqa: E402
from vaultgraph.neo4j_local import server as local_neo4j  # noqa: E402
from vaultgraph.schema.use_cases import Services  # noqa: E402
from vaultgraph.services.note_drafts import NoteDraft  # noqa: E402
from vaultgraph.services.notes import NoteService  # noqa: E402

DATASET = REPO.parent / "shared" / "datasets" / "scifact"
MODES = {  # name → (mode, fusion)
    "keyword": ("KEYWORD", None),
    "vector": ("VECTOR", None),
    "hybrid (weighted)": ("HYBRID", "WEIGHTED"),  # the settings' weights, printed in the first line
    "hybrid (RRF k=60)": ("HYBRID", "RRF"),
}
PUBLISHED = ("published BM25 (BEIR paper) 0.665; measured on this split with bm25s and MiniLM: BM25 0.686, "
             "MiniLM 0.647, 0.4/0.6 hybrid 0.731")

SEARCH = """query($q: String!, $mode: SearchMode!, $fusion: Fusion, $limit: Int!) {
  search(query: $q, mode: $mode, fusion: $fusion, limit: $limit) { item { ... on Note { slug } } }
}"""
COUNT = """query { notes(first: 1) { totalCount } }"""


@dataclass(frozen=True)
class Dataset:
    corpus: dict[str, dict[str, str]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def load_dataset(root: Path) -> Dataset:
    corpus = {}
    for line in (root / "corpus.jsonl").read_text().splitlines():
        doc = json.loads(line)
        corpus[doc["_id"]] = doc
    queries = {}
    for line in (root / "queries_test.jsonl").read_text().splitlines():
        query = json.loads(line)
        queries[query["_id"]] = query["text"]
    qrels: dict[str, dict[str, int]] = {}
    for line in (root / "qrels_test.tsv").read_text().splitlines()[1:]:
        query_id, doc_id, score = line.split("\t")
        qrels.setdefault(query_id, {})[doc_id] = int(score)
    return Dataset(corpus, queries, qrels)


def subset(data: Dataset, size: int, seed: int) -> list[str]:
    """Every judged abstract, then a seeded sample of the rest; all of them when `size` is 0 or too large.

    Always in that order, so a smaller subset is the start of a larger one (and of the full corpus): a load of the
    full corpus that is cut short holds a subset, which `--tenant` with a smaller `--docs` can measure."""
    judged = sorted({doc for rels in data.qrels.values() for doc in rels})
    rest = sorted(set(data.corpus) - set(judged))
    random.Random(seed).shuffle(rest)
    ordered = judged + rest
    return ordered if size <= 0 or size >= len(ordered) else ordered[:max(size, len(judged))]


def ndcg_at_10(ranked: list[str], relevant: dict[str, int]) -> float:
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:10]))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum(rel / math.log2(i + 2) for i, rel in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at_100(ranked: list[str], relevant: dict[str, int]) -> float:
    return len(set(ranked[:100]) & set(relevant)) / len(relevant)


class Client:
    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def data(self, query: str, **variables: Any) -> dict[str, Any]:
        response = await self.http.post("/graphql", json={"query": query, "variables": variables})
        body = response.json()
        if body.get("errors"):
            raise RuntimeError(json.dumps(body["errors"])[:500])
        data: dict[str, Any] = body["data"]
        return data


@contextlib.asynccontextmanager
async def serve(settings: Settings) -> AsyncIterator[tuple[Client, Services]]:
    app = create_app(settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, lifespan="on"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=600) as http:
            yield Client(http), app.state.services
    finally:
        server.should_exit = True
        await task


async def load(notes: NoteService, tenant: str, data: Dataset, ids: list[str], batch: int) -> tuple[float, int]:
    """Save every abstract as a note (title, body = abstract, slug = its corpus id); seconds and unindexed count.

    Through the bulk save that `importVault` uses (`NoteService.save_many`, the save pipeline of `saveNote` with a
    batch of notes per transaction and per embedding call): the notes, chunks and vectors are those `saveNote`
    makes, at several times its speed. A slug saved by an earlier, interrupted load is refused (CONFLICT, naming
    the note) and saved again as that note: a no-op, or its indexing when the interruption came before it, so the
    load resumes."""
    started = time.perf_counter()
    principal = Principal(tenant, sees_all_scopes=True)
    unindexed = 0
    for start in range(0, len(ids), batch):
        drafts = [NoteDraft(title=(data.corpus[doc_id]["title"] or doc_id)[:500], slug=f"scifact-{doc_id}",
                            body=data.corpus[doc_id]["text"]) for doc_id in ids[start:start + batch]]
        outcomes = await notes.save_many(principal, drafts)
        again = [replace(draft, id=outcome.details["id"]) for draft, outcome in zip(drafts, outcomes, strict=True)
                 if isinstance(outcome, AppError) and outcome.code == "CONFLICT"]
        for outcome in [*outcomes, *(await notes.save_many(principal, again) if again else [])]:
            if isinstance(outcome, AppError):
                if outcome.code != "CONFLICT":
                    raise outcome
            else:
                unindexed += not outcome.note.indexed
        done = min(start + batch, len(ids))
        print(f"  loaded {done}/{len(ids)} ({time.perf_counter() - started:.0f} s)", flush=True)
    return time.perf_counter() - started, unindexed


async def evaluate(client: Client, data: Dataset, docs: set[str], claims: int
                   ) -> tuple[dict[str, tuple[float, float, float]], int, dict[str, tuple[float, float, float, float]]]:
    """Per mode: mean nDCG@10, mean recall@100, seconds spent in its queries; how many claims were asked; and per
    mode nDCG@10 on half A (even positions) and half B (odd), recall@100 on B and the p50 ms (search_levers' split)."""
    scores: dict[str, list[tuple[float, float]]] = {name: [] for name in MODES}
    seconds = dict.fromkeys(MODES, 0.0)
    times: dict[str, list[float]] = {name: [] for name in MODES}
    for query_id, relevant in list(data.qrels.items())[: claims or None]:
        relevant = {doc: rel for doc, rel in relevant.items() if doc in docs}
        if not relevant:
            continue
        for name, (mode, fusion) in MODES.items():
            started = time.perf_counter()
            result = await client.data(SEARCH, q=data.queries[query_id], mode=mode, fusion=fusion, limit=100)
            seconds[name] += time.perf_counter() - started
            times[name].append(1000 * (time.perf_counter() - started))
            ranked = [hit["item"]["slug"].removeprefix("scifact-") for hit in result["search"]]
            scores[name].append((ndcg_at_10(ranked, relevant), recall_at_100(ranked, relevant)))
    means = {name: (sum(s[0] for s in rows) / len(rows), sum(s[1] for s in rows) / len(rows), seconds[name])
             for name, rows in scores.items()}
    halves = {name: (statistics.mean(s[0] for s in rows[0::2]), statistics.mean(s[0] for s in rows[1::2]),
                     statistics.mean(s[1] for s in rows[1::2]), statistics.median(times[name]))
              for name, rows in scores.items()}
    return means, len(scores["keyword"]), halves


async def run(args: argparse.Namespace) -> None:
    data = load_dataset(args.dataset)
    ids = subset(data, args.docs, args.seed)
    base = Settings()
    model = base.embedding_model or f"offline {base.local_embedding_model}"
    tag = hashlib.sha256(f"{len(ids)}:{args.seed}:{model}:{base.chunk_max_chars}".encode()).hexdigest()[:10]
    tenant = args.tenant or f"bench-scifact-{len(ids)}-{tag}"
    # No enrichment workers: notes are embedded by the save pipeline itself, and workers would claim the pending
    # documents of every tenant on a shared Neo4j (other people's test runs included).
    settings = base.model_copy(update={"dev_tenant": tenant, "port": 0, "log_level": "WARNING",
                                       "enrichment_workers": False})
    rerank = (f"reranked by {base.rerank_model} at {base.rerank_url}, top {base.rerank_candidates}"
              if base.rerank_url else "no reranking")
    print(f"SciFact test split: {len(ids)} of {len(data.corpus)} abstracts, {len(data.qrels)} claims; "
          f"model: {model}; weighted fusion {base.search_keyword_weight}/{base.search_vector_weight}; {rerank}; "
          f"tenant {tenant}", flush=True)
    async with serve(settings) as (client, services):
        have = (await client.data(COUNT))["notes"]["totalCount"]
        if have >= len(ids) and not args.resume:
            print(f"corpus already loaded in {tenant} ({have} notes): skipping the load")
        else:
            seconds, unindexed = await load(services.notes, tenant, data, ids, args.batch)
            print(f"load: {len(ids)} notes through the bulk save in {seconds:.0f} s "
                  f"({len(ids) / seconds:.1f} notes/s), {unindexed} not indexed", flush=True)
        started = time.perf_counter()
        results, asked, halves = await evaluate(client, data, set(ids), args.claims)
        total = time.perf_counter() - started
    print(f"queries: {asked} claims × {len(MODES)} modes in {total:.0f} s (limit 100 each)")
    print(f"{'mode':<28} {'nDCG@10':>8} {'recall@100':>11} {'ms/query':>9}")
    for name, (ndcg, recall, seconds) in results.items():
        print(f"{name:<28} {ndcg:>8.3f} {recall:>11.3f} {1000 * seconds / asked:>9.0f}")
    print(f"{'mode':<28} {'A nDCG@10':>9} {'B nDCG@10':>9} {'B rec@100':>9} {'p50 ms':>7}")
    for name, (a, b, recall_b, p50) in halves.items():
        print(f"{name:<28} {a:>9.3f} {b:>9.3f} {recall_b:>9.3f} {p50:>7.0f}")
    print(f"reference (full corpus): {PUBLISHED}")
    print(f"the corpus stays in tenant {tenant}: a second run with the same settings skips the load")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000, help="corpus size; 0 for all 5,183 abstracts")
    parser.add_argument("--seed", type=int, default=7, help="seed of the distractor sample")
    parser.add_argument("--claims", type=int, default=0, help="evaluate only the first N claims (0: all 300)")
    parser.add_argument("--batch", type=int, default=50, help="notes per bulk save during the load")
    parser.add_argument("--resume", action="store_true", help="load (or finish indexing) even if enough notes are "
                                                               "there, e.g. after an interrupted load")
    parser.add_argument("--tenant", help="tenant to load into (default: named after corpus size and model)")
    parser.add_argument("--dataset", type=Path, default=DATASET, help="BEIR-format SciFact folder")
    args = parser.parse_args()
    settings = Settings()
    if settings.neo4j_uri is not None:
        asyncio.run(run(args))
        return 0
    server = local_neo4j.LocalNeo4j.from_settings(settings)
    owned = local_neo4j.start(server, settings.java_home, settings.neo4j_start_timeout)
    try:
        asyncio.run(run(args))
    finally:
        if owned:
            local_neo4j.stop(server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
