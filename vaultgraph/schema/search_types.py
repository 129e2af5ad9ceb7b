"""Search results that explain themselves, link suggestions, and unresolved refs with their candidates."""

from __future__ import annotations

from typing import TypeAlias

import strawberry

from vaultgraph.schema.types import Item, item_type
from vaultgraph.services import search as service
from vaultgraph.services.fusion import ChannelScore as DomainChannelScore
from vaultgraph.services.fusion import FusionMethod
from vaultgraph.services.fuzzy_links import Ghost as DomainGhost
from vaultgraph.services.suggestions import LinkSuggestion as DomainSuggestion

# The services' enums are the schema's: registering them with strawberry returns the same classes.
strawberry.enum(
    service.SearchMode,
    description="KEYWORD: full text; VECTOR: embeddings; HYBRID: both, fused; GRAPH: hybrid, then one hop of links.",
)
strawberry.enum(
    FusionMethod, name="Fusion",
    description="WEIGHTED: 0.4·keyword + 0.6·vector (configurable); RRF: reciprocal rank fusion (k = 60), 0-1.",
)
SearchMode: TypeAlias = service.SearchMode
Fusion: TypeAlias = FusionMethod


@strawberry.type(description="How one channel scored a hit.")
class ChannelScore:
    score: float = strawberry.field(description=(
        "Normalised to 0-1; by default BM25 ÷ the channel's best, or the cosine from the query's similarity floor "
        "(0) to the best hit's (1)."))
    raw: float = strawberry.field(description="As the channel gave it: BM25 for keyword, cosine for vector.")
    rank: int = strawberry.field(description="1-based position in that channel.")

    @classmethod
    def from_domain(cls, score: DomainChannelScore | None) -> ChannelScore | None:
        return cls(score=score.score, raw=score.raw, rank=score.rank) if score else None


@strawberry.type(description="A link followed in graph mode: `from` → `to` as the link points.")
class SearchVia:
    link_id: strawberry.ID
    type: str
    source: Item = strawberry.field(name="from")
    target: Item = strawberry.field(name="to")

    @classmethod
    def from_domain(cls, via: service.ViaLink) -> SearchVia:
        return cls(link_id=strawberry.ID(via.link_id), type=via.type, source=item_type(via.source),
                   target=item_type(via.target))


@strawberry.type(description="One search result and why it is there.")
class SearchHit:
    item: Item
    score: float = strawberry.field(description=(
        "The fused score, 0-1 (×1.2 for the caller's own personal items, so up to 1.2); what `minScore` compares "
        "against."))
    keyword_score: float | None = strawberry.field(description="Normalised keyword score; null if not a keyword hit.")
    vector_score: float | None = strawberry.field(description=(
        "Normalised vector score (`vector.raw` is the cosine); null if not a vector hit."))
    keyword_rank: int | None
    vector_rank: int | None
    keyword: ChannelScore | None
    vector: ChannelScore | None
    fusion: Fusion
    _hit: strawberry.Private[service.SearchHit]
    via: list[SearchVia] = strawberry.field(
        description="Graph mode: the links from a search hit to this item; empty for the hits themselves."
    )

    @classmethod
    def from_domain(cls, hit: service.SearchHit) -> SearchHit:
        return cls(
            item=item_type(hit.item), score=hit.score,
            keyword_score=hit.keyword.score if hit.keyword else None,
            vector_score=hit.vector.score if hit.vector else None,
            keyword_rank=hit.keyword.rank if hit.keyword else None,
            vector_rank=hit.vector.rank if hit.vector else None,
            keyword=ChannelScore.from_domain(hit.keyword), vector=ChannelScore.from_domain(hit.vector),
            fusion=hit.fusion, via=[SearchVia.from_domain(v) for v in hit.via], _hit=hit,
        )

    @strawberry.field(description="The best passage, the query's words marked **like this**.")
    def snippet(self) -> str:
        return self._hit.snippet().text

    @strawberry.field(description="Query words found in the snippet.")
    def matched_terms(self) -> list[str]:
        return list(self._hit.snippet().matched)


@strawberry.type(description="What one channel did for a query.")
class SearchChannel:
    ran: bool
    hits: int = strawberry.field(description="Items the channel found (before fusion and the page cut).")
    skipped: str | None = strawberry.field(description="Why the channel did not run, when it should have.")
    fallback: bool = strawberry.field(description="Keyword: Lucene found nothing; the substring scan answered.")
    floor: float | None = strawberry.field(description=(
        "Vector: the query's similarity floor (a cosine, -1 to 1): the channel brings in only items above it, as "
        "no more like the query than unrelated text is below it. Null for the keyword channel or when not computed."))

    @classmethod
    def from_domain(cls, report: service.ChannelReport) -> SearchChannel:
        return cls(ran=report.ran, hits=report.hits, skipped=report.skipped, fallback=report.fallback,
                   floor=report.floor)


@strawberry.type(description="Search hits with what each channel did, e.g. a vector channel skipped, and why.")
class SearchReport:
    hits: list[SearchHit]
    mode: SearchMode
    fusion: Fusion
    keyword: SearchChannel
    vector: SearchChannel
    terms: list[str] = strawberry.field(description="The words the keyword channel searched for.")

    @classmethod
    def from_domain(cls, result: service.SearchResult) -> SearchReport:
        return cls(hits=[SearchHit.from_domain(h) for h in result.hits], mode=result.mode, fusion=result.fusion,
                   keyword=SearchChannel.from_domain(result.keyword), vector=SearchChannel.from_domain(result.vector),
                   terms=list(result.terms))


@strawberry.type(description="A note that looks related and is not linked yet: computed, never stored.")
class LinkSuggestion:
    target: Item
    similarity: float = strawberry.field(description="Cosine similarity of the two notes (or the best chunk).")
    passage: str = strawberry.field(description="The passage of the target that matched best.")

    @classmethod
    def from_domain(cls, suggestion: DomainSuggestion) -> LinkSuggestion:
        return cls(target=item_type(suggestion.target), similarity=suggestion.similarity, passage=suggestion.passage)


@strawberry.type(description="A note an unresolved ref might mean, with its search score.")
class GhostCandidate:
    item: Item
    score: float


@strawberry.type(description="An unresolved [[ref]]: who links to it, and the notes it might mean, for review.")
class GhostRef:
    ref: str = strawberry.field(description="The resolution key the links carry (their `Link.key`).")
    text: str = strawberry.field(description="The target as an author wrote it.")
    links: int = strawberry.field(description="How many links point at it.")
    sources: list[Item] = strawberry.field(description="Items linking to it (the first ten).")
    candidates: list[GhostCandidate] = strawberry.field(description="At most three notes scoring 0.35 or more.")

    @classmethod
    def from_domain(cls, ghost: DomainGhost) -> GhostRef:
        return cls(ref=ghost.ref, text=ghost.text, links=ghost.links, sources=[item_type(s) for s in ghost.sources],
                   candidates=[GhostCandidate(item=item_type(c.item), score=c.score) for c in ghost.candidates])
