"""Reranking through a `/rerank` endpoint: the shape Cohere, Jina, vLLM (and Infinity, TEI, LiteLLM) serve.

POST `{model, query, documents: [str], top_n}` → `{results: [{index, relevance_score}, …]}`, the results in any
order, `index` into `documents`. Retries follow the openai client's rule (connection errors, 408, 409, 429 and
5xx, with exponential backoff), through tenacity, with one difference: a timeout is not retried. Reranking is the
second stage of an interactive search, so its timeout is the time it may cost; past it, the search answers in its
fused order rather than wait again. What is left after the retries becomes a ModelError, as for chat and
embeddings, so the caller can say why and degrade.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential

from vaultgraph.models.errors import (
    ModelError,
    ModelRequestRejected,
    ModelResponseInvalid,
    ModelUnavailable,
    redact_url,
)

RETRY_STATUSES = frozenset({408, 409, 429})  # and every 5xx: what the openai client retries
MAX_RETRY_WAIT = 2.0  # seconds between two attempts, at most: someone is waiting for the search
_DETAIL_LIMIT = 200


@dataclass(frozen=True)
class RerankConfig:
    """Where the endpoint is and how long it may take. `url` is the full endpoint (…/v1/rerank for vLLM and
    Jina, …/v2/rerank for Cohere)."""

    url: str
    model: str
    api_key: str | None = None
    timeout_seconds: float = 5.0
    max_retries: int = 1

    def __post_init__(self) -> None:
        if self.timeout_seconds <= 0:
            raise ValueError("timeout_seconds must be positive")
        if self.max_retries < 0:
            raise ValueError("max_retries must be 0 or more")


class Reranker(Protocol):
    """What search needs of a reranker: a score per document for one query."""

    @property
    def model_name(self) -> str: ...

    async def rerank(self, query: str, documents: Sequence[str]) -> list[float | None]:
        """One score per document, in order (higher is more relevant); None for one the reranker left out."""
        ...

    async def aclose(self) -> None: ...


class _Retryable(Exception):
    """An attempt that failed in a way another attempt may not: carries the error to raise if none is left."""

    def __init__(self, error: ModelError) -> None:
        super().__init__(error.message)
        self.error = error


class HttpReranker:
    """Relevance scores for (query, document) pairs from the configured endpoint. Owned and closed by the
    runtime; the HTTP client it holds opens connections on first use only."""

    def __init__(self, config: RerankConfig) -> None:
        self.config = config
        self.endpoint = redact_url(config.url)
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._client = httpx.AsyncClient(headers=headers, timeout=config.timeout_seconds)

    @property
    def model_name(self) -> str:
        return self.config.model

    async def aclose(self) -> None:
        await self._client.aclose()

    async def rerank(self, query: str, documents: Sequence[str]) -> list[float | None]:
        """One score per document, in order (higher is more relevant); None for a document the endpoint left
        out of its answer. A ModelError when the endpoint fails, after the retries."""
        if not documents:
            return []
        body = {"model": self.config.model, "query": query, "documents": list(documents), "top_n": len(documents)}
        retrying = AsyncRetrying(
            retry=retry_if_exception(lambda exc: isinstance(exc, _Retryable)),
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=wait_exponential(multiplier=0.1, max=MAX_RETRY_WAIT), reraise=True,
        )
        try:
            payload: object = await retrying(self._attempt, body)
        except _Retryable as exc:
            raise exc.error from exc
        return self._scores(payload, len(documents))

    async def _attempt(self, body: dict[str, object]) -> object:
        try:
            response = await self._client.post(self.config.url, json=body)
        except httpx.TimeoutException as exc:  # not retried: the timeout is the stage's time budget
            timeout = self.config.timeout_seconds
            raise self._unavailable(f"did not answer within {timeout:g} s (VAULTGRAPH_RERANK_TIMEOUT).") from exc
        except httpx.TransportError as exc:
            what = f"could not be reached ({exc.__class__.__name__}){self._tried}."
            raise _Retryable(self._unavailable(what)) from exc
        except httpx.RequestError as exc:  # a body that cannot be decoded, a redirect loop
            raise self._unavailable(f"could not be read ({exc.__class__.__name__}).") from exc
        status = response.status_code
        if status >= 500 or status in RETRY_STATUSES:
            raise _Retryable(self._unavailable(f"answered HTTP {status}{self._tried}.{_detail(response)}"))
        if status in (401, 403):
            raise self._unavailable(f"refused the key (HTTP {status}); check VAULTGRAPH_RERANK_API_KEY.")
        if status >= 400:
            raise ModelRequestRejected(
                f"The rerank endpoint {self.endpoint} rejected the request for model '{self.config.model}' "
                f"(HTTP {status}); check VAULTGRAPH_RERANK_URL and VAULTGRAPH_RERANK_MODEL.{_detail(response)}",
                operation="rerank", model=self.config.model, status_code=status,
            )
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise self._invalid("a body that is not JSON") from exc

    def _scores(self, payload: object, count: int) -> list[float | None]:
        results = payload.get("results") if isinstance(payload, dict) else None
        if not isinstance(results, list):
            raise self._invalid("no `results` list")
        scores: list[float | None] = [None] * count
        for result in results:
            index = result.get("index") if isinstance(result, dict) else None
            score = result.get("relevance_score") if isinstance(result, dict) else None
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
                raise self._invalid(f"a result whose index is not one of the {count} documents")
            if not isinstance(score, int | float) or isinstance(score, bool) or not math.isfinite(score):
                raise self._invalid("a result without a finite `relevance_score`")
            if scores[index] is not None:
                raise self._invalid(f"document {index} scored twice")
            scores[index] = float(score)
        return scores

    @property
    def _tried(self) -> str:
        retries = self.config.max_retries
        return f" (retried {retries} time{'s' if retries != 1 else ''})" if retries else ""

    def _unavailable(self, what: str) -> ModelUnavailable:
        return ModelUnavailable(f"The rerank endpoint {self.endpoint} {what}", operation="rerank",
                                model=self.config.model, retryable=True)

    def _invalid(self, what: str) -> ModelResponseInvalid:
        return ModelResponseInvalid(f"The rerank endpoint {self.endpoint} returned {what}.", operation="rerank",
                                    model=self.config.model, retryable=True)


def _detail(response: httpx.Response) -> str:
    """The server's own explanation (OpenAI's, Cohere's or Jina's error shape), shortened; else nothing."""
    try:
        body = response.json()
    except ValueError:
        return ""
    error = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, dict):
        error = error.get("message") or error.get("detail")
    message = error
    if not isinstance(message, str) or not message.strip():
        return ""
    text = " ".join(message.split())
    return f" The server said: {text[: _DETAIL_LIMIT - 1] + '…' if len(text) > _DETAIL_LIMIT else text}"
