"""Search queries: `search` (the hits) and `searchReport` (the hits with what each channel did)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from vaultgraph.schema.arguments import ItemTypes, ScopeFilter
from vaultgraph.schema.context import Context, Info
from vaultgraph.schema.types.items import Scope
from vaultgraph.schema.types.search import Fusion, SearchHit, SearchMode, SearchReport
from vaultgraph.services.search import SearchResult
from vaultgraph.services.search_request import SearchRequest

QueryArg = Annotated[str, strawberry.argument(description="Words or a question, 1-2,000 characters.")]
TagsArg = Annotated[list[str] | None, strawberry.argument(description="Notes carrying any of these tags (at most 50).")]
LimitArg = Annotated[int, strawberry.argument(description="Hits to return, 1-100 (graph mode adds up to 25).")]
MinScoreArg = Annotated[float | None, strawberry.argument(description="Drop hits whose fused score is below (0-1).")]
CategoriesArg = Annotated[list[str] | None, strawberry.argument(
    description="Documents of any of these taxonomy categories (case-insensitive; notes have none); an unknown "
                "one is INVALID_INPUT listing the known ones. At most 50.")]
FusionArg = Annotated[Fusion | None, strawberry.argument(description="Fusion for this query; the server's default.")]
ModeArg = Annotated[SearchMode, strawberry.argument(description="Which channels run.")]


async def _run(
    info: Info, query: str, mode: SearchMode, scope: Scope | None, types: list[str] | None, tags: list[str] | None,
    limit: int, min_score: float | None, fusion: Fusion | None, categories: list[str] | None,
) -> SearchResult:
    ctx = info.context
    request = SearchRequest(query=query, mode=mode, scope=scope, types=types, tags=tags, limit=limit,
                            min_score=min_score, fusion=fusion, categories=categories)
    result = await ctx.services.search.search(ctx.principal, request)
    warn_degraded(ctx, result.vector.skipped, result.rerank.skipped)
    return result


def warn_degraded(ctx: Context, vector_skipped: str | None, rerank_skipped: str | None) -> None:
    """The UNAVAILABLE warnings of a search that still answered: without its vector channel, or in fused order
    because the reranker failed."""
    if vector_skipped:
        ctx.warn("UNAVAILABLE", f"vector search was skipped; keyword results only: {vector_skipped}")
    if rerank_skipped:
        ctx.warn("UNAVAILABLE", f"reranking was skipped; hits in fused order: {rerank_skipped}")


async def search(
    info: Info, query: QueryArg, mode: ModeArg = SearchMode.HYBRID,
    scope: ScopeFilter = None, types: ItemTypes = None, tags: TagsArg = None, limit: LimitArg = 10,
    min_score: MinScoreArg = None, fusion: FusionArg = None, categories: CategoriesArg = None,
) -> list[SearchHit]:
    """Hybrid search by default, best first; each hit carries its scores, ranks, fusion, snippet and (graph mode)
    path. When the embedding model is down, keyword hits come back with an `UNAVAILABLE` warning in `extensions`;
    when the rerank endpoint fails, fused hits do.
    INVALID_INPUT for an empty or over-long query, a bound outside its range, or an unknown category."""
    result = await _run(info, query, mode, scope, types, tags, limit, min_score, fusion, categories)
    return [SearchHit.from_domain(hit) for hit in result.hits]


async def search_report(
    info: Info, query: QueryArg, mode: ModeArg = SearchMode.HYBRID,
    scope: ScopeFilter = None, types: ItemTypes = None, tags: TagsArg = None, limit: LimitArg = 10,
    min_score: MinScoreArg = None, fusion: FusionArg = None, categories: CategoriesArg = None,
) -> SearchReport:
    """`search`, plus what each channel did: whether it ran, how many items it found, and why it was skipped."""
    return SearchReport.from_domain(await _run(info, query, mode, scope, types, tags, limit, min_score, fusion,
                                               categories))
