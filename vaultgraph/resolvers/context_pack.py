"""`contextPack`: search hits, their neighbours and provenance, trimmed to a token budget."""

from __future__ import annotations

from typing import Annotated

import strawberry

from vaultgraph.resolvers.search import CategoriesArg, warn_degraded
from vaultgraph.schema.arguments import ItemTypes, ScopeFilter
from vaultgraph.schema.context import Info
from vaultgraph.schema.types.context_pack import ContextPack
from vaultgraph.services.context_pack import DEFAULT_MAX_ITEMS, DEFAULT_THRESHOLD


async def context_pack(
    info: Info,
    query: Annotated[str, strawberry.argument(description="What the agent is about to think about.")],
    budget_tokens: Annotated[int, strawberry.argument(description="At most this many tokens of text, 16-32,000.")],
    scope: ScopeFilter = None,
    types: ItemTypes = None,
    threshold: Annotated[float, strawberry.argument(
        description="Minimum relevance (fused score, 0-1) of an entry item.")] = DEFAULT_THRESHOLD,
    max_items: Annotated[int, strawberry.argument(description="Entry items (search hits), 1-20.")] = DEFAULT_MAX_ITEMS,
    categories: CategoriesArg = None,
) -> ContextPack:
    """Hybrid hits above `threshold` with their one-hop neighbours, whole sentences only, within `budgetTokens`;
    `omitted` lists what qualified and did not fit. INVALID_INPUT for a budget or `maxItems` out of range. The
    search's UNAVAILABLE warnings (no vector channel, no reranking) come in `extensions.warnings`."""
    ctx = info.context
    service = ctx.services.context_pack
    pack = await service.pack(ctx.principal, query, budget_tokens, scope, types, threshold, max_items, categories)
    warn_degraded(ctx, pack.vector_skipped, pack.rerank_skipped)
    return ContextPack.from_domain(pack, service.counter.count(pack.text))
