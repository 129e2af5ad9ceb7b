"""A context pack: what to read about a query within a token budget, why each item is there, what was left out."""

from __future__ import annotations

from typing import TypeAlias

import strawberry

from vaultgraph.schema.enums import schema_enum
from vaultgraph.schema.types.items import Direction, Item, item_type
from vaultgraph.services import context_pack as service

schema_enum(service.PackRole, "Why an item is in a context pack.", {
    "HIT": "A search hit scoring at least the pack's `threshold`.",
    "NEIGHBOUR": "One link away from a hit (`via` says which link).",
}, name="ContextRole")
ContextRole: TypeAlias = service.PackRole


@strawberry.type(description="The link that brought a neighbour into a pack, as seen from the hit it came from.")
class ContextVia:
    from_id: strawberry.ID = strawberry.field(description="The hit this neighbour is linked with.")
    link_id: strawberry.ID = strawberry.field(description="The link.")
    link_type: str = strawberry.field(description="Its type.")
    direction: Direction = strawberry.field(description="OUT: the hit links to this item; IN: this item links to it.")


@strawberry.type(description="One item of a context pack: its text, its token count, and why it is there.")
class ContextItem:
    item: Item = strawberry.field(description="The document or note.")
    role: ContextRole = strawberry.field(description="A hit or a neighbour of one.")
    content: str = strawberry.field(description="The summary or best chunk (hits), the summary or body (neighbours), "
                                                "whole sentences only.")
    tokens: int = strawberry.field(description="Tokens of this item's part of `ContextPack.text`.")
    truncated: bool = strawberry.field(description="Later sentences were left out to fit the budget.")
    reason: str = strawberry.field(description="Provenance in words: the relevance score, or the link from a hit.")
    score: float | None = strawberry.field(description="The hit's fused relevance, 0-1; null for neighbours.")
    via: ContextVia | None = strawberry.field(description="For neighbours: the link from the hit.")
    rerank_score: float | None = strawberry.field(description=(
        "The hit's rerank score when a rerank endpoint ordered the hits (VAULTGRAPH_RERANK_URL); null otherwise."))

    @classmethod
    def from_domain(cls, entry: service.PackItem) -> ContextItem:
        via = entry.via
        return cls(
            item=item_type(entry.item), role=entry.role, content=entry.content, tokens=entry.tokens,
            truncated=entry.truncated, reason=entry.reason, score=entry.score, rerank_score=entry.rerank_score,
            via=ContextVia(from_id=strawberry.ID(via.from_id), link_id=strawberry.ID(via.link_id),
                           link_type=via.link_type, direction=via.direction) if via else None,
        )


@strawberry.type(description="An item that qualified for the pack and was left out, and why.")
class ContextOmission:
    item: Item = strawberry.field(description="The item left out.")
    role: ContextRole = strawberry.field(description="What it would have been.")
    reason: str = strawberry.field(description="Why it was left out, in words (e.g. over the token budget).")


@strawberry.type(description="Context for a query within a token budget, ready to put in a prompt (`text`).")
class ContextPack:
    query: str = strawberry.field(description="The query, as asked.")
    budget_tokens: int = strawberry.field(description="The budget asked for, in tokens.")
    used_tokens: int = strawberry.field(description="Tokens of `text`, never more than `budgetTokens`.")
    threshold: float = strawberry.field(description="Hits scoring below this relevance were not entry items.")
    tokenizer: str = strawberry.field(description="The tokenizer that counted (see the README).")
    text: str = strawberry.field(description="Every item as `## title`, `(reason)`, content, in order.")
    items: list[ContextItem] = strawberry.field(description=(
        "Hits (in the reranker's order when one is configured, else by fused score), then neighbours, in the order "
        "of `text`."))
    omitted: list[ContextOmission] = strawberry.field(description="Items that qualified and did not fit.")

    @classmethod
    def from_domain(cls, pack: service.ContextPack, used_tokens: int) -> ContextPack:
        return cls(
            query=pack.query, budget_tokens=pack.budget_tokens, used_tokens=used_tokens, threshold=pack.threshold,
            tokenizer=pack.tokenizer, text=pack.text, items=[ContextItem.from_domain(i) for i in pack.items],
            omitted=[ContextOmission(item=item_type(o.item), role=o.role, reason=o.reason) for o in pack.omitted],
        )
