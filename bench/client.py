"""A lean HTTP/1.1 keep-alive client for GraphQL POSTs, so the client's own cost stays out of the figures.

One connection per client (one client per concurrent worker); the server's keep-alive may close an idle
connection, so `ready()` reopens it before a timed call. Responses with Content-Length or chunked bodies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any
from urllib.parse import urlsplit


class GraphQLError(Exception):
    """The response carried `errors`; `code` is the first error's `extensions.code`, when there is one."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        first = errors[0] if errors else {}
        self.errors = errors
        self.code: str | None = (first.get("extensions") or {}).get("code")
        super().__init__(f"{self.code or 'ERROR'}: {first.get('message', errors)}")


class GraphQLClient:
    def __init__(self, url: str, path: str = "/graphql", headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = path
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self._head = (f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
                      f"Accept: application/json\r\n{extra}")
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def ready(self) -> None:
        """(Re)open the connection when it is not usable."""
        if self._reader is None or self._writer is None or self._reader.at_eof() or self._writer.is_closing():
            await self.close()
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)

    async def post(self, body: bytes) -> tuple[int, bytes]:
        reused = self._reader is not None
        await self.ready()
        assert self._reader is not None and self._writer is not None  # opened by ready()
        self._writer.write(f"{self._head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
        try:
            head = await self._reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionResetError) as exc:
            # The server closed an idle keep-alive connection as the request went out (uvicorn's keep-alive
            # timeout, easily reached on a loaded machine): it read nothing, so send it again, once, on a new one.
            if not reused or (isinstance(exc, asyncio.IncompleteReadError) and exc.partial):
                raise
            await self.close()
            return await self.post(body)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        if headers.get("transfer-encoding", "").lower() == "chunked":
            payload = await self._chunked()
        else:
            payload = await self._reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, payload

    async def _chunked(self) -> bytes:
        assert self._reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self._reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append((await self._reader.readexactly(size + 2))[:-2])

    async def execute(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The `data` of one operation; GraphQLError when the response has errors."""
        status, payload = await self.post(json.dumps({"query": query, "variables": variables or {}}).encode())
        try:
            body = json.loads(payload)
        except ValueError as exc:
            raise RuntimeError(f"HTTP {status}: {payload[:300]!r}") from exc
        if body.get("errors"):
            raise GraphQLError(body["errors"])
        if status != 200:
            raise RuntimeError(f"HTTP {status}: {payload[:300]!r}")
        data: dict[str, Any] = body["data"]
        return data

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await self._writer.wait_closed()
        self._reader = self._writer = None
