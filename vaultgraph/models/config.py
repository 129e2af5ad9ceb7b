"""What the model layer needs to know, as one frozen dataclass the composition root fills from `Settings`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from vaultgraph.models.local_embedding import OFFLINE_MODELS, LocalEmbeddingConfig

# OpenAI's own endpoint, used when a key is configured without a base URL (what the openai client itself
# does).
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Names that mean "the offline model" when given as the embedding model.
_LOCAL_ALIASES = frozenset({"", "local"} | {n.lower() for m in OFFLINE_MODELS.values() for n in (m.name, m.setting)})


@dataclass(frozen=True)
class ModelConfig:
    """Endpoint, model names and call policy. With neither a base URL nor a key, everything runs offline."""

    base_url: str | None = None
    api_key: str | None = None
    chat_model: str = "gpt-4o-mini"
    embedding_model: str | None = None
    embedding_dimensions: int = 384
    timeout_seconds: float = 60.0
    max_retries: int = 3
    embedding_batch_size: int = 64
    # base64 is what the openai client asks for by default (a quarter of the bytes); "float" for servers that
    # reject it.
    embedding_encoding: Literal["base64", "float"] = "base64"
    # Send `dimensions` with each embedding call (text-embedding-3 can shorten its vectors; most servers
    # refuse it).
    send_dimensions: bool = False
    local: LocalEmbeddingConfig = field(default_factory=LocalEmbeddingConfig)

    def __post_init__(self) -> None:
        if self.timeout_seconds <= 0:
            raise ValueError("timeout_seconds must be positive")
        if self.max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        if self.embedding_batch_size < 1:
            raise ValueError("embedding_batch_size must be at least 1")
        if self.embedding_dimensions < 1:
            raise ValueError("embedding_dimensions must be at least 1")

    @property
    def endpoint_configured(self) -> bool:
        """True when chat (and maybe embeddings) go to an OpenAI-compatible endpoint."""
        return bool(self.base_url) or bool(self.api_key)

    @property
    def endpoint_url(self) -> str:
        return self.base_url or OPENAI_DEFAULT_BASE_URL

    @property
    def remote_embeddings(self) -> bool:
        """True when embeddings come from the endpoint rather than the offline model."""
        name = (self.embedding_model or "").strip().lower()
        return self.endpoint_configured and name not in _LOCAL_ALIASES
