"""Search results that explain themselves, link suggestions, and unresolved refs with their candidates."""

from __future__ import annotations

from typing import TypeAlias

import strawberry

from vaultgraph.schema.enums import schema_enum
from vaultgraph.schema.types.items import Item, Topic, item_type
from vaultgraph.services import search as service
from vaultgraph.services.fusion import ChannelScore as DomainChannelScore
from vaultgraph.services.fusion import FusionMethod
from vaultgraph.services.fuzzy_links import Ghost as DomainGhost
from vaultgraph.services.reranking import RerankReport
from vaultgraph.services.search_request import SearchMode as DomainSearchMode
from vaultgraph.services.suggestions import LinkSuggestion as DomainSuggestion
from vaultgraph.text.snippets import Snippet

# The services' enums are the schema's: registering them with strawberry returns the same classes.
schema_enum(DomainSearchMode, "Which channels a search runs.", {
    "KEYWORD": "Full text (BM25 over titles, paths, summaries, bodies and chunks).",
    "VECTOR": "Embeddings (cosine); none when the embedding model is down (the report says why).",
    "HYBRID": "Both channels in parallel, fused (`fusion`); keyword only, with an UNAVAILABLE warning, when the "
              "embedding model is down.",
    "GRAPH": "HYBRID, then one hop of links both ways from the hits (up to 25 extra items, each with `via`).",
})
schema_enum(FusionMethod, "How the two channels' scores combine into `score`, 0-1.", {
    "WEIGHTED": "0.4·keyword + 0.6·vector by default (configurable); a lone channel with results weighs 1.0.",
    "RRF": "Reciprocal rank fusion (k = 60), scaled to 0-1.",
}, name="Fusion")
SearchMode: TypeAlias = DomainSearchMode
Fusion: TypeAlias = FusionMethod


@strawberry.type(description="How one channel scored a hit.")
class ChannelScore:
    score: float = strawberry.field(description=(
        "Normalised to 0-1; by default BM25 ÷ the channel's best, or the cosine from the query's similarity floor "
        "(0) to a perfect match's (1)."))
    raw: float = strawberry.field(description="As the channel gave it: BM25 for keyword, cosine for vector.")
    rank: int = strawberry.field(description="1-based position in that channel.")

    @classmethod
    def from_domain(cls, score: DomainChannelScore | None) -> ChannelScore | None:
        return cls(score=score.score, raw=score.raw, rank=score.rank) if score else None


@strawberry.type(description="A link followed in graph mode: `from` → `to` as the link points.")
class SearchVia:
    link_id: strawberry.ID = strawberry.field(description="The link followed.")
    type: str = strawberry.field(description="Its type.")
    source: Item = strawberry.field(name="from", description="The item it starts at.")
    target: Item = strawberry.field(name="to", description="The item it points at.")

    @classmethod
    def from_domain(cls, via: service.ViaLink) -> SearchVia:
        return cls(link_id=strawberry.ID(via.link_id), type=via.type, source=item_type(via.source),
                   target=item_type(via.target))


@strawberry.type(description="One search result and why it is there.")
class SearchHit:
    item: Item = strawberry.field(description="The document or note found.")
    score: float = strawberry.field(description=(
        "The fused score, 0-1 (×1.2 for the caller's own personal items, so up to 1.2); what `minScore` compares "
        "against. Reranking leaves it as it is and orders hits by `rerankScore` instead."))
    keyword_score: float | None = strawberry.field(description="Normalised keyword score; null if not a keyword hit.")
    vector_score: float | None = strawberry.field(description=(
        "Normalised vector score (`vector.raw` is the cosine); null if not a vector hit."))
    keyword_rank: int | None = strawberry.field(description="1-based rank in the keyword channel; null if not there.")
    vector_rank: int | None = strawberry.field(description="1-based rank in the vector channel; null if not there.")
    keyword: ChannelScore | None = strawberry.field(description="The keyword channel's score; null if not there.")
    vector: ChannelScore | None = strawberry.field(description="The vector channel's score; null if not there.")
    fusion: Fusion = strawberry.field(description="How `score` was fused.")
    _hit: strawberry.Private[service.SearchHit]
    via: list[SearchVia] = strawberry.field(
        description="Graph mode: the links from a search hit to this item; empty for the hits themselves."
    )
    rerank_score: float | None = strawberry.field(description=(
        "The rerank endpoint's relevance score (VAULTGRAPH_RERANK_URL; Cohere, Jina and vLLM answer 0-1): reranked "
        "hits come first, in its order. Null when reranking is off or failed (`searchReport.rerank.skipped`), or the "
        "hit was beyond the candidates sent (VAULTGRAPH_RERANK_CANDIDATES); such hits follow in fused order."))
    rerank_rank: int | None = strawberry.field(
        description="1-based rank among the candidates the reranker scored; null when `rerankScore` is.")
    topic: Topic | None = strawberry.field(description=(
        "The topic of the document that matched (its best-scoring one), so a client can show that passage; null "
        "when no topic matched (a note, or a document found by its title, summary or chunks alone)."))
    _snippet: strawberry.Private[Snippet | None] = None  # cut once for `snippet` and `matchedTerms` together

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
            rerank_score=hit.rerank.score if hit.rerank else None, rerank_rank=hit.rerank.rank if hit.rerank else None,
            topic=Topic.from_domain(hit.topic) if hit.topic else None,
        )

    def _cut(self) -> Snippet:
        if self._snippet is None:
            self._snippet = self._hit.snippet()
        return self._snippet

    @strawberry.field(description="The best passage, the query's words marked **like this**.")
    def snippet(self) -> str:
        return self._cut().text

    @strawberry.field(description=(
        "False when the item has no vector yet (a note whose embedding is still queued after importVault or a "
        "deferred save, one no embedding model could index, a document not enriched yet): the vector channel could "
        "not find or score it, so only the keyword channel did."))
    def vector_available(self) -> bool:
        return self._hit.vector_available

    @strawberry.field(description="Query words found in the snippet.")
    def matched_terms(self) -> list[str]:
        return list(self._cut().matched)


@strawberry.type(description="What one channel did for a query.")
class SearchChannel:
    ran: bool = strawberry.field(description="False when the mode left it out or it was skipped (see `skipped`).")
    hits: int = strawberry.field(description="Items the channel found (before fusion and the page cut).")
    skipped: str | None = strawberry.field(description="Why the channel did not run, when it should have.")
    fallback: bool = strawberry.field(
        description="Keyword: Lucene found no word of the query; the substring fallback (parts of words) answered.")
    floor: float | None = strawberry.field(description=(
        "Vector: the query's similarity floor (a cosine, -1 to 1): the channel brings in only items above it, as "
        "no more like the query than unrelated text is below it. Null for the keyword channel or when not computed."))

    @classmethod
    def from_domain(cls, report: service.ChannelReport) -> SearchChannel:
        return cls(ran=report.ran, hits=report.hits, skipped=report.skipped, fallback=report.fallback,
                   floor=report.floor)


@strawberry.type(description="What the rerank stage did for a query (VAULTGRAPH_RERANK_URL).")
class SearchRerank:
    configured: bool = strawberry.field(description="A rerank endpoint is configured; false: hits in fused order.")
    ran: bool = strawberry.field(description="Its scores ordered the top candidates (`SearchHit.rerankScore`).")
    candidates: int = strawberry.field(description="Top fused items sent to it (at most VAULTGRAPH_RERANK_CANDIDATES).")
    model: str | None = strawberry.field(description="The reranking model; null when none is configured.")
    skipped: str | None = strawberry.field(description=(
        "Why it did not run although configured (timeout, HTTP error, an answer it could not read): the hits are in "
        "fused order, and `search` says so with an UNAVAILABLE warning in `extensions.warnings`."))

    @classmethod
    def from_domain(cls, report: RerankReport) -> SearchRerank:
        return cls(configured=report.configured, ran=report.ran, candidates=report.candidates, model=report.model,
                   skipped=report.skipped)


@strawberry.type(description="Search hits with what each channel did, e.g. a vector channel skipped, and why.")
class SearchReport:
    hits: list[SearchHit] = strawberry.field(description="The hits, as `search` returns them.")
    mode: SearchMode = strawberry.field(description="The mode that ran.")
    fusion: Fusion = strawberry.field(description="The fusion that combined the channels.")
    keyword: SearchChannel = strawberry.field(description="What the keyword channel did.")
    vector: SearchChannel = strawberry.field(description="What the vector channel did.")
    terms: list[str] = strawberry.field(description="The words the keyword channel searched for.")
    rerank: SearchRerank = strawberry.field(description="What the rerank stage did.")

    @classmethod
    def from_domain(cls, result: service.SearchResult) -> SearchReport:
        return cls(hits=[SearchHit.from_domain(h) for h in result.hits], mode=result.mode, fusion=result.fusion,
                   keyword=SearchChannel.from_domain(result.keyword), vector=SearchChannel.from_domain(result.vector),
                   terms=list(result.terms), rerank=SearchRerank.from_domain(result.rerank))


@strawberry.type(description="A note that looks related and is not linked yet: computed, never stored.")
class LinkSuggestion:
    target: Item = strawberry.field(description="The item to link to; `acceptSuggestion` makes the link.")
    similarity: float = strawberry.field(description="Cosine similarity of the two notes (or the best chunk).")
    passage: str = strawberry.field(description="The passage of the target that matched best.")

    @classmethod
    def from_domain(cls, suggestion: DomainSuggestion) -> LinkSuggestion:
        return cls(target=item_type(suggestion.target), similarity=suggestion.similarity, passage=suggestion.passage)


@strawberry.type(description="A note an unresolved ref might mean, with its search score.")
class GhostCandidate:
    item: Item = strawberry.field(description="The note it might mean.")
    score: float = strawberry.field(description="Search score, 0-1 (0.35 at least).")


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
