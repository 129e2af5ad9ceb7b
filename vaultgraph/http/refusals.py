"""A request refused before GraphQL runs still answers like GraphQL: JSON `errors` with `extensions.code`."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.responses import JSONResponse

from vaultgraph.errors import AppError

STATUS_CODES = {401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND", 413: "LIMIT_EXCEEDED",
                429: "LIMIT_EXCEEDED", 503: "UNAVAILABLE"}
STATUS_OF = {"UNAUTHENTICATED": 401, "FORBIDDEN": 403, "NOT_FOUND": 404, "LIMIT_EXCEEDED": 429, "UNAVAILABLE": 503}


class Refusal(Exception):
    """Raised while admitting a request (authentication, rate limit); the view answers it with `response()`."""

    def __init__(self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None,
                 **details: object) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})
        self.details = details

    @classmethod
    def from_error(cls, error: AppError, headers: Mapping[str, str] | None = None) -> Refusal:
        details = {k: v for k, v in error.details.items() if v is not None}
        return cls(STATUS_OF.get(error.code, 400), error.code, error.message, headers, **details)

    def response(self) -> JSONResponse:
        return refusal_response(self.status, self.code, self.message, self.headers, **self.details)


def refusal_response(status: int, code: str, message: str, headers: Mapping[str, str] | None = None,
                     **details: object) -> JSONResponse:
    body = {"data": None, "errors": [{"message": message, "extensions": {"code": code, **details}}]}
    return JSONResponse(body, status_code=status, headers=dict(headers or {}))


def code_for_status(status: int) -> str:
    return STATUS_CODES.get(status, "INVALID_INPUT")
