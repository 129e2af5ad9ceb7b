"""Fixtures of the model tests: a real OpenAI-compatible server on loopback, clients wired to it, and the
offline embedding model loaded once per session."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from vaultgraph.models import LocalEmbedder, ModelConfig, OpenAIModelClient

TEST_DIMENSIONS = 64  # small vectors keep the wire traffic of these tests small

MakeClient = Callable[..., OpenAIModelClient]


@pytest.fixture(scope="session")
def openai_server_session() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server(embedding_dimensions=TEST_DIMENSIONS) as server:
        yield server


@pytest.fixture
def openai_server(openai_server_session: OpenAICompatibleServer) -> OpenAICompatibleServer:
    """The session's server, with no requests, faults or chat handler left over from another test."""
    openai_server_session.reset()
    return openai_server_session


@pytest.fixture(scope="session")
def local_embedder() -> LocalEmbedder:
    embedder = LocalEmbedder()
    embedder.load()
    return embedder


def model_config(server: OpenAICompatibleServer, **overrides: Any) -> ModelConfig:
    values: dict[str, Any] = {
        "base_url": server.base_url,
        "api_key": "sk-test-not-a-secret",
        "chat_model": "test-chat",
        "embedding_model": "test-embed",
        "embedding_dimensions": server.embedding_dimensions,
        "timeout_seconds": 5.0,
        "max_retries": 2,
    }
    values.update(overrides)
    return ModelConfig(**values)


@pytest.fixture
async def make_client(openai_server: OpenAICompatibleServer) -> AsyncIterator[MakeClient]:
    """Build OpenAIModelClients against the test server (settings overridable); all closed after the test."""
    clients: list[OpenAIModelClient] = []

    def make(**overrides: Any) -> OpenAIModelClient:
        client = OpenAIModelClient(model_config(openai_server, **overrides))
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()
