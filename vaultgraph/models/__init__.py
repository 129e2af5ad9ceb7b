"""Chat and embeddings: an OpenAI-compatible endpoint when configured, else the offline embedding model."""

from vaultgraph.models.client import Embedder, LocalModelClient, ModelClient, build_model_client
from vaultgraph.models.config import ModelConfig
from vaultgraph.models.errors import (
    ModelError,
    ModelRequestRejected,
    ModelResponseInvalid,
    ModelUnavailable,
)
from vaultgraph.models.json_reply import parse_json_reply
from vaultgraph.models.local_embedding import LocalEmbedder, LocalEmbeddingConfig
from vaultgraph.models.openai_client import OpenAIModelClient

__all__ = [
    "Embedder",
    "LocalEmbedder",
    "LocalEmbeddingConfig",
    "LocalModelClient",
    "ModelClient",
    "ModelConfig",
    "ModelError",
    "ModelRequestRejected",
    "ModelResponseInvalid",
    "ModelUnavailable",
    "OpenAIModelClient",
    "build_model_client",
    "parse_json_reply",
]
