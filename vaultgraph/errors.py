"""Expected errors: each carries a code the API reports as `extensions.code` and a message a person can act on."""

from __future__ import annotations

from typing import Any, ClassVar


class AppError(Exception):
    """Base of every expected error. Services raise these; the API layer maps them, nothing else does."""

    code: ClassVar[str] = "INTERNAL"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class NotFound(AppError):
    code = "NOT_FOUND"


class Conflict(AppError):
    code = "CONFLICT"


class InvalidInput(AppError):
    code = "INVALID_INPUT"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", field=field)
        self.field = field


class UnsupportedFormat(AppError):
    code = "UNSUPPORTED_FORMAT"


class LinkOwnedByBody(AppError):
    """deleteLink on a [[wikilink]] its source's text still holds: the text is the truth, edit it instead."""

    code = "LINK_OWNED_BY_BODY"


class LimitExceeded(AppError):
    code = "LIMIT_EXCEEDED"


class Unauthenticated(AppError):
    code = "UNAUTHENTICATED"


class Forbidden(AppError):
    code = "FORBIDDEN"


class Unavailable(AppError):
    code = "UNAVAILABLE"
