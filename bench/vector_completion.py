"""A keyword candidate the vector channel did not return: scored 0 on the vector side, or its true cosine? Offline.

    NEO4J_URI=bolt://127.0.0.1:7690 .venv/bin/python bench/search_levers.py --tenant T   # caches the channels first
    NEO4J_URI=bolt://127.0.0.1:7690 .venv/bin/python bench/vector_completion.py --tenant T

An item that only the keyword channel found gets a vector score of 0 today: its cosine is under the query's
similarity floor, or it ranked below the vector channel's over-fetched top k (20 items for `limit: 10`), though the
graph holds its vector and its chunks'. This reads every note's and chunk's stored vector of the tenant from Neo4j,
embeds the claims with the server's own model (its query lane, as a search does), and so knows the exact cosine of
any item (the best of its own vector and its chunks', as the channel's roll-up takes). Then it fuses
search_levers.py's cached channel answers with `vaultgraph.services.fusion` itself, with and without the keyword
candidates completed by their exact cosine, at the depth of `limit: 100` (the cache: 100 items a channel) and at
that of `limit: 10` (each channel cut to its first 20), and prints nDCG@10 on half A (even claims, tuning) and half
B (odd, held out) and recall@100 on B. A vector-only candidate keeps a BM25 of 0 (Neo4j gives no BM25 of one node).

    NEO4J_URI=… .venv/bin/python bench/vector_completion.py --tenant T --latency

times the search service itself (hybrid, `limit: 10` and `limit: 100`) over every claim with completion on and off,
taking turns, and prints the p50 of each and of their difference per claim.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.search_quality import DATASET, load_dataset, ndcg_at_10, recall_at_100, subset  # noqa: E402
from vaultgraph.config import Settings  # noqa: E402
from vaultgraph.domain import Principal  # noqa: E402
from vaultgraph.graph.session import Graph  # noqa: E402
from vaultgraph.models import build_model_client  # noqa: E402
from vaultgraph.runtime import model_config  # noqa: E402
from vaultgraph.services.fusion import ChannelHit, FusionMethod, Normalisation, complete, fuse, ranked  # noqa: E402
from vaultgraph.services.search import SearchService, search_config  # noqa: E402
from vaultgraph.services.search_request import SearchRequest  # noqa: E402

# The tenant's stored vectors of the query's model: each note's own, and each chunk's under its note's id.
NOTE_VECTORS = """
MATCH (n:Note {tenantId: $tenant}) WHERE n.embedding IS NOT NULL AND n.embeddingModel = $model
RETURN n.id AS id, n.slug AS slug, n.embedding AS embedding
"""
CHUNK_VECTORS = """
MATCH (c:Chunk {tenantId: $tenant}) WHERE c.embedding IS NOT NULL AND c.embeddingModel = $model
RETURN c.itemId AS id, c.embedding AS embedding
"""
# Slugs of the notes without a vector (keyword-only by construction).
SLUGS = "MATCH (n:Note {tenantId: $tenant}) RETURN n.id AS id, n.slug AS slug"

Run = Callable[[list[ChannelHit], list[ChannelHit], float | None, dict[str, float]], list[str]]


async def exact_cosines(tenant: str, claims: list[str], texts: dict[str, str]) -> dict[str, dict[str, float]]:
    """claim → corpus id → the best cosine over the note's vector and its chunks' (only notes holding one)."""
    settings = Settings()
    if settings.neo4j_uri is None:
        raise SystemExit("set NEO4J_URI to the Neo4j that search_quality.py loaded")
    models = build_model_client(model_config(settings))
    graph = Graph.connect(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    try:
        async with graph.driver.session(database=settings.neo4j_database) as session:
            params = {"tenant": tenant, "model": models.embedding_model_name}
            slugs = {r["id"]: r["slug"] async for r in await session.run(SLUGS, **params)}
            notes = [(r["id"], r["embedding"]) async for r in await session.run(NOTE_VECTORS, **params)]
            chunks = [(r["id"], r["embedding"]) async for r in await session.run(CHUNK_VECTORS, **params)]
    finally:
        await graph.close()
    owners = [item for item, _ in notes] + [item for item, _ in chunks]
    matrix = np.asarray([vector for _, vector in notes] + [vector for _, vector in chunks], dtype=np.float64)
    queries = np.asarray(await models.embed_query([texts[claim].strip() for claim in claims]), dtype=np.float64)
    scores = queries @ matrix.T  # both sides unit vectors
    print(f"{len(notes)} note vectors, {len(chunks)} chunk vectors, {len(claims)} claims embedded", flush=True)
    corpus_ids = [slugs[item].removeprefix("scifact-") for item in owners]
    cosines: dict[str, dict[str, float]] = {}
    for row, claim in enumerate(claims):
        best: dict[str, float] = {}
        for doc, score in zip(corpus_ids, scores[row].tolist(), strict=True):
            if score > best.get(doc, -2.0):
                best[doc] = score
        cosines[claim] = best
    return cosines


def hits(rows: list[list[Any]], depth: int) -> list[ChannelHit]:
    return [ChannelHit(slug.removeprefix("scifact-"), raw) for slug, raw in rows[:depth]]


def weighted(method: FusionMethod, completed: bool, clip: bool = True, wk: float = 0.4, wv: float = 0.6,
             bound: bool = False) -> Run:
    """Today's fusion (completed=False), or with the keyword candidates' exact cosines; `clip=False` lets a cosine
    under the floor count below zero (the fused score loses what the normalised cosine is under 0); `bound` gives
    each vector-only candidate the keyword channel's last BM25 (its own is at most that: it ranked below)."""
    def run(keyword: list[ChannelHit], vector: list[ChannelHit], floor: float | None,
            cosines: dict[str, float]) -> list[str]:
        if bound and keyword:
            found = {hit.item_id for hit in keyword}
            keyword = [*keyword, *(ChannelHit(hit.item_id, keyword[-1].raw) for hit in vector
                                   if hit.item_id not in found)]
        if completed:
            vector = complete(vector, keyword, cosines)
        fused = fuse(keyword, vector, method, wk, wv, normalisation=Normalisation.FLOOR, vector_floor=floor)
        if not clip and floor is not None and keyword and vector:
            share = wv / (wk + wv)
            fused = ranked(replace(f, score=f.score + share * (f.vector.raw - floor) / (1 - floor))
                           if f.vector is not None and f.vector.raw < floor else f for f in fused)
        return [f.item_id for f in fused]
    return run


def score(answers: dict[str, Any], cosines: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]],
          claims: Sequence[str], run: Run, depth: int) -> tuple[float, float]:
    ndcg, recall = [], []
    for claim in claims:
        answer = answers[claim]
        ranking = run(hits(answer["keyword"], depth), hits(answer["vector"], depth), answer["floor"],
                      cosines[claim])[:100]
        ndcg.append(ndcg_at_10(ranking, qrels[claim]))
        recall.append(recall_at_100(ranking, qrels[claim]))
    return sum(ndcg) / len(ndcg), sum(recall) / len(recall)


def describe(answers: dict[str, Any], cosines: dict[str, dict[str, float]], claims: list[str], depth: int) -> str:
    """How many keyword candidates a claim's vector channel missed, and how many of those stand above the floor."""
    missed = above = 0
    for claim in claims:
        answer = answers[claim]
        returned = {hit.item_id for hit in hits(answer["vector"], depth)}
        floor = answer["floor"] or 0.0
        for hit in hits(answer["keyword"], depth):
            if hit.item_id not in returned:
                missed += 1
                above += cosines[claim].get(hit.item_id, -1.0) > floor
    return (f"depth {depth}: {missed / len(claims):.1f} keyword candidates a claim not returned by the vector channel, "
            f"{above / len(claims):.1f} of them above the query's floor")


def agreement(answers: dict[str, Any], cosines: dict[str, dict[str, float]], claims: list[str]) -> str:
    """The vector channel's raw cosines against the exact ones: both must be the same numbers."""
    gaps = [abs(raw - cosines[claim][slug.removeprefix("scifact-")])
            for claim in claims for slug, raw in answers[claim]["vector"]]
    return f"vector channel's cosines against the exact ones: max |difference| {max(gaps):.2e} over {len(gaps)} hits"


async def latency(tenant: str, texts: list[str], qrels: list[dict[str, int]]) -> None:
    """p50 of the hybrid search service with completion on and off (turns alternate per claim), per limit, and the
    nDCG@10 of its answers on each half of the claims."""
    settings = Settings()
    if settings.neo4j_uri is None:
        raise SystemExit("set NEO4J_URI to the Neo4j that search_quality.py loaded")
    models = build_model_client(model_config(settings))
    graph = Graph.connect(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    config = search_config(settings)
    services = {on: SearchService(graph, models, replace(config, vector_completion=on)) for on in (False, True)}
    principal = Principal(tenant, sees_all_scopes=True)
    try:
        await services[False].search(principal, SearchRequest(query="warm up"))
        for limit in (10, 100):
            ms: dict[bool, list[float]] = {False: [], True: []}
            ndcg: dict[bool, list[float]] = {False: [], True: []}
            for position, text in enumerate(texts):
                for on in ((False, True) if position % 2 else (True, False)):
                    started = time.perf_counter()
                    result = await services[on].search(principal, SearchRequest(query=text, limit=limit))
                    ms[on].append(1000 * (time.perf_counter() - started))
                    ranking = [getattr(hit.item, "slug", "").removeprefix("scifact-") for hit in result.hits]
                    ndcg[on].append(ndcg_at_10(ranking, qrels[position]))
            for on in (False, True):
                print(f"hybrid limit {limit}, completion {'on' if on else 'off'}: nDCG@10 A "
                      f"{statistics.mean(ndcg[on][0::2]):.3f}, B {statistics.mean(ndcg[on][1::2]):.3f}")
            extra = statistics.median(b - a for a, b in zip(ms[False], ms[True], strict=True))
            print(f"hybrid limit {limit}: p50 {statistics.median(ms[False]):.1f} ms without completion, "
                  f"{statistics.median(ms[True]):.1f} ms with it; p50 of the difference per claim {extra:+.1f} ms",
                  flush=True)
    finally:
        await graph.close()


async def main_async(args: argparse.Namespace) -> None:
    data = load_dataset(args.dataset)
    docs = set(subset(data, args.docs, args.seed))
    qrels = {claim: {d: r for d, r in rels.items() if d in docs} for claim, rels in data.qrels.items()}
    claims = [claim for claim in data.qrels if qrels[claim]]
    if args.latency:
        await latency(args.tenant, [data.queries[claim] for claim in claims], [qrels[claim] for claim in claims])
        return
    cache = REPO / "bench" / ".data" / f"levers-{args.tenant}-{len(docs)}.json"
    if not cache.exists():
        raise SystemExit(f"no cached channel answers at {cache}: run bench/search_levers.py --tenant {args.tenant}")
    answers = json.loads(cache.read_text())
    cosines = await exact_cosines(args.tenant, claims, data.queries)
    half_a, half_b = claims[0::2], claims[1::2]
    print(agreement(answers, cosines, claims))
    rows: list[tuple[str, Run]] = [
        ("today: weighted 0.4/0.6, floor; a missed cosine 0", weighted(FusionMethod.WEIGHTED, False)),
        ("keyword candidates completed, floor clipping (0 below)", weighted(FusionMethod.WEIGHTED, True)),
        ("keyword candidates completed, no clipping (< 0 below)", weighted(FusionMethod.WEIGHTED, True, clip=False)),
        ("vector-only candidates at the keyword channel's last BM25", weighted(FusionMethod.WEIGHTED, False,
                                                                              bound=True)),
        ("both: completed (clipped) and the last BM25", weighted(FusionMethod.WEIGHTED, True, bound=True)),
        ("RRF k=60 today", weighted(FusionMethod.RRF, False)),
        ("RRF k=60, keyword candidates completed", weighted(FusionMethod.RRF, True)),
    ]
    for depth, label in ((100, "limit 100 (100 a channel, the cache)"), (20, "limit 10 (20 a channel)")):
        print(f"\n{label}; {describe(answers, cosines, claims, depth)}")
        print(f"{'variant':<58} {'A nDCG@10':>9} {'B nDCG@10':>9} {'B rec@100':>9}")
        for name, run in rows:
            a = score(answers, cosines, qrels, half_a, run, depth)
            b = score(answers, cosines, qrels, half_b, run, depth)
            print(f"{name:<58} {a[0]:>9.3f} {b[0]:>9.3f} {b[1]:>9.3f}", flush=True)
        for completed in (False, True):
            grid = [(score(answers, cosines, qrels, half_a, weighted(FusionMethod.WEIGHTED, completed, True, w, 1 - w),
                           depth)[0], w) for w in [x / 10 for x in range(1, 10)]]
            print(f"  weights on A, {'completed' if completed else 'today'}: "
                  + ", ".join(f"{w:.1f}: {a:.3f}" for a, w in grid))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenant", required=True, help="the tenant search_quality.py loaded the corpus into")
    parser.add_argument("--docs", type=int, default=0, help="judge against the first N abstracts of its order")
    parser.add_argument("--seed", type=int, default=7, help="seed of the distractor order (as search_quality.py)")
    parser.add_argument("--dataset", type=Path, default=DATASET, help="BEIR-format SciFact folder")
    parser.add_argument("--latency", action="store_true", help="time the search service with completion on and off")
    asyncio.run(main_async(parser.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
