"""Search workloads: keyword, vector, hybrid and graph mode through GraphQL against the floor's channel statements,
the cost of embedding a query, and recall@10 of the vector channel against exact search over the same vectors.

Queries are tenant-filtered, as every query is, over indexes that also hold the second tenant. GraphQL queries
rotate over a few texts the server has embedded during warm-up (its query-embedding cache), so the timed part is
the search itself; the "uncached" row changes the text every call, so it includes the embedding. The stored vectors
are synthetic (see generate.py) while the server embeds the text with its own model: GraphQL timings are real,
GraphQL rankings are not meaningful; recall is measured on the floor with the same statement the service runs.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np

from bench.generate import exact_top_k, keyword_queries, query_vectors
from bench.measure import Budget, Target, compare
from bench.report import Row
from bench.targets import Floor
from bench.workloads import Sides
from vaultgraph.domain import Direction

LIMIT = 10
ROTATION = 16  # distinct texts per mode: fewer than the warm-up calls, so the server has embedded them all

DEPTH = 100  # issue 25, item 7: `limit: 100` within 3× the p50 of `limit: 10`
VG_SEARCH = """
query Search($q: String!, $mode: SearchMode!, $limit: Int!) {
  search(query: $q, mode: $mode, limit: $limit) { score snippet item { id title } }
}"""


def _channel_fetch() -> int:
    """How many rows each channel asks its index for when the caller wants LIMIT hits (services/search.py)."""
    from vaultgraph.services.search import MAX_RAW_HITS, OVERFETCH

    return min(LIMIT * OVERFETCH * 2, MAX_RAW_HITS)


class FloorSearch:
    """The channel statements of vaultgraph/graph/search.py, run as SearchService runs them."""

    def __init__(self, floor: Floor, vectors: np.ndarray, texts: list[str]) -> None:
        from bench.load import EMBEDDING_MODEL
        from vaultgraph.graph import items as item_cypher
        from vaultgraph.graph import links as link_cypher
        from vaultgraph.graph import search as cypher
        from vaultgraph.graph.vectors import VectorModel
        from vaultgraph.text.lucene import fulltext_query, query_terms

        self.floor = floor
        self.cypher = cypher
        self.items = item_cypher
        self.links = link_cypher
        self.where = cypher.HitFilter(tenant=floor.tenant, owner_keys=None)
        self.fetch = _channel_fetch()
        self.vectors = [v.tolist() for v in vectors]
        self.model = VectorModel(EMBEDDING_MODEL, len(self.vectors[0]) if self.vectors else 0)
        self.lucene = [fulltext_query(query_terms(t), cypher.FULLTEXT_FIELDS, floor.tenant) for t in texts]

    async def keyword(self, i: int) -> list[str]:
        rows = await self.floor.graph.read(self.cypher.keyword_hits, self.lucene[i % len(self.lucene)], self.fetch,
                                           self.where)
        return [r.item_id for r in rows if r.visible]

    async def vector(self, i: int, limit: int | None = None) -> list[str]:
        vector = self.vectors[i % len(self.vectors)]
        rows = await self.floor.graph.read(self.cypher.vector_hits, vector, self.model, limit or self.fetch,
                                           self.where)
        return [r.item_id for r in rows if r.visible]

    async def hits(self, i: int, keyword: bool, vector: bool) -> list[str]:
        """The channels asked for, in parallel, then the items of the top LIMIT (fusion is a few µs of Python)."""
        found = await asyncio.gather(self.keyword(i) if keyword else _none(), self.vector(i) if vector else _none())
        top = list(dict.fromkeys(itertools.chain(*found)))[:LIMIT]
        await self.floor.graph.read(self.items.items_by_ids, self.floor.tenant, top)
        return top

    async def graph(self, i: int) -> int:
        top = await self.hits(i, True, True)
        extra = await self.floor.graph.read(self.links.bfs_level, Direction.BOTH, tenant=self.floor.tenant,
                                            frontier=top, visited=top, types=None, ownerKeys=None,
                                            ranked=True)
        return len(top) + min(25, len({row["item"].id for row in extra}))


async def _none() -> list[str]:
    return []


def _vg(sides: Sides, mode: str, texts: list[str], unique: bool = False, limit: int = LIMIT) -> Target:
    nonce = itertools.count()

    def variables(i: int) -> dict[str, Any]:
        text = texts[i % len(texts)]
        return {"q": f"{text} q{next(nonce)}" if unique else text, "mode": mode, "limit": limit}

    return sides.vaultgraph.target(VG_SEARCH, variables, lambda d: len(d["search"]))


def _floor(name: str, fn: Callable[[int], Awaitable[Any]]) -> Target:
    async def call(worker: int, i: int) -> int:
        result = await fn(i)
        return result if isinstance(result, int) else len(result)

    return Target(name, call)


async def recall(floor: FloorSearch, sides: Sides, queries: np.ndarray) -> str:
    """recall@10 of the vector statement against exact cosine search over the tenant's own vectors: asking the
    index for 10 rows, and for as many as the service asks (over-fetch), keeping the best 10."""
    index_of = {note.id: i for i, note in enumerate(sides.dataset.notes)}
    exact = exact_top_k(sides.dataset.vectors, queries, LIMIT)
    found: dict[int, list[float]] = {LIMIT: [], floor.fetch: []}
    for limit in found:
        for q in range(len(queries)):
            ids = (await floor.vector(q, limit))[:LIMIT]
            found[limit].append(len({index_of[i] for i in ids if i in index_of} & exact[q]) / LIMIT)
    return (f"recall@10 {np.mean(found[LIMIT]):.3f} asking the index for 10, {np.mean(found[floor.fetch]):.3f} "
            f"for {floor.fetch} as the service does ({len(queries)} queries, exact = brute force)")


async def run(sides: Sides, budget: Budget, recall_queries: int, graphql: bool) -> list[Row]:
    """The search rows; without `graphql` (no `search` field on the server) only the floor's recall."""
    texts = keyword_queries(sides.dataset, ROTATION)
    vectors = query_vectors(sides.dataset, max(ROTATION, recall_queries))
    try:
        floor: FloorSearch | None = FloorSearch(sides.floor, vectors[:ROTATION], texts)
        recall_floor = FloorSearch(sides.floor, vectors[:recall_queries], texts)
    except (ImportError, AttributeError) as exc:
        floor = recall_floor = None
        sides.skipped["search floor and recall"] = f"vaultgraph's search statements are not reachable: {exc}"
    rows = []
    if graphql:
        modes: list[tuple[str, Callable[[int], Awaitable[Any]] | None]] = [
            ("KEYWORD", (lambda i: floor.hits(i, True, False)) if floor else None),
            ("VECTOR", (lambda i: floor.hits(i, False, True)) if floor else None),
            ("HYBRID", (lambda i: floor.hits(i, True, True)) if floor else None),
            ("GRAPH", floor.graph if floor else None),
        ]
        for mode, floor_fn in modes:
            targets = [_vg(sides, mode, texts)] + ([_floor("floor", floor_fn)] if floor_fn else [])
            stats = await compare(targets, budget)
            rows.append(Row(f"search {mode.lower()}, limit 10", stats.get("vaultgraph"), stats.get("floor"),
                            note="query embedding cached" if mode != "KEYWORD" else ""))
        # The same queries at both depths, taking turns: the floor column is `limit: 10` through GraphQL.
        deep, shallow = _vg(sides, "HYBRID", texts, limit=DEPTH), _vg(sides, "HYBRID", texts)
        stats = await compare([deep, Target("floor", shallow.call, shallow.ready)], budget)
        rows.append(Row(f"search hybrid at depth, limit {DEPTH} (floor: limit 10)", stats.get("vaultgraph"),
                        stats.get("floor"),
                        note="floor column: the same queries at limit 10 through GraphQL; ×floor is the depth's cost"))
        stats = await compare([_vg(sides, "HYBRID", texts, unique=True)], budget)
        rows.append(Row("search hybrid, new text each call", stats.get("vaultgraph"),
                        note="includes embedding the query with the server's model"))
    if recall_floor is not None:
        rows.append(Row("vector recall@10", note=await recall(recall_floor, sides, vectors[:recall_queries])))
    return rows
