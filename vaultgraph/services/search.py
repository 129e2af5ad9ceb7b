"""Search: keyword, vector, hybrid and graph mode over the tenant's documents, notes and chunks.

Both channels run in parallel, each over-fetching ×2 (deeper when the caller's filters eat a page), roll chunk hits
up to their items, and are fused (see services/fusion.py); a keyword candidate the vector channel did not return
is first given its true cosine (services/vector_completion.py). Every hit explains itself: its fused score, each
channel's normalised score, raw score and rank, the fusion used, a snippet with the matched words marked, and in
graph mode the link that brought an item in. When the embedding model is down, hybrid search answers from the
keyword channel alone and says that the vector channel was skipped, and why.

Then, when a reranker is configured, the second stage of services/reranking.py reorders the top fused candidates.
What a caller may ask for (the request, its checks, its filters) is services/search_request.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

import structlog

from vaultgraph.config import Settings
from vaultgraph.domain import Direction, EnrichmentStage, Item, Note, Owner, Principal, Scope, Topic
from vaultgraph.errors import AppError, InvalidInput, Unavailable
from vaultgraph.graph import items as item_cypher
from vaultgraph.graph import links as link_cypher
from vaultgraph.graph import search as cypher
from vaultgraph.graph import topics as topic_cypher
from vaultgraph.graph.search import FULLTEXT_FIELDS, HitFilter, RawHit
from vaultgraph.graph.session import Graph
from vaultgraph.graph.vectors import VectorModel
from vaultgraph.lru import Lru
from vaultgraph.models.client import ModelClient
from vaultgraph.models.rerank import Reranker
from vaultgraph.services.fusion import (
    ChannelHit,
    ChannelScore,
    Fused,
    FusionMethod,
    Normalisation,
    fuse,
    personal_first,
    roll_up,
)
from vaultgraph.services.indexing import strip_frontmatter
from vaultgraph.services.reranking import RerankReport, RerankScore, rerank_stage
from vaultgraph.services.search_request import (
    STANDARD_TYPES,
    SearchMode,
    SearchRequest,
    clean_list,
    hit_filter,
    passes,
    validate,
)
from vaultgraph.services.similarity_floor import Background, null_of
from vaultgraph.services.taxonomy import DEFAULT_TAXONOMY, tenant_taxonomy
from vaultgraph.services.vector_completion import completed
from vaultgraph.text.lucene import fallback_keywords, fallback_query, fulltext_query, query_terms
from vaultgraph.text.snippets import Snippet, make_snippet

log = structlog.get_logger(__name__)
T = TypeVar("T")

OVERFETCH = 2  # each channel brings twice the page, so fusion has candidates the other channel ranks higher
MAX_RAW_HITS = 4000  # how deep a channel digs when filters keep rejecting what the index returns
GRAPH_EXTRA_MAX = 25
GRAPH_HOP_DECAY = 0.5  # an item reached by a link scores half the hit that led to it
RERANK_DOCUMENT_CHARS = 2000  # of title + passage sent per candidate: cross-encoders read ~512 tokens at most


QueryVector = tuple[list[float], VectorModel]  # a query's vector and the model that made it


@dataclass(frozen=True, slots=True)
class SearchConfig:
    fusion: FusionMethod = FusionMethod.WEIGHTED
    normalisation: Normalisation = Normalisation.FLOOR
    keyword_weight: float = 0.4
    vector_weight: float = 0.6
    cache_size: int = 256
    similarity_floor: bool = True
    vector_completion: bool = True  # keyword candidates the vector channel missed get their cosine (fusion)
    rerank_candidates: int = 50


@dataclass(frozen=True, slots=True)
class ViaLink:
    """The link that brought a graph-mode item in, as drawn: `from` → `to`, whichever way it points."""

    link_id: str
    type: str
    source: Item
    target: Item


@dataclass(frozen=True, slots=True)
class SearchHit:
    item: Item
    score: float
    keyword: ChannelScore | None
    vector: ChannelScore | None
    fusion: FusionMethod
    passage: str  # the best chunk's text, else the item's own (a note's body, a document's summary)
    terms: tuple[str, ...]  # the query's words
    via: tuple[ViaLink, ...] = ()
    rerank: RerankScore | None = None  # None: reranking off, failed, or the hit was beyond the candidates
    topic: Topic | None = None  # the topic of the document that matched; None when no topic did

    def snippet(self) -> Snippet:
        """The passage cut around its matches, words marked; computed on demand (a page of them costs ms)."""
        return make_snippet(self.passage, self.terms)

    @property
    def vector_available(self) -> bool:
        """Whether the item has its vector, so the vector channel could find it: a note once indexed (a deferred
        save or import queues it first), a document once enrichment is done."""
        return has_vector(self.item)


@dataclass(frozen=True, slots=True)
class ChannelReport:
    ran: bool
    hits: int = 0
    skipped: str | None = None  # why the channel did not run, when it should have
    fallback: bool = False  # keyword only: Lucene found no word and the substring fallback answered
    floor: float | None = None  # vector only: the similarity floor of this query (services/similarity_floor.py)


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: list[SearchHit]
    mode: SearchMode
    fusion: FusionMethod
    keyword: ChannelReport
    vector: ChannelReport
    terms: tuple[str, ...] = field(default=())
    rerank: RerankReport = field(default=RerankReport())


def search_config(settings: Settings) -> SearchConfig:
    return SearchConfig(
        fusion=FusionMethod(settings.search_fusion.upper()), normalisation=Normalisation(settings.search_normalisation),
        keyword_weight=settings.search_keyword_weight,
        vector_weight=settings.search_vector_weight, cache_size=settings.search_query_cache,
        similarity_floor=settings.search_similarity_floor, rerank_candidates=settings.rerank_candidates,
        vector_completion=settings.search_vector_completion,
    )


class QueryEmbeddings:
    """Query vectors through the model interface, with a small LRU cache for repeated queries."""

    def __init__(self, models: ModelClient, size: int) -> None:
        self.models = models
        self._cache: Lru[tuple[str, str], list[float]] = Lru(size)

    async def embed(self, text: str) -> list[float]:
        key = (self.models.embedding_model_name, text)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        [vector] = await self.models.embed_query([text])  # its own lane: never behind indexing batches
        self._cache.put(key, vector)
        return vector


def has_vector(item: Item) -> bool:
    if isinstance(item, Note):
        return item.indexed
    return item.enrichment.stage is EnrichmentStage.DONE


def item_text(item: Item) -> str:
    """What a snippet is cut from when no chunk matched: a note's body, a document's summary, else the title."""
    if isinstance(item, Note):
        return strip_frontmatter(item.body).strip() or item.title
    return item.summary or item.title


def rerank_text(hit: SearchHit) -> str:
    """What the reranker reads of a candidate: its title and best passage, cut to RERANK_DOCUMENT_CHARS."""
    return f"{hit.item.title}\n{hit.passage}"[:RERANK_DOCUMENT_CHARS]


async def deepen(fetch: Callable[[int], Awaitable[list[RawHit]]], want: int) -> list[ChannelHit]:
    """Ask the index for more until `want` visible items are found, the index runs dry, or MAX_RAW_HITS."""
    limit = min(want * 2, MAX_RAW_HITS)  # chunks of one item take several rows
    while True:
        rows = await fetch(limit)
        hits = roll_up((row.item_id, row.score, row.chunk_text, row.topic_id) for row in rows if row.visible)
        if len(hits) >= want or len(rows) < limit or limit >= MAX_RAW_HITS:
            return hits[:want]
        limit = min(limit * 2, MAX_RAW_HITS)


class SearchService:
    def __init__(self, graph: Graph, models: ModelClient, config: SearchConfig | None = None,
                 workspace_root: Path | None = None, reranker: Reranker | None = None) -> None:
        self.graph = graph
        self.config = config or SearchConfig()
        self.reranker = reranker
        self.workspace_root = workspace_root  # where tenants' taxonomies live; None: the default taxonomy
        self.embeddings = QueryEmbeddings(models, self.config.cache_size)
        self.background = Background(models)

    async def check_types(self, principal: Principal, where: HitFilter) -> None:
        """INVALID_INPUT naming `types` for a type filter value that can never match: not Document or Note, not a
        standard note kind or document type, and not the kind or type of any item the caller can see."""
        unknown = sorted({kind for kind in where.kinds or [] if kind not in STANDARD_TYPES})
        if unknown:
            unknown = sorted(set(unknown) - await self.graph.read(
                cypher.types_in_use, principal.tenant_id, unknown, principal.visible_owner_keys()))
        if unknown:
            raise InvalidInput("types", f"unknown type {', '.join(map(repr, unknown))}: give Document, Note, a note "
                                        "kind (note, daily, meeting…) or a document type (markdown, json…) in use")

    async def check_categories(self, principal: Principal, categories: Sequence[str] | None) -> list[str] | None:
        """The taxonomy's spelling of each category filter value; INVALID_INPUT naming `categories` and listing the
        tenant's categories when one is unknown. None (no filter) for none given."""
        cleaned = clean_list(categories, "categories")
        if cleaned is None:
            return None
        taxonomy = DEFAULT_TAXONOMY if self.workspace_root is None else await tenant_taxonomy(
            self.workspace_root, principal.tenant_id)
        return taxonomy.known(cleaned, "categories")

    async def search(self, principal: Principal, request: SearchRequest) -> SearchResult:
        validate(request)
        where = hit_filter(principal, request, await self.check_categories(principal, request.categories))
        await self.check_types(principal, where)
        terms = query_terms(request.query)
        want = request.limit * OVERFETCH
        reranker = self.reranker if request.rerank else None
        if reranker is not None:  # the channels bring at least the candidates the reranker is to see
            want = max(want, self.config.rerank_candidates)
        method = request.fusion or self.config.fusion
        use_keyword = request.mode is not SearchMode.VECTOR
        use_vector = request.mode is not SearchMode.KEYWORD
        (keyword, fallback), (vector, skipped, floor, query) = await asyncio.gather(
            self._keyword(terms, where, want) if use_keyword else _nothing(False),
            self._vector(request.query.strip(), where, want, required=request.mode is SearchMode.VECTOR)
            if use_vector else _no_vector(),
        )
        vector = above_floor(vector, floor, {hit.item_id for hit in keyword})
        fusing = vector
        if self.config.vector_completion and query is not None and keyword:
            fusing = await completed(self.graph, where.tenant, *query, keyword, vector)
        fused = fuse(keyword, fusing, method, self.config.keyword_weight, self.config.vector_weight,
                     normalisation=self.config.normalisation, vector_floor=floor)
        fused = await self._merge_rules(principal, fused)
        if request.min_score is not None:
            fused = [f for f in fused if f.score >= request.min_score]
        depth = request.limit if reranker is None else max(request.limit, self.config.rerank_candidates)
        fused = fused[:depth]
        items = await self.graph.read(item_cypher.items_by_ids, principal.tenant_id, [f.item_id for f in fused])
        topic_ids = [f.topic_id for f in fused if f.topic_id is not None]
        topics = await self.graph.read(topic_cypher.topics_by_ids, principal.tenant_id, topic_ids) if topic_ids else {}
        hits = []
        for entry in fused:
            item = items.get(entry.item_id)
            if item is None:  # deleted between the channel query and this read
                continue
            hits.append(SearchHit(item, entry.score, entry.keyword, entry.vector, method,
                                  entry.passage or item_text(item), tuple(terms),
                                  topic=topics.get(entry.topic_id) if entry.topic_id else None))
        hits, rerank = await rerank_stage(reranker, request.query.strip(), hits, self.config.rerank_candidates,
                                          rerank_text, lambda hit, score: replace(hit, rerank=score))
        hits = hits[: request.limit]
        if request.mode is SearchMode.GRAPH and hits:
            hits.extend(await self._neighbours(principal, where, hits, terms))
        return SearchResult(
            hits=hits, mode=request.mode, fusion=method,
            keyword=ChannelReport(ran=use_keyword, hits=len(keyword), fallback=fallback),
            vector=ChannelReport(ran=use_vector and skipped is None, hits=len(vector), skipped=skipped, floor=floor),
            terms=tuple(terms), rerank=rerank,
        )

    async def _merge_rules(self, principal: Principal, fused: list[Fused]) -> list[Fused]:
        """GoClaw's merge rules for a caller with a personal space (an agent): its own items ×1.2, and its
        personal copy of a text instead of a shared or team one."""
        if principal.agent_id is None or not fused:
            return fused
        identities = await self.graph.read(cypher.item_identities, principal.tenant_id, [f.item_id for f in fused])
        return personal_first(fused, identities, Owner(Scope.PERSONAL, agent_id=principal.agent_id).key)

    async def _keyword(self, terms: list[str], where: HitFilter, want: int) -> tuple[list[ChannelHit], bool]:
        """Lucene first; when it finds nothing, the substring fallback (the second value says it answered)."""
        lucene = fulltext_query(terms, FULLTEXT_FIELDS, where.tenant)
        hits: list[ChannelHit] = []
        if lucene is not None:
            hits = await deepen(lambda n: self.graph.read(cypher.keyword_hits, lucene, n, where), want)
        if hits:
            return hits, False
        keywords = fallback_keywords(terms)
        candidates = fallback_query(keywords, FULLTEXT_FIELDS, where.tenant)
        if candidates is None:
            return [], False
        hits = await deepen(lambda n: self.graph.read(cypher.fallback_hits, candidates, keywords, n, where), want)
        return hits, bool(hits)

    async def _vector(
        self, query: str, where: HitFilter, want: int, required: bool
    ) -> tuple[list[ChannelHit], str | None, float | None, QueryVector | None]:
        """The vector channel: its hits, why it was skipped (the embedding model failed; UNAVAILABLE instead when
        it is the only channel), the query's similarity floor (None when it could not be computed), and the query's
        vector with the model that made it (None when skipped)."""
        try:
            vector = await self.embeddings.embed(query)
        except AppError as exc:
            if required:
                raise Unavailable(f"vector search is unavailable: {exc.message}") from exc
            log.warning("vector channel skipped", error=exc.message[:300])
            return [], exc.message, None, None
        model = VectorModel(self.embeddings.models.embedding_model_name, len(vector))
        (hits, floor) = await asyncio.gather(
            deepen(lambda n: self.graph.read(cypher.vector_hits, vector, model, n, where), want),
            self.similarity_floor(vector, where.tenant),
        )
        return hits, None, floor, (vector, model)

    async def similarity_floor(self, vector: list[float], tenant: str) -> float | None:
        """The cosine below which a neighbour of `vector` among the tenant's items is no more alike than unrelated
        text is (services/similarity_floor.py); None when the setting is off or the sample cannot be embedded."""
        if not self.config.similarity_floor:
            return None
        try:
            background = await self.background.vectors()
        except AppError as exc:  # the query was embedded, the sample not: no floor rather than no search
            log.warning("similarity floor skipped", error=exc.message[:300])
            return None
        return null_of(vector, background).floor(await self.graph.read(cypher.item_count, tenant))

    async def _neighbours(
        self, principal: Principal, where: HitFilter, hits: list[SearchHit], terms: list[str]
    ) -> list[SearchHit]:
        """Graph mode: one hop both ways from the hits, at most GRAPH_EXTRA_MAX new items, each with its link.

        The request's scope, type, tag and category filters apply to them; `minScore` does not (it chose the entry
        points, and an item reached by a link is there as context, scored at half its entry point)."""
        entries = {hit.item.id: hit for hit in hits}
        rows = await self.graph.read(
            link_cypher.bfs_level, Direction.BOTH, tenant=principal.tenant_id, frontier=list(entries),
            visited=list(entries), types=None, ownerKeys=principal.visible_owner_keys(), ranked=True,
        )
        extras: dict[str, SearchHit] = {}
        for row in rows:
            item: Item = row["item"]
            if item.id in extras or item.id in entries or not passes(item, where):
                continue
            entry = entries[row["fid"]]
            source, target = (entry.item, item) if row["outgoing"] else (item, entry.item)
            extras[item.id] = SearchHit(
                item, entry.score * GRAPH_HOP_DECAY, None, None, entry.fusion, item_text(item), tuple(terms),
                via=(*entry.via, ViaLink(row["linkId"], row["type"], source, target)),
            )
            if len(extras) == GRAPH_EXTRA_MAX:
                break
        return list(extras.values())


def above_floor(vector: list[ChannelHit], floor: float | None, keyword_ids: set[str]) -> list[ChannelHit]:
    """The vector hits the channel may bring in: those above the floor. An item the keyword channel found keeps
    its vector hit even below it: the floor decides what the vector channel adds (under the default normalisation
    such a hit scores 0 on the vector side; under the others its cosine still counts)."""
    if floor is None:
        return vector
    return [hit for hit in vector if hit.raw > floor or hit.item_id in keyword_ids]


async def _nothing(note: T) -> tuple[list[ChannelHit], T]:
    return [], note


async def _no_vector() -> tuple[list[ChannelHit], str | None, float | None, QueryVector | None]:
    return [], None, None, None
