"""Fusion levers on SciFact, one at a time: each channel asked once per claim through GraphQL, then fused offline.

    NEO4J_URI=bolt://127.0.0.1:7690 .venv/bin/python bench/search_levers.py --tenant T --docs N

Loads nothing: it reads a corpus `search_quality.py` loaded (`--tenant`, and `--docs` for the part of its order to
judge against; see `subset()` there). For every test claim it asks `search(mode: KEYWORD, limit: 100)` and
`searchReport(mode: VECTOR, limit: 100)` (raw BM25 and cosine per hit, and the query's similarity floor), caches
the answers in `bench/.data/levers-<tenant>.json` (a second run asks nothing), then scores each fusion variant
with `vaultgraph.services.fusion` itself. The claims are split in two by position: even positions tune (half A),
odd positions report (half B), so a variant is chosen on A and its figure on B is a held-out one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.search_quality import DATASET, Client, load_dataset, ndcg_at_10, recall_at_100, serve, subset  # noqa: E402
from vaultgraph.config import Settings  # noqa: E402
from vaultgraph.services.fusion import ChannelHit, FusionMethod, Normalisation, fuse  # noqa: E402

KEYWORD = """query($q: String!) { search(query: $q, mode: KEYWORD, limit: 100) {
  item { ... on Note { slug } } keyword { raw } } }"""
VECTOR = """query($q: String!) { searchReport(query: $q, mode: VECTOR, limit: 100) {
  vector { floor } hits { item { ... on Note { slug } } vector { raw } } } }"""

Channels = dict[str, Any]  # claim id → {"keyword": [[slug, raw]…], "vector": [[slug, raw]…], "ms": {...}}


async def ask(client: Client, queries: dict[str, str], claims: list[str]) -> Channels:
    answers: Channels = {}
    for done, claim in enumerate(claims, start=1):
        started = time.perf_counter()
        keyword = (await client.data(KEYWORD, q=queries[claim]))["search"]
        middle = time.perf_counter()
        report = (await client.data(VECTOR, q=queries[claim]))["searchReport"]
        ended = time.perf_counter()
        answers[claim] = {
            "keyword": [[hit["item"]["slug"], hit["keyword"]["raw"]] for hit in keyword],
            "vector": [[hit["item"]["slug"], hit["vector"]["raw"]] for hit in report["hits"]],
            "floor": report["vector"]["floor"],
            "ms": {"keyword": 1000 * (middle - started), "vector": 1000 * (ended - middle)},
        }
        if done % 50 == 0:
            print(f"  asked {done}/{len(claims)}", flush=True)
    return answers


Variant = Callable[[list[ChannelHit], list[ChannelHit], float | None], list[str]]


def variant(method: FusionMethod, normalisation: Normalisation, wk: float = 0.4, wv: float = 0.6) -> Variant:
    def run(keyword: list[ChannelHit], vector: list[ChannelHit], floor: float | None) -> list[str]:
        return [f.item_id for f in fuse(keyword, vector, method, wk, wv, normalisation=normalisation,
                                        vector_floor=floor)]
    return run


def score(answers: Channels, qrels: dict[str, dict[str, int]], claims: list[str], run: Variant
          ) -> tuple[float, float]:
    ndcg, recall = [], []
    for claim in claims:
        keyword = [ChannelHit(slug.removeprefix("scifact-"), raw) for slug, raw in answers[claim]["keyword"]]
        vector = [ChannelHit(slug.removeprefix("scifact-"), raw) for slug, raw in answers[claim]["vector"]]
        ranked = run(keyword, vector, answers[claim]["floor"])[:100]
        ndcg.append(ndcg_at_10(ranked, qrels[claim]))
        recall.append(recall_at_100(ranked, qrels[claim]))
    return sum(ndcg) / len(ndcg), sum(recall) / len(recall)


def channel_only(name: str) -> Variant:
    def run(keyword: list[ChannelHit], vector: list[ChannelHit], floor: float | None) -> list[str]:
        return [hit.item_id for hit in (keyword if name == "keyword" else vector)]
    return run


async def main_async(args: argparse.Namespace) -> None:
    data = load_dataset(args.dataset)
    docs = set(subset(data, args.docs, args.seed))
    qrels = {claim: {d: r for d, r in rels.items() if d in docs} for claim, rels in data.qrels.items()}
    claims = [claim for claim in data.qrels if qrels[claim]]
    cache = REPO / "bench" / ".data" / f"levers-{args.tenant}-{len(docs)}.json"
    if cache.exists() and not args.ask:
        answers: Channels = json.loads(cache.read_text())
    else:
        settings = Settings().model_copy(update={"dev_tenant": args.tenant, "port": 0, "log_level": "WARNING",
                                                 "enrichment_workers": False})
        async with serve(settings) as (client, _):
            answers = await ask(client, data.queries, claims)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(answers))
    half_a, half_b = claims[0::2], claims[1::2]
    print(f"{len(docs)} abstracts judged against, {len(claims)} claims: half A {len(half_a)} (tuning), "
          f"half B {len(half_b)} (held out)")
    p50 = {name: median(answers[c]["ms"][name] for c in claims) for name in ("keyword", "vector")}
    rows: list[tuple[str, Variant]] = [("keyword alone", channel_only("keyword")),
                                       ("vector alone (above the floor)", channel_only("vector"))]
    for normalisation in Normalisation:
        rows.append((f"weighted 0.4/0.6, {normalisation.value}", variant(FusionMethod.WEIGHTED, normalisation)))
    rows.append(("RRF k=60", variant(FusionMethod.RRF, Normalisation.MAX_COSINE)))
    for normalisation in Normalisation:
        best = max((score(answers, qrels, half_a, variant(FusionMethod.WEIGHTED, normalisation, w, 1 - w))[0], w)
                   for w in [x / 10 for x in range(1, 10)])
        rows.append((f"weighted {best[1]:.1f}/{1 - best[1]:.1f} (best on A), {normalisation.value}",
                     variant(FusionMethod.WEIGHTED, normalisation, best[1], 1 - best[1])))
    print(f"{'variant':<52} {'A nDCG@10':>9} {'B nDCG@10':>9} {'B rec@100':>9}")
    for name, run in rows:
        a = score(answers, qrels, half_a, run)
        b = score(answers, qrels, half_b, run)
        print(f"{name:<52} {a[0]:>9.3f} {b[0]:>9.3f} {b[1]:>9.3f}")
    print(f"p50 per channel query (limit 100, through GraphQL): keyword {p50['keyword']:.0f} ms, "
          f"vector {p50['vector']:.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenant", required=True, help="the tenant search_quality.py loaded the corpus into")
    parser.add_argument("--docs", type=int, default=0, help="judge against the first N abstracts of its order")
    parser.add_argument("--seed", type=int, default=7, help="seed of the distractor order (as search_quality.py)")
    parser.add_argument("--ask", action="store_true", help="ask again even when the answers are cached")
    parser.add_argument("--dataset", type=Path, default=DATASET, help="BEIR-format SciFact folder")
    asyncio.run(main_async(parser.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
