"""Context packs: what an agent should read before it thinks about a query, within a token budget.

Entry items are hybrid search hits above a relevance threshold (default 0.3, at most 5 — the retriever of the
reference designs), in the reranker's order when one is configured; each brings its summary or best chunk, then
its one-hop neighbourhood while the budget lasts. Every item says why it is there (its score, or the link from a
hit). Texts are trimmed to whole sentences, counted with a real tokenizer (text/tokens.py), and whatever did not
fit is listed as omitted, with the reason.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from vaultgraph.domain import Direction, Document, Item, Principal, Reached, Scope
from vaultgraph.errors import InvalidInput
from vaultgraph.services.links import LinkService
from vaultgraph.services.search import SearchHit, SearchService, item_text
from vaultgraph.services.search_request import SearchMode, SearchRequest
from vaultgraph.text.tokens import TokenCounter, sentences

DEFAULT_THRESHOLD = 0.3
DEFAULT_MAX_ITEMS = 5
MAX_ITEMS = DEFAULT_MAX_ITEMS * 4
MIN_BUDGET = 16
MAX_BUDGET = 32000
MAX_NEIGHBOURS = 25
SEPARATOR = "\n\n"


class PackRole(enum.Enum):
    HIT = "HIT"
    NEIGHBOUR = "NEIGHBOUR"


@dataclass(frozen=True, slots=True)
class PackVia:
    """The link that brought a neighbour in: from the hit `from_id`, `direction` as seen from that hit."""

    from_id: str
    link_id: str
    link_type: str
    direction: Direction


@dataclass(frozen=True, slots=True)
class PackItem:
    item: Item
    role: PackRole
    content: str
    tokens: int  # of `rendered`, the item's share of the pack's text
    truncated: bool  # later sentences left out to fit the budget
    reason: str
    score: float | None = None
    via: PackVia | None = None
    rerank_score: float | None = None

    @property
    def rendered(self) -> str:
        return render(self.item.title, self.reason, self.content)


@dataclass(frozen=True, slots=True)
class Omitted:
    item: Item
    role: PackRole
    reason: str


@dataclass(frozen=True, slots=True)
class ContextPack:
    query: str
    budget_tokens: int
    threshold: float
    tokenizer: str
    items: list[PackItem]
    omitted: list[Omitted] = field(default_factory=list)
    vector_skipped: str | None = None  # the search's reports: why its vector channel or its reranking was skipped
    rerank_skipped: str | None = None

    @property
    def text(self) -> str:
        """The pack as one text for a prompt; its token count is `used_tokens`, never above the budget."""
        return SEPARATOR.join(item.rendered for item in self.items)


def render(title: str, reason: str, content: str) -> str:
    return f"## {title}\n({reason})\n{content}"


def pack_text(item: Item, hit: SearchHit | None) -> str:
    """A document's summary, else the best-matching chunk; a note's matching passage, else its body."""
    if isinstance(item, Document) and item.summary:
        return item.summary
    return hit.passage if hit is not None else item_text(item)


class ContextPackService:
    def __init__(self, search: SearchService, links: LinkService, counter: TokenCounter) -> None:
        self.search = search
        self.links = links
        self.counter = counter

    async def pack(
        self, principal: Principal, query: str, budget_tokens: int, scope: Scope | None = None,
        types: Sequence[str] | None = None, threshold: float = DEFAULT_THRESHOLD, max_items: int = DEFAULT_MAX_ITEMS,
        categories: Sequence[str] | None = None,
    ) -> ContextPack:
        if not MIN_BUDGET <= budget_tokens <= MAX_BUDGET:
            raise InvalidInput("budgetTokens", f"between {MIN_BUDGET} and {MAX_BUDGET}")
        if not 1 <= max_items <= MAX_ITEMS:
            raise InvalidInput("maxItems", f"between 1 and {MAX_ITEMS}")
        result = await self.search.search(principal, SearchRequest(
            query=query, mode=SearchMode.HYBRID, scope=scope, types=types, limit=max_items, min_score=threshold,
            categories=categories))
        hits = result.hits[:max_items]
        neighbours: list[Reached] = []
        if hits:
            neighbours, _ = await self.links.traverse(principal, [hit.item.id for hit in hits], hops=1,
                                                      max_nodes=MAX_NEIGHBOURS, truncate=True)
        builder = PackBuilder(self.counter, budget_tokens)
        titles = {hit.item.id: hit.item.title for hit in hits}
        for hit in hits:
            reason = f"search hit, relevance {hit.score:.2f}"
            if hit.rerank is not None:
                reason += f", reranked {hit.rerank.score:.2f}"
            builder.add(hit.item, PackRole.HIT, pack_text(hit.item, hit), reason, score=hit.score,
                        rerank_score=hit.rerank.score if hit.rerank else None)
        for reached in neighbours:
            via = PackVia(reached.from_id, reached.via_link_id, reached.via_type, reached.via_direction)
            arrow = "links to" if reached.via_direction is Direction.OUT else "is linked from"
            reason = f"neighbour: {titles.get(reached.from_id, reached.from_id)!r} {arrow} it ({reached.via_type})"
            builder.add(reached.item, PackRole.NEIGHBOUR, pack_text(reached.item, None), reason, via=via)
        return ContextPack(query=query, budget_tokens=budget_tokens, threshold=threshold, tokenizer=self.counter.name,
                           items=builder.items, omitted=builder.omitted, vector_skipped=result.vector.skipped,
                           rerank_skipped=result.rerank.skipped)


class PackBuilder:
    """Adds items in priority order while the budget lasts; each takes whole sentences or stays out."""

    def __init__(self, counter: TokenCounter, budget: int) -> None:
        self.counter = counter
        self.budget = budget
        self.items: list[PackItem] = []
        self.omitted: list[Omitted] = []

    @property
    def used(self) -> int:
        return self.counter.count(SEPARATOR.join(item.rendered for item in self.items))

    def add(self, item: Item, role: PackRole, text: str, reason: str, score: float | None = None,
            via: PackVia | None = None, rerank_score: float | None = None) -> None:
        parts = sentences(text)
        prior = [i.rendered for i in self.items]
        kept = self._fit(parts, prior, item.title, reason)
        if kept == 0 and (parts or not self._fits(prior, render(item.title, reason, ""))):
            self.omitted.append(Omitted(item, role, "does not fit in the remaining budget"))
            return
        content = " ".join(parts[:kept])
        candidate = PackItem(item, role, content, 0, kept < len(parts), reason, score, via)
        self.items.append(PackItem(item, role, content, self.counter.count(candidate.rendered), kept < len(parts),
                                   reason, score, via, rerank_score))

    def _fits(self, prior: list[str], rendered: str) -> bool:
        # Token counts are not additive across a join; the whole text is what must fit.
        return self.counter.count(SEPARATOR.join([*prior, rendered])) <= self.budget

    def _fit(self, parts: list[str], prior: list[str], title: str, reason: str) -> int:
        """How many leading sentences fit: estimated from per-part counts, then settled on the whole text's count
        (so an item whose smallest form fits is never left out by a conservative estimate)."""
        left = self.budget - self.used - (self.counter.count(SEPARATOR) if prior else 0)
        left -= self.counter.count(render(title, reason, ""))
        kept, total = 0, 0
        for part in parts:
            total += self.counter.count(part)
            if total > left:
                break
            kept += 1

        def fits(count: int) -> bool:
            return self._fits(prior, render(title, reason, " ".join(parts[:count])))

        while kept > 0 and not fits(kept):
            kept -= 1
        while kept < len(parts) and fits(kept + 1):
            kept += 1
        return kept
