"""Errors of the model layer: what went wrong with a chat, embedding or rerank call, said so a person can act on it.

They are `AppError`s with code `UNAVAILABLE`: to a GraphQL client a failing model means the feature that needs
it is unavailable right now. Messages name the endpoint (without credentials), the model and the operation,
never a prompt, an input text or a key.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from vaultgraph.errors import Unavailable

Operation = Literal["chat", "embeddings", "rerank"]


class ModelError(Unavailable):
    """Base of every model-layer failure. `retryable` tells a worker whether trying again later can help."""

    def __init__(
        self,
        message: str,
        *,
        operation: Operation,
        model: str,
        status_code: int | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(
            message, operation=operation, model=model, status_code=status_code, retryable=retryable
        )
        self.operation: Operation = operation
        self.model = model
        self.status_code = status_code
        self.retryable = retryable


class ModelUnavailable(ModelError):
    """The endpoint could not be reached, timed out, refused the key, or kept failing after the retries."""


class ModelRequestRejected(ModelError):
    """The endpoint understood the request and refused it (400/404/413/422): retrying won't help."""


class ModelResponseInvalid(ModelError):
    """The endpoint answered, but not with something usable: malformed JSON, a cut answer, missing vectors."""


def redact_url(url: str) -> str:
    """The URL without user info, query or fragment, fit for a log line or an error message."""
    try:
        parts = urlsplit(url)
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(unparsable URL)"
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal needs its brackets back
        host = f"[{host}]"
    return f"{parts.scheme}://{host}{port}{parts.path}" if parts.scheme else "(unparsable URL)"
