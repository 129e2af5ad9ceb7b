"""The one interface the rest of vaultgraph calls models through, and the factory that picks implementations.

- An endpoint configured (OPENAI_BASE_URL or a key): `OpenAIModelClient` for chat; embeddings from the
  endpoint when an embedding model is named for it, else from the offline model.
- Nothing configured: `LocalModelClient`, offline embeddings and no chat. Callers check `chat_available` and
  fall back (extractive summaries, link classification reported as skipped) instead of catching errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import structlog

from vaultgraph.models.config import ModelConfig
from vaultgraph.models.embedder import Embedder
from vaultgraph.models.errors import ModelUnavailable
from vaultgraph.models.local_embedding import LocalEmbedder
from vaultgraph.models.openai_client import OpenAIModelClient

log = structlog.get_logger(__name__)

__all__ = ["Embedder", "LocalModelClient", "ModelClient", "OpenAIModelClient", "build_model_client"]


class ModelClient(Protocol):
    """Chat and embeddings, whichever backend serves them. Owned and closed by the app's lifespan."""

    @property
    def chat_available(self) -> bool: ...

    @property
    def chat_model_name(self) -> str | None: ...

    @property
    def embedding_model_name(self) -> str: ...

    @property
    def embedding_dimensions(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, same order, each `embedding_dimensions` long."""
        ...

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """`embed` for interactive work (a search's query): its own lane, so it never waits behind the indexing
        batches of an import or of enrichment."""
        ...

    async def chat_text(
        self,
        system: str,
        user: str,
        *,
        temperature: float,
        max_tokens: int | None = None,
        request_timeout: float | None = None,
    ) -> str:
        """The model's answer as text."""
        ...

    async def chat_json(
        self,
        system: str,
        user: str,
        *,
        temperature: float,
        max_tokens: int | None = None,
        request_timeout: float | None = None,
    ) -> object:
        """The JSON value the model answered with; ModelResponseInvalid when it is not JSON."""
        ...

    async def warm_up(self) -> None:
        """Load what is slow to load (the offline model), so the first request does not pay for it."""
        ...

    async def aclose(self) -> None: ...


class LocalModelClient:
    """Offline: the local embedding model, and no chat."""

    chat_available = False
    chat_model_name: str | None = None

    def __init__(self, embedder: LocalEmbedder | None = None) -> None:
        self.embedder = embedder or LocalEmbedder()

    @property
    def embedding_model_name(self) -> str:
        return self.embedder.model_name

    @property
    def embedding_dimensions(self) -> int:
        return self.embedder.dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.embedder.embed(texts)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.embedder.embed_query(texts)

    async def chat_text(
        self,
        system: str,
        user: str,
        *,
        temperature: float,
        max_tokens: int | None = None,
        request_timeout: float | None = None,
    ) -> str:
        raise _no_chat()

    async def chat_json(
        self,
        system: str,
        user: str,
        *,
        temperature: float,
        max_tokens: int | None = None,
        request_timeout: float | None = None,
    ) -> object:
        raise _no_chat()

    async def warm_up(self) -> None:
        await self.embedder.warm_up()

    async def aclose(self) -> None:
        return None


def build_model_client(config: ModelConfig, *, local_embedder: LocalEmbedder | None = None) -> ModelClient:
    """The client the settings ask for. Builds objects only: nothing connects or loads until first use."""
    if config.endpoint_configured and config.remote_embeddings:
        return OpenAIModelClient(config)
    embedder = local_embedder or LocalEmbedder(config.local)
    if config.embedding_dimensions != embedder.dimensions:
        log.warning(
            "embedding_dimensions_ignored",
            configured=config.embedding_dimensions,
            used=embedder.dimensions,
            model=embedder.model_name,
        )
    if config.endpoint_configured:
        return OpenAIModelClient(config, embedder=embedder)
    return LocalModelClient(embedder)


def _no_chat() -> ModelUnavailable:
    return ModelUnavailable(
        "No chat model is configured. Set OPENAI_BASE_URL (and OPENAI_API_KEY if the endpoint needs one) to "
        "an OpenAI-compatible endpoint; until then summaries are extractive and link classification is "
        "skipped.",
        operation="chat",
        model="",
        retryable=False,
    )
