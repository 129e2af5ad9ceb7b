"""The official MCP SDK's client over streamable HTTP, against a running vaultgraph."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client


@contextlib.asynccontextmanager
async def mcp_session(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=60) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its JSON answer."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    if isinstance(result.structured_content, dict):
        return result.structured_content
    loaded: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return loaded


async def refused(session: ClientSession, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail; the error text the model would read."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return " ".join(getattr(block, "text", "") for block in result.content)
