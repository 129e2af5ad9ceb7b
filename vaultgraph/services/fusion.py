"""Fusing the keyword and vector channels into one ranking. Pure functions over channel hits.

Each channel is first rolled up to items (a chunk hit counts for its item; the item keeps its best score and that
chunk's text) and normalised to [0, 1] (`Normalisation`). By default (FLOOR) each channel runs from its natural
zero to its natural top: keyword scores (BM25, which has no top) ÷ the best hit's, vector scores from the query's
similarity floor (services/similarity_floor.py: what unrelated text scores, 0.0) to a perfect match (cosine 1, 1.0).
The weights then mean what they say whatever the model's cosine range (all-MiniLM's cosines crowd into 0.2-0.7,
which gave the vector channel less than its 0.6 when taken as they are), and a query whose nearest vectors stand
only a little above the floor gives the vector channel little say, instead of stretching its weak best hit to 1.0
(the first FLOOR did: 0.716 nDCG@10 on SciFact's held-out claims against 0.735, bench/README.md). The others,
measured there too: keyword ÷ best with cosines as they are (max-cosine, the first default), min-max over each
channel's candidates (its worst candidate 0.0, degenerate for two or three candidates), Φ(z-score). Then either

- WEIGHTED: `wk·keyword + wv·vector` (weights rescaled to sum to 1); an item found by both channels adds up, and
  when only one channel has results, its weight is 1.0 (GoClaw's merge rules); or
- RRF: reciprocal rank fusion, `Σ 1/(k + rank)` with k = 60, divided by its best possible value (rank 1 in every
  channel that returned something) so that scores, like weighted ones, lie in [0, 1] and `minScore` means the same.

Then GoClaw's merge rules for a caller with a personal space (`personal_first`): the caller's own personal items
score ×1.2 (so a boosted score may exceed 1), and a text found both in the caller's personal space and in a
shared or team scope appears once, as the personal item.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

from vaultgraph.graph.search import ItemIdentity

RRF_K = 60
PERSONAL_BOOST = 1.2  # GoClaw's per-user boost
_PHI = NormalDist()


class FusionMethod(enum.Enum):
    WEIGHTED = "WEIGHTED"
    RRF = "RRF"


class Normalisation(enum.Enum):
    """How weighted fusion puts each channel's scores in [0, 1] (bench/README.md measures them)."""

    FLOOR = "floor"  # keyword ÷ its best; vector from the query's similarity floor (0) to cosine 1 (1)
    MAX_COSINE = "max-cosine"  # keyword ÷ the channel's best; cosines as they are
    MIN_MAX = "min-max"  # each channel's candidates spread over [0, 1], worst to best
    Z_SCORE = "z-score"  # each channel standardised over its candidates, then Φ(z) (the normal CDF)


@dataclass(frozen=True, slots=True)
class ChannelHit:
    """One item in one channel: its best raw score over the item and its chunks, and that chunk's text."""

    item_id: str
    raw: float
    passage: str | None = None  # the best chunk's text; None when the item itself scored best
    topic_id: str | None = None  # the best-scoring topic of the item among the rows, if one of them was a topic


@dataclass(frozen=True, slots=True)
class ChannelScore:
    score: float  # normalised to [0, 1]
    raw: float  # as the channel gave it: BM25 for keyword, cosine for vector
    rank: int  # 1-based, within the channel


@dataclass(frozen=True, slots=True)
class Fused:
    item_id: str
    score: float
    keyword: ChannelScore | None
    vector: ChannelScore | None
    passage: str | None
    topic_id: str | None = None  # the topic that matched (the keyword channel's, else the vector channel's)


def roll_up(rows: Iterable[tuple[str, float, str | None, str | None]]) -> list[ChannelHit]:
    """(item id, raw score, chunk text or None, topic id or None) rows → one hit per item, best first, with its
    best row's text and its best topic row's id; ties keep row order."""
    best: dict[str, ChannelHit] = {}
    topics: dict[str, tuple[float, str]] = {}
    for item_id, raw, passage, topic_id in rows:
        current = best.get(item_id)
        if current is None or raw > current.raw:
            best[item_id] = ChannelHit(item_id, raw, passage)
        if topic_id is not None and (item_id not in topics or raw > topics[item_id][0]):
            topics[item_id] = (raw, topic_id)
    hits = [replace(hit, topic_id=topics[hit.item_id][1]) if hit.item_id in topics else hit for hit in best.values()]
    return sorted(hits, key=lambda hit: -hit.raw)


def complete(vector: Sequence[ChannelHit], keyword: Sequence[ChannelHit],
             cosines: Mapping[str, float]) -> list[ChannelHit]:
    """The vector channel's hits with each keyword candidate it did not return added at its exact cosine
    (`cosines`: item id → the best cosine of its vector and its chunks', as the channel's roll-up takes), best first.

    The channel returns only its top k above the similarity floor, so a keyword candidate ranked below k is missing
    for want of depth, not of similarity; scoring it 0 rates it as unlike the query as unrelated text is. An item
    with no vector of the query's model (not indexed yet) stays missing."""
    returned = {hit.item_id for hit in vector}
    added = [ChannelHit(hit.item_id, cosines[hit.item_id]) for hit in keyword
             if hit.item_id not in returned and hit.item_id in cosines]
    return sorted([*vector, *added], key=lambda hit: -hit.raw)


def normalise_by_max(hits: Sequence[ChannelHit]) -> dict[str, ChannelScore]:
    """Scores divided by the channel's best (the best hit scores 1.0); ranks in the given order."""
    top = max((hit.raw for hit in hits), default=0.0)
    return {hit.item_id: ChannelScore(hit.raw / top if top > 0 else 0.0, hit.raw, rank)
            for rank, hit in enumerate(hits, start=1)}


def normalise_cosine(hits: Sequence[ChannelHit]) -> dict[str, ChannelScore]:
    """Cosine similarities as they are, negatives floored at 0 (nothing unlike the query scores above nothing)."""
    return {hit.item_id: ChannelScore(min(1.0, max(0.0, hit.raw)), hit.raw, rank)
            for rank, hit in enumerate(hits, start=1)}


def normalise_min_max(hits: Sequence[ChannelHit]) -> dict[str, ChannelScore]:
    """The channel's best 1.0, its worst candidate 0.0 (all 1.0 when they tie)."""
    top = max((hit.raw for hit in hits), default=0.0)
    low = min((hit.raw for hit in hits), default=0.0)
    spread = top - low
    return {hit.item_id: ChannelScore((hit.raw - low) / spread if spread > 0 else 1.0, hit.raw, rank)
            for rank, hit in enumerate(hits, start=1)}


def normalise_z(hits: Sequence[ChannelHit]) -> dict[str, ChannelScore]:
    """Φ((raw - mean) / std) over the channel's candidates: how far above its own crowd a hit stands."""
    if not hits:
        return {}
    mean = sum(hit.raw for hit in hits) / len(hits)
    std = math.sqrt(sum((hit.raw - mean) ** 2 for hit in hits) / len(hits))
    return {hit.item_id: ChannelScore(_PHI.cdf((hit.raw - mean) / std) if std > 0 else 1.0, hit.raw, rank)
            for rank, hit in enumerate(hits, start=1)}


def normalise_from(hits: Sequence[ChannelHit], zero: float) -> dict[str, ChannelScore]:
    """Cosines: `zero` (what unrelated text scores: the similarity floor) → 0.0, a perfect match (1) → 1.0; below
    zero 0.0."""
    spread = 1.0 - zero
    return {hit.item_id: ChannelScore(min(1.0, max(0.0, (hit.raw - zero) / spread)) if spread > 0 else 1.0, hit.raw,
                                      rank)
            for rank, hit in enumerate(hits, start=1)}


NORMALISERS = {
    Normalisation.MAX_COSINE: (normalise_by_max, normalise_cosine),
    Normalisation.MIN_MAX: (normalise_min_max, normalise_min_max),
    Normalisation.Z_SCORE: (normalise_z, normalise_z),
}


def fuse(keyword: Sequence[ChannelHit], vector: Sequence[ChannelHit], method: FusionMethod,
         keyword_weight: float = 0.4, vector_weight: float = 0.6, rrf_k: int = RRF_K,
         normalisation: Normalisation = Normalisation.MAX_COSINE, vector_floor: float | None = None) -> list[Fused]:
    """Both channels (best first) → one list, best first; ties by best channel rank, then id (deterministic).
    `vector_floor`: the query's similarity floor, the zero of the vector channel under Normalisation.FLOOR."""
    if normalisation is Normalisation.FLOOR:
        kw = normalise_by_max(keyword)
        vec = normalise_from(vector, max(0.0, vector_floor or 0.0))
    else:
        keyword_scores, vector_scores = NORMALISERS[normalisation]
        kw = keyword_scores(keyword)
        vec = vector_scores(vector)
    passages = {hit.item_id: hit.passage for hit in vector} | {h.item_id: h.passage for h in keyword if h.passage}
    topics = {h.item_id: h.topic_id for h in vector if h.topic_id} | {h.item_id: h.topic_id for h in keyword
                                                                       if h.topic_id}
    rrf = method is FusionMethod.RRF
    scores = _rrf(kw, vec, rrf_k) if rrf else _weighted(kw, vec, keyword_weight, vector_weight)
    fused = [Fused(item_id, score, kw.get(item_id), vec.get(item_id), passages.get(item_id), topics.get(item_id))
             for item_id, score in scores.items()]
    return ranked(fused)


def personal_first(fused: Sequence[Fused], identities: Mapping[str, ItemIdentity], own_key: str,
                   boost: float = PERSONAL_BOOST) -> list[Fused]:
    """GoClaw's merge rules over a fused list: the caller's own personal items (owner key `own_key`) boosted,
    and any other item holding the same text (content hash) as one of them dropped; best first again."""
    own_texts = {identity.content_hash for item_id, identity in identities.items()
                 if identity.owner_key == own_key and identity.content_hash is not None}
    merged = []
    for entry in fused:
        identity = identities.get(entry.item_id)
        if identity is None:  # deleted since the channel query: the item read drops it
            merged.append(entry)
        elif identity.owner_key == own_key:
            merged.append(replace(entry, score=entry.score * boost))
        elif identity.content_hash is None or identity.content_hash not in own_texts:
            merged.append(entry)
    return ranked(merged)


def _weighted(kw: dict[str, ChannelScore], vec: dict[str, ChannelScore], wk: float, wv: float) -> dict[str, float]:
    if not kw:
        wk, wv = 0.0, 1.0
    elif not vec:
        wk, wv = 1.0, 0.0
    else:
        total = wk + wv
        wk, wv = (wk / total, wv / total) if total > 0 else (0.5, 0.5)
    scores: dict[str, float] = {}
    for item_id in [*kw, *vec]:
        if item_id not in scores:
            k = kw[item_id].score if item_id in kw else 0.0
            v = vec[item_id].score if item_id in vec else 0.0
            scores[item_id] = wk * k + wv * v
    return scores


def _rrf(kw: dict[str, ChannelScore], vec: dict[str, ChannelScore], k: int) -> dict[str, float]:
    channels = [c for c in (kw, vec) if c]
    best = len(channels) / (k + 1)
    scores: dict[str, float] = {}
    for channel in channels:
        for item_id, entry in channel.items():
            scores[item_id] = scores.get(item_id, 0.0) + 1.0 / (k + entry.rank)
    return {item_id: score / best for item_id, score in scores.items()}


def ranked(fused: Iterable[Fused]) -> list[Fused]:
    """Best first; ties by best channel rank, then id (deterministic)."""
    return sorted(fused, key=lambda f: (-f.score, _best_rank(f), f.item_id))


def _best_rank(fused: Fused) -> int:
    return min(entry.rank for entry in (fused.keyword, fused.vector) if entry is not None)
