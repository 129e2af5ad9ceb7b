"""Starlette middleware that refuses a request body above the cap with 413, before anything parses it."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vaultgraph.http.refusals import refusal_response

DRAIN_BYTES = 1024 * 1024


class BodySizeLimit:
    """Checks `Content-Length` first (no bytes read), then counts a chunked body while buffering it.

    Buffering is fine at this size (a GraphQL document and its variables); uploads need their own, larger cap."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.max_bytes <= 0:
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.isdigit():
                await self._refuse(scope, receive, send, 400, "INVALID_INPUT", "Content-Length is not a number")
                return
            if int(length) > self.max_bytes:
                await self._too_large(scope, receive, send)
                return
            await self.app(scope, receive, send)  # the server stops at Content-Length; nothing more can arrive
            return
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                await self._drain(receive, message)
                await self._too_large(scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _drain(self, receive: Receive, message: Message) -> None:
        """Read (and drop) a little more of an oversized chunked body, so the client, still sending, gets to read
        the 413 instead of a connection reset; bounded, so a flood cannot keep the server reading."""
        drained = 0
        while message.get("more_body", False) and drained < DRAIN_BYTES:
            message = await receive()
            if message["type"] != "http.request":
                return
            drained += len(message.get("body", b""))

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._refuse(scope, receive, send, 413, "LIMIT_EXCEEDED",
                           f"the request body is larger than {self.max_bytes} bytes", limit=self.max_bytes)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str,
                      **details: object) -> None:
        # Connection: close, so the client does not keep streaming a body nobody reads into a kept-alive socket.
        await refusal_response(status, code, message, {"Connection": "close"}, **details)(scope, receive, send)
