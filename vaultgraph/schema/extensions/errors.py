"""One mapping from errors to what clients see: AppError → its code and message; anything else masked."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Generator, Iterator
from typing import Any, cast

import structlog
from graphql.error import GraphQLError
from strawberry.extensions import MaskErrors

from vaultgraph.errors import AppError

log = structlog.get_logger(__name__)


def _is_unexpected(error: GraphQLError) -> bool:
    original = error.original_error
    return original is not None and not isinstance(original, AppError | GraphQLError)


class ErrorPolicy(MaskErrors):
    """Expected errors carry `extensions.code`; unexpected ones are logged with an id and masked.

    Through MaskErrors' public hooks only: every error counts as one to "mask", and `anonymise_error` is where each
    is mapped (an AppError to its code, a validation error kept with one, anything else masked)."""

    def __init__(self, count: Callable[[str], None] | None = None) -> None:
        super().__init__(should_mask_error=lambda error: True)
        self.count = count  # told each error's code as it is sent (/metrics' error counts)

    def on_operation(self) -> Iterator[None]:
        """MaskErrors' own hook, skipping its checks after an operation whose result has no errors (a `Protocol`
        isinstance, a few percent of a `{ __typename }` request's CPU)."""
        masking = cast(Generator[None, None, None], super().on_operation())
        next(masking)
        yield
        result = self.execution_context.result
        if getattr(result, "errors", None) or getattr(result, "initial_result", None) is not None:
            next(masking, None)
        else:
            masking.close()

    stream_hook_acts_on_errors_only = True  # the express may send an error-free result without it (broadcast.py)

    def on_stream_result(self, result: Any) -> Iterator[None]:
        """A streamed result without errors has nothing to mask: skip MaskErrors' checks (a `Protocol` isinstance
        per result, a few percent of a subscription fan-out's CPU)."""
        if getattr(result, "errors", None) or getattr(result, "incremental", None) \
                or getattr(result, "completed", None):
            yield from super().on_stream_result(result)
        else:
            yield

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        coded = self._coded(error)
        if self.count is not None:
            code = (coded.extensions or {}).get("code")
            self.count(code if isinstance(code, str) else "NONE")
        return coded

    def _coded(self, error: GraphQLError) -> GraphQLError:
        original = error.original_error
        if isinstance(original, AppError):
            extensions = {"code": original.code, **{k: v for k, v in original.details.items() if v is not None}}
            return GraphQLError(original.message, error.nodes, error.source, error.positions, error.path,
                                None, extensions)
        if _is_unexpected(error):
            error_id = uuid.uuid4().hex[:12]
            log.error("unexpected error in resolver", error_id=error_id, path=error.path, exc_info=original)
            return GraphQLError(f"Internal error (id {error_id}); the server log has the details.",
                                error.nodes, error.source, error.positions, error.path, None,
                                {"code": "INTERNAL", "errorId": error_id})
        if not error.extensions or "code" not in error.extensions:
            error.extensions = {**(error.extensions or {}), "code": "GRAPHQL_VALIDATION_FAILED"}
        return error
