"""What every MCP tool shares: the caller of the request, expected errors as tool errors, argument types."""

# No `from __future__ import annotations`: the SDK reads the tool signatures (these aliases among them).

from collections.abc import Awaitable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BeforeValidator, Field

from vaultgraph.domain import Principal
from vaultgraph.domain import Scope as ItemScope
from vaultgraph.errors import AppError

PRINCIPAL_KEY = "vaultgraph.principal"
T = TypeVar("T")


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


# Enums spelled as GraphQL spells them (SHARED, OUT); a client that sends another case is understood all the same.
ScopeName = Annotated[Literal["PERSONAL", "TEAM", "SHARED"], BeforeValidator(_upper)]
DirectionName = Annotated[Literal["OUT", "IN", "BOTH"], BeforeValidator(_upper)]
ItemId = Annotated[str, Field(description="An item id as returned by other tools, e.g. note_… or doc_….")]
Types = Annotated[str | None, Field(
    description="Comma-separated filter: Note, Document, a note kind (note, daily, meeting…) or a document type. "
                "Default: all.")]
ScopeArg = Annotated[ScopeName | None, Field(description="PERSONAL, TEAM or SHARED. Default: everything you see.")]


def principal_of(ctx: Context) -> Principal:
    request = ctx.request_context.request
    principal = request.scope.get(PRINCIPAL_KEY) if request is not None else None
    if not isinstance(principal, Principal):  # McpEndpoint admits every request; this is a wiring bug
        raise ToolError("UNAUTHENTICATED: no caller on this request")
    return principal


async def answer(call: Awaitable[T]) -> T:
    """Expected errors become tool errors the model can read and act on (code, then message)."""
    try:
        return await call
    except AppError as exc:
        raise tool_error(exc) from exc


def tool_error(exc: AppError) -> ToolError:
    return ToolError(f"{exc.code}: {exc.message}")


def split_types(types: str | None) -> list[str] | None:
    return [t.strip() for t in types.split(",") if t.strip()] if types else None


def item_scope(scope: str | None) -> ItemScope | None:
    return ItemScope[scope] if scope else None


