"""Turning what the `openai` client raises into ModelErrors whose message says what to do next."""

from __future__ import annotations

from dataclasses import dataclass

import openai

from vaultgraph.models.errors import (
    ModelError,
    ModelRequestRejected,
    ModelResponseInvalid,
    ModelUnavailable,
    Operation,
)

_SETTING = {"chat": "VAULTGRAPH_CHAT_MODEL", "embeddings": "VAULTGRAPH_EMBEDDING_MODEL",
            "rerank": "VAULTGRAPH_RERANK_MODEL"}
_DETAIL_LIMIT = 200


@dataclass(frozen=True)
class _Call:
    operation: Operation
    model: str
    endpoint: str
    max_retries: int

    @property
    def where(self) -> str:
        return f"The model endpoint {self.endpoint}"

    @property
    def tried(self) -> str:
        return f"retried up to {self.max_retries} times" if self.max_retries else "retries disabled"

    def error(self, kind: type[ModelError], message: str, *, status: int | None, retry: bool) -> ModelError:
        return kind(message, operation=self.operation, model=self.model, status_code=status, retryable=retry)


def translate_openai_error(
    exc: openai.OpenAIError,
    *,
    operation: Operation,
    model: str,
    endpoint: str,
    max_retries: int,
    timeout_seconds: float,
) -> ModelError:
    """The ModelError for an exception the client raised after its own retries. Never quotes the request."""
    call = _Call(operation, model, endpoint, max_retries)
    if isinstance(exc, openai.APITimeoutError):
        return call.error(
            ModelUnavailable,
            f"The {operation} model '{model}' at {endpoint} did not answer within {timeout_seconds:g} s "
            f"({call.tried}). Check that the endpoint is up and not overloaded, "
            "or raise VAULTGRAPH_MODEL_TIMEOUT.",
            status=None,
            retry=True,
        )
    if isinstance(exc, openai.APIConnectionError):
        return call.error(
            ModelUnavailable,
            f"Cannot connect to the model endpoint {endpoint} ({call.tried}). "
            "Check OPENAI_BASE_URL and that the server is running.",
            status=None,
            retry=True,
        )
    if isinstance(exc, openai.APIResponseValidationError):
        return call.error(
            ModelResponseInvalid,
            f"{call.where} answered a {operation} call with a body that is not in the OpenAI format.",
            status=exc.status_code,
            retry=False,
        )
    if isinstance(exc, openai.APIStatusError):
        return _from_status(exc, call)
    return call.error(
        ModelUnavailable,
        f"The {operation} call to the model endpoint {endpoint} failed ({exc.__class__.__name__}).",
        status=None,
        retry=False,
    )


def _from_status(exc: openai.APIStatusError, call: _Call) -> ModelError:
    status = exc.status_code
    detail = _server_detail(exc)
    if status in (401, 403):
        message = f"{call.where} refused the API key (HTTP {status}). Check OPENAI_API_KEY.{detail}"
        return call.error(ModelUnavailable, message, status=status, retry=False)
    if status == 404:
        message = (
            f"{call.where} has no {call.operation} model '{call.model}' (HTTP 404). "
            f"Check {_SETTING[call.operation]}, and that OPENAI_BASE_URL is the API root "
            f"(it usually ends in /v1).{detail}"
        )
        return call.error(ModelRequestRejected, message, status=status, retry=False)
    if status == 429:
        message = (
            f"{call.where} kept rate-limiting {call.operation} calls (HTTP 429, {call.tried}). "
            f"Try again later, or lower the enrichment concurrency.{detail}"
        )
        return call.error(ModelUnavailable, message, status=status, retry=True)
    if status >= 500 or status in (408, 409):
        message = f"{call.where} failed {call.operation} calls with HTTP {status} ({call.tried}).{detail}"
        return call.error(ModelUnavailable, message, status=status, retry=True)
    message = f"{call.where} rejected the {call.operation} request to '{call.model}' (HTTP {status}).{detail}"
    return call.error(ModelRequestRejected, message, status=status, retry=False)


def _server_detail(exc: openai.APIStatusError) -> str:
    """The server's own one-line explanation, shortened; a body not in OpenAI's error shape adds nothing."""
    body = exc.body
    error = body.get("error", body) if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str) or not message.strip():
        return ""
    text = " ".join(message.split())
    if len(text) > _DETAIL_LIMIT:
        text = text[: _DETAIL_LIMIT - 1] + "…"
    return f" The server said: {text}"
