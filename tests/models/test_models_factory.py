"""Which client the settings give: the endpoint for chat, the endpoint or the offline model for embeddings."""

from __future__ import annotations

import pytest

from tests.support.openai_server import OpenAICompatibleServer
from vaultgraph.models import (
    LocalEmbedder,
    LocalModelClient,
    ModelConfig,
    OpenAIModelClient,
    build_model_client,
)
from vaultgraph.models.config import OPENAI_DEFAULT_BASE_URL
from vaultgraph.models.errors import redact_url

pytestmark = pytest.mark.workers


async def test_endpoint_with_embedding_model_serves_both(openai_server: OpenAICompatibleServer) -> None:
    config = ModelConfig(
        base_url=openai_server.base_url,
        embedding_model="nomic-embed-text",
        embedding_dimensions=openai_server.embedding_dimensions,
    )
    client = build_model_client(config)
    try:
        assert isinstance(client, OpenAIModelClient)
        assert client.chat_available
        assert client.embedding_model_name == "nomic-embed-text"
        assert client.embedding_dimensions == openai_server.embedding_dimensions
        await client.embed(["remote"])
        assert openai_server.count("embeddings") == 1
    finally:
        await client.aclose()


@pytest.mark.parametrize("embedding_model", [None, "", "local"])
async def test_endpoint_without_embedding_model_embeds_offline(
    openai_server: OpenAICompatibleServer, local_embedder: LocalEmbedder, embedding_model: str | None
) -> None:
    config = ModelConfig(base_url=openai_server.base_url, embedding_model=embedding_model)
    client = build_model_client(config, local_embedder=local_embedder)
    try:
        assert isinstance(client, OpenAIModelClient)
        assert client.chat_available
        assert client.chat_model_name == "gpt-4o-mini"
        assert client.embedding_dimensions == 384
        (vector,) = await client.embed(["stays on this machine"])
        assert len(vector) == 384
        assert openai_server.count("embeddings") == 0
        assert await client.chat_text("system", "user", temperature=0.2) == "ok"
    finally:
        await client.aclose()


def test_nothing_configured_is_offline(local_embedder: LocalEmbedder) -> None:
    client = build_model_client(ModelConfig(embedding_model="text-embedding-3-small"), local_embedder=local_embedder)
    assert isinstance(client, LocalModelClient)
    assert not client.chat_available


async def test_a_key_alone_means_openai_itself() -> None:
    config = ModelConfig(api_key="sk-something", embedding_model="text-embedding-3-small")
    assert config.endpoint_url == OPENAI_DEFAULT_BASE_URL
    client = build_model_client(config)
    assert isinstance(client, OpenAIModelClient)
    assert client.endpoint == OPENAI_DEFAULT_BASE_URL
    await client.aclose()


def test_config_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="timeout_seconds"):
        ModelConfig(timeout_seconds=0)
    with pytest.raises(ValueError, match="max_retries"):
        ModelConfig(max_retries=-1)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:secret@localhost:11434/v1?api-key=k#x", "http://localhost:11434/v1"),
        ("https://api.example.com/openai/v1", "https://api.example.com/openai/v1"),
        ("http://[::1]:8080/v1", "http://[::1]:8080/v1"),
        ("not a url", "(unparsable URL)"),
        ("http://host:99999/v1", "(unparsable URL)"),
    ],
)
def test_urls_in_messages_carry_no_credentials(url: str, shown: str) -> None:
    assert redact_url(url) == shown
