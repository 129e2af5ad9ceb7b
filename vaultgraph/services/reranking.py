"""Reranking, EverOS's second stage of search: the top fused candidates in a reranker's order.

The top `candidates` fused hits go to the reranker as title + best passage and come back first, in its order, each
with its score and rank; any it did not score, then the hits beyond the candidates, follow in fused order. `score`
stays the fused score, which `minScore` filtered on before. A failing reranker leaves the fused order and says why
(`RerankReport.skipped`), never an error: reranking improves an answer that fusion has already given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import structlog

from vaultgraph.errors import AppError
from vaultgraph.models.rerank import Reranker

log = structlog.get_logger(__name__)
# A search hit; generic so that this module needs nothing of search.py, which it serves.
H = TypeVar("H")


@dataclass(frozen=True, slots=True)
class RerankScore:
    score: float  # as the reranker gave it (Cohere, Jina and vLLM answer 0-1)
    rank: int  # 1-based, among the candidates reranked


@dataclass(frozen=True, slots=True)
class RerankReport:
    configured: bool = False
    ran: bool = False  # the reranker's scores ordered the candidates
    candidates: int = 0  # items sent to it
    model: str | None = None
    skipped: str | None = None  # why it did not run when configured: the reranker failed (the order is fused)


def reranked(hits: Sequence[H], scores: Sequence[float | None], mark: Callable[[H, RerankScore], H]) -> list[H]:
    """The candidates (`hits[:len(scores)]`) by score, best first, ties in fused order, each marked with its score,
    then any the reranker did not score, then the rest of `hits`, both in fused order."""
    head = list(zip(hits, scores, strict=False))
    scored = sorted(((hit, score) for hit, score in head if score is not None), key=lambda pair: -pair[1])
    return [*(mark(hit, RerankScore(score, rank)) for rank, (hit, score) in enumerate(scored, start=1)),
            *(hit for hit, score in head if score is None), *hits[len(head):]]


async def rerank_stage(reranker: Reranker | None, query: str, hits: list[H], candidates: int,
                       text: Callable[[H], str], mark: Callable[[H, RerankScore], H]) -> tuple[list[H], RerankReport]:
    """The hits with the top `candidates` in the reranker's order (it reads `text` of each; `mark` gives a hit its
    rerank score); the fused order, and why, when it fails."""
    if reranker is None:
        return hits, RerankReport()
    head = hits[:candidates]
    model = reranker.model_name
    if not head:
        return hits, RerankReport(configured=True, model=model)
    try:
        scores = await reranker.rerank(query, [text(hit) for hit in head])
    except AppError as exc:
        log.warning("rerank skipped", error=exc.message[:300])
        return hits, RerankReport(configured=True, candidates=len(head), model=model, skipped=exc.message)
    return reranked(hits, scores, mark), RerankReport(configured=True, ran=True, candidates=len(head), model=model)
