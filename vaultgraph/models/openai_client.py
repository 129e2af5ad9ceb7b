"""Chat and embeddings through the `openai` client, against any OpenAI-compatible endpoint.

Retries are the client's own: 408, 409, 429 and 5xx, connection errors and timeouts, with exponential backoff
that defers to a `Retry-After` (or `retry-after-ms`) header of up to two minutes. What is left after the
retries becomes a ModelError (see `openai_errors.py`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import openai
from openai.types.chat import ChatCompletionMessageParam

from vaultgraph.models.errors import ModelError, ModelResponseInvalid, Operation, redact_url
from vaultgraph.models.json_reply import parse_json_reply
from vaultgraph.models.openai_errors import translate_openai_error

if TYPE_CHECKING:
    from vaultgraph.models.config import ModelConfig
    from vaultgraph.models.embedder import Embedder

# No key is a valid setup for local servers (Ollama, llama.cpp, vLLM), but the openai client insists on one
# and would otherwise read OPENAI_API_KEY from the environment behind the settings' back.
_NO_KEY = "no-key"


class OpenAIModelClient:
    """Chat through the endpoint; embeddings too, unless an `embedder` (the offline model) is given."""

    chat_available = True

    def __init__(self, config: ModelConfig, *, embedder: Embedder | None = None) -> None:
        self.config = config
        self.endpoint = redact_url(config.endpoint_url)
        self._embedder = embedder
        self._client = openai.AsyncOpenAI(
            base_url=config.endpoint_url,
            api_key=config.api_key or _NO_KEY,
            max_retries=config.max_retries,
            timeout=config.timeout_seconds,
        )

    @property
    def chat_model_name(self) -> str | None:
        return self.config.chat_model

    @property
    def embedding_model_name(self) -> str:
        if self._embedder is not None:
            return self._embedder.model_name
        return self.config.embedding_model or ""

    @property
    def embedding_dimensions(self) -> int:
        if self._embedder is not None:
            return self._embedder.dimensions
        return self.config.embedding_dimensions

    async def warm_up(self) -> None:
        if self._embedder is not None:
            await self._embedder.warm_up()

    async def aclose(self) -> None:
        await self._client.close()

    async def chat_text(
        self,
        system: str,
        user: str,
        *,
        temperature: float,
        max_tokens: int | None = None,
        request_timeout: float | None = None,
    ) -> str:
        """The assistant's answer to one system + user exchange."""
        model = self.config.chat_model
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        try:
            completion = await self._client.chat.completions.create(
                model=model,
                messages=messages,
                temperature=temperature,
                max_tokens=openai.omit if max_tokens is None else max_tokens,
                timeout=openai.not_given if request_timeout is None else request_timeout,
            )
        except openai.OpenAIError as exc:
            raise self._translate(exc, "chat", model, request_timeout) from exc
        except ValueError as exc:  # the client lets a body that is not JSON escape as JSONDecodeError
            raise self._unreadable("chat", model, exc) from exc
        if not completion.choices:
            raise self._invalid("chat", model, "an answer without choices")
        choice = completion.choices[0]
        if choice.finish_reason == "length":
            limit = "the model's own limit" if max_tokens is None else f"max_tokens={max_tokens}"
            raise self._invalid("chat", model, f"an answer cut off at {limit}")
        content = choice.message.content
        if not content or not content.strip():
            reason = "a refusal" if choice.message.refusal else "an empty answer"
            raise self._invalid("chat", model, reason)
        return content

    async def chat_json(
        self,
        system: str,
        user: str,
        *,
        temperature: float,
        max_tokens: int | None = None,
        request_timeout: float | None = None,
    ) -> object:
        """The JSON value the model answered with; ModelResponseInvalid when there is none."""
        content = await self.chat_text(
            system, user, temperature=temperature, max_tokens=max_tokens, request_timeout=request_timeout
        )
        return parse_json_reply(content, model=self.config.chat_model)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order, in batches of `embedding_batch_size` per request."""
        if self._embedder is not None:
            return await self._embedder.embed(texts)
        size = self.config.embedding_batch_size
        vectors: list[list[float]] = []
        for start in range(0, len(texts), size):
            vectors.extend(await self._embed_batch(texts[start : start + size]))
        return vectors

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """The offline model's query lane; an endpoint serves requests side by side, so a query's request goes
        out at once whatever indexing batches are in flight."""
        if self._embedder is not None:
            return await self._embedder.embed_query(texts)
        return await self.embed(texts)

    async def _embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        model = self.config.embedding_model or ""
        dimensions = self.config.embedding_dimensions
        try:
            response = await self._client.embeddings.create(
                model=model,
                # The API refuses empty strings; a blank text still gets a (meaningless) vector in its slot.
                input=[text if text.strip() else " " for text in texts],
                # Left out, the client asks for base64 and decodes it; given explicitly, it would not decode.
                encoding_format="float" if self.config.embedding_encoding == "float" else openai.omit,
                dimensions=dimensions if self.config.send_dimensions else openai.omit,
            )
        except openai.OpenAIError as exc:
            raise self._translate(exc, "embeddings", model, None) from exc
        except ValueError as exc:  # a body that is not JSON, or no data to decode from base64
            raise self._unreadable("embeddings", model, exc) from exc
        rows = sorted(response.data, key=lambda item: item.index)
        if [row.index for row in rows] != list(range(len(texts))):
            raise self._invalid("embeddings", model, f"{len(rows)} vectors for {len(texts)} texts")
        vectors: list[list[float]] = []
        for row in rows:
            vector = row.embedding
            if not isinstance(vector, list):
                raise self._invalid("embeddings", model, "vectors in an encoding it was not asked for")
            if len(vector) != dimensions:
                raise self._invalid(
                    "embeddings",
                    model,
                    f"{len(vector)}-dimensional vectors where the settings say {dimensions} "
                    f"(set VAULTGRAPH_EMBEDDING_DIMENSIONS={len(vector)} if that model is the one you want)",
                )
            if not all(math.isfinite(value) for value in vector):
                raise self._invalid("embeddings", model, "a vector with NaN or infinite values")
            vectors.append(vector)
        return vectors

    def _translate(
        self, exc: openai.OpenAIError, operation: Operation, model: str, timeout: float | None
    ) -> ModelError:
        return translate_openai_error(
            exc,
            operation=operation,
            model=model,
            endpoint=self.endpoint,
            max_retries=self.config.max_retries,
            timeout_seconds=timeout if timeout is not None else self.config.timeout_seconds,
        )

    def _invalid(
        self, operation: Operation, model: str, what: str, *, retryable: bool | None = None
    ) -> ModelResponseInvalid:
        return ModelResponseInvalid(
            f"The {operation} model '{model}' at {self.endpoint} returned {what}.",
            operation=operation,
            model=model,
            # A sampled answer may come out right next time; a server that miscounts vectors will not.
            retryable=operation == "chat" if retryable is None else retryable,
        )

    def _unreadable(self, operation: Operation, model: str, exc: ValueError) -> ModelResponseInvalid:
        # A cut or garbled body is usually a proxy or an overloaded server: worth another try later.
        what = "a body that is not JSON" if isinstance(exc, json.JSONDecodeError) else f"no usable data ({exc})"
        return self._invalid(operation, model, what, retryable=True)
