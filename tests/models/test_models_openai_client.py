"""The real `openai` client against a real local OpenAI-compatible server: wire format, retries, timeouts."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.support.openai_server import ChatReply, OpenAICompatibleServer, hashed_embedding
from vaultgraph.models import ModelRequestRejected, ModelResponseInvalid, ModelUnavailable, OpenAIModelClient

pytestmark = pytest.mark.workers

SECRET_PROMPT = "the user's private diary entry"
MakeClient = Callable[..., OpenAIModelClient]


async def test_embeddings_round_trip_through_base64(
    openai_server: OpenAICompatibleServer, make_client: MakeClient
) -> None:
    texts = ["graph databases store edges", "a second text", "third"]
    client = make_client()
    vectors = await client.embed(texts)
    dimensions = openai_server.embedding_dimensions
    assert np.allclose(vectors, [hashed_embedding(text, dimensions) for text in texts], atol=1e-6)
    (request,) = openai_server.requests("embeddings")
    # Left to itself the client asks for base64 and decodes little-endian float32.
    assert request.body == {"model": "test-embed", "input": texts, "encoding_format": "base64"}
    assert request.headers["authorization"] == f"Bearer {client.config.api_key}"


async def test_embeddings_as_floats_when_configured(
    openai_server: OpenAICompatibleServer, make_client: MakeClient
) -> None:
    vectors = await make_client(embedding_encoding="float", send_dimensions=True).embed(["some words"])
    assert np.allclose(vectors[0], hashed_embedding("some words", openai_server.embedding_dimensions))
    body = openai_server.requests("embeddings")[0].body
    assert body["encoding_format"] == "float"
    assert body["dimensions"] == openai_server.embedding_dimensions


async def test_embeddings_are_batched_and_kept_in_order(
    openai_server: OpenAICompatibleServer, make_client: MakeClient
) -> None:
    openai_server.shuffle_embeddings = True  # the server lists data in reverse; `index` says where each goes
    texts = [f"text {i} about topic {i}" for i in range(5)] + ["   "]
    vectors = await make_client(embedding_batch_size=2).embed(texts)
    assert [len(r.body["input"]) for r in openai_server.requests("embeddings")] == [2, 2, 2]
    dimensions = openai_server.embedding_dimensions
    expected = [hashed_embedding(text if text.strip() else " ", dimensions) for text in texts]
    assert np.allclose(vectors, expected, atol=1e-6)


async def test_similar_texts_get_similar_test_vectors() -> None:
    a, b, c = (hashed_embedding(t, 256) for t in ("the cat sat on the mat", "the cat sat", "stock market crash"))
    assert np.dot(a, b) > np.dot(a, c) + 0.3


async def test_wrong_dimensions_are_reported_with_the_fix(
    openai_server: OpenAICompatibleServer, make_client: MakeClient
) -> None:
    served = openai_server.embedding_dimensions
    with pytest.raises(ModelResponseInvalid, match=f"{served}-dimensional vectors where the settings say 1536"):
        await make_client(embedding_dimensions=1536).embed(["hello"])


async def test_chat_returns_the_content(openai_server: OpenAICompatibleServer, make_client: MakeClient) -> None:
    seen: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> str:
        seen.append(body)
        return "a short summary"

    openai_server.on_chat(answer)
    content = await make_client().chat_text("You summarize.", "Document text", temperature=0.2, max_tokens=1536)
    assert content == "a short summary"
    (body,) = seen
    assert body["model"] == "test-chat"
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == 1536
    assert body["messages"] == [
        {"role": "system", "content": "You summarize."},
        {"role": "user", "content": "Document text"},
    ]


async def test_chat_json_parses_the_batch_shape(openai_server: OpenAICompatibleServer, make_client: MakeClient) -> None:
    reply = [{"idx": 1, "summary": "first"}, {"idx": 2, "summary": "second"}]
    openai_server.on_chat(lambda body: "Here you go:\n```json\n" + json.dumps(reply) + "\n```")
    assert await make_client().chat_json("system", "user", temperature=0.2) == reply


async def test_chat_json_refuses_prose_without_quoting_it(
    openai_server: OpenAICompatibleServer, make_client: MakeClient
) -> None:
    openai_server.on_chat(lambda body: f"Sorry, I cannot do that with {SECRET_PROMPT}.")
    with pytest.raises(ModelResponseInvalid, match="did not answer with JSON") as caught:
        await make_client().chat_json("system", SECRET_PROMPT, temperature=0.1)
    assert SECRET_PROMPT not in str(caught.value)
    assert caught.value.retryable


async def test_cut_answer_is_invalid(openai_server: OpenAICompatibleServer, make_client: MakeClient) -> None:
    openai_server.on_chat(lambda body: ChatReply('[{"idx": 1, "summ', finish_reason="length"))
    with pytest.raises(ModelResponseInvalid, match="cut off at max_tokens=10"):
        await make_client().chat_json("system", "user", temperature=0.2, max_tokens=10)


async def test_body_that_is_not_json_is_invalid(openai_server: OpenAICompatibleServer, make_client: MakeClient) -> None:
    openai_server.malformed(times=2)
    client = make_client()
    with pytest.raises(ModelResponseInvalid, match="a body that is not JSON"):
        await client.chat_text("system", "user", temperature=0.2)
    with pytest.raises(ModelResponseInvalid, match="a body that is not JSON"):
        await client.embed(["text"])


async def test_429_with_retry_after_is_retried(openai_server: OpenAICompatibleServer, make_client: MakeClient) -> None:
    openai_server.on_chat(lambda body: "done")
    openai_server.rate_limit(times=1, retry_after="1.5", route="chat")
    started = time.monotonic()
    assert await make_client().chat_text("system", "user", temperature=0.2) == "done"
    elapsed = time.monotonic() - started
    assert openai_server.count("chat") == 2
    # The client's own first backoff is at most 0.5 s: waiting longer means it honoured Retry-After.
    assert elapsed >= 1.4
    assert openai_server.requests("chat")[1].headers["x-stainless-retry-count"] == "1"


async def test_persistent_500_ends_in_model_unavailable(
    openai_server: OpenAICompatibleServer, make_client: MakeClient
) -> None:
    openai_server.fail(times=10, status=500, retry_after="0.01")
    client = make_client(max_retries=2)
    with pytest.raises(ModelUnavailable) as caught:
        await client.chat_text("system", SECRET_PROMPT, temperature=0.2)
    error = caught.value
    assert openai_server.count("chat") == 3
    assert error.retryable and error.status_code == 500 and error.code == "UNAVAILABLE"
    message = str(error)
    assert f"The model endpoint {openai_server.base_url} failed chat calls with HTTP 500" in message
    assert "retried up to 2 times" in message
    assert client.config.api_key
    assert SECRET_PROMPT not in message and client.config.api_key not in message


async def test_slow_endpoint_times_out(openai_server: OpenAICompatibleServer, make_client: MakeClient) -> None:
    openai_server.delay(3.0, times=5)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match=r"did not answer within 0\.3 s \(retried up to 1 times\)") as caught:
        await make_client(timeout_seconds=0.3, max_retries=1).embed(["slow"])
    assert time.monotonic() - started < 2.5
    assert openai_server.count("embeddings") == 2
    assert caught.value.retryable


async def test_per_call_timeout_overrides_the_default(
    openai_server: OpenAICompatibleServer, make_client: MakeClient
) -> None:
    openai_server.delay(0.5, times=1)
    client = make_client(timeout_seconds=0.2, max_retries=0)
    assert await client.chat_text("system", "user", temperature=0.1, request_timeout=5.0) == "ok"


async def test_bad_request_is_not_retried(openai_server: OpenAICompatibleServer, make_client: MakeClient) -> None:
    openai_server.fail(times=1, status=400)
    with pytest.raises(ModelRequestRejected, match=r"rejected the chat request to 'test-chat' \(HTTP 400\)"):
        await make_client().chat_text("system", "user", temperature=0.1)
    assert openai_server.count("chat") == 1


async def test_wrong_key_names_the_setting(make_client: MakeClient) -> None:
    from tests.support.openai_server import run_openai_server
    from vaultgraph.models import ModelConfig, OpenAIModelClient

    with run_openai_server(api_key="the-right-key") as server:
        client = OpenAIModelClient(ModelConfig(base_url=server.base_url, api_key="a-wrong-key", max_retries=2))
        try:
            with pytest.raises(ModelUnavailable, match=r"refused the API key \(HTTP 401\)\. Check OPENAI_API_KEY"):
                await client.chat_text("system", "user", temperature=0.1)
        finally:
            await client.aclose()
        assert server.count() == 1


async def test_unreachable_endpoint_says_so() -> None:
    from vaultgraph.models import ModelConfig, OpenAIModelClient

    client = OpenAIModelClient(ModelConfig(base_url="http://user:pw@127.0.0.1:9/v1?key=x", max_retries=0))
    try:
        with pytest.raises(ModelUnavailable, match="Cannot connect to the model endpoint") as caught:
            await client.chat_text("system", "user", temperature=0.1)
    finally:
        await client.aclose()
    assert "http://127.0.0.1:9/v1 " in str(caught.value)
    assert "pw" not in str(caught.value) and "key=x" not in str(caught.value)
