"""Starlette middleware that refuses a request body above the cap with 413, before anything parses it."""

from __future__ import annotations

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vaultgraph.http.refusals import Refusal, refusal_response

DRAIN_BYTES = 1024 * 1024
DRAIN_SECONDS = 2.0  # after a declared-length refusal: how long to wait for what an eager client already sent


class BodyTooLarge(Refusal):
    """Raised from `receive` when a streamed upload passes its cap; the view (or this middleware) answers 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, "LIMIT_EXCEEDED", f"the upload is larger than {limit} bytes; nothing was stored",
                         {"Connection": "close"}, limit=limit)


class BodySizeLimit:
    """Checks `Content-Length` first (no bytes read), then counts a chunked body while buffering it.

    Buffering is fine at this size (a GraphQL document and its variables). Multipart uploads to `upload_paths`
    have their own, larger cap (`VAULTGRAPH_UPLOAD_MAX_BODY_BYTES`): a declared length above it is refused at once,
    a chunked body is counted as it streams, cut off at the cap and never buffered here (the multipart parser
    spools files to disk)."""

    def __init__(self, app: ASGIApp, max_bytes: int, upload_max_bytes: int = 0,
                 upload_paths: frozenset[str] = frozenset({"/graphql"})) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.upload_max_bytes = upload_max_bytes
        self.upload_paths = upload_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.max_bytes <= 0:
            await self.app(scope, receive, send)
            return
        if self.upload_max_bytes > 0 and scope["path"] in self.upload_paths and _is_multipart(scope):
            await self._upload(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.isdigit():
                await self._refuse(scope, receive, send, 400, "INVALID_INPUT", "Content-Length is not a number")
                return
            if int(length) > self.max_bytes:
                await self._declared_too_large(receive, send, self.max_bytes)
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

    async def _upload(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.upload_max_bytes
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and not length.isdigit():
            await self._refuse(scope, receive, send, 400, "INVALID_INPUT", "Content-Length is not a number")
            return
        if length is not None and int(length) > limit:
            await self._declared_too_large(receive, send, limit)  # before anyone is authenticated
            return
        size = 0
        started = False

        async def counted() -> Message:
            nonlocal size
            message = await receive()
            if message["type"] == "http.request":
                size += len(message.get("body", b""))
                if size > limit:
                    await self._drain(receive, message)
                    raise BodyTooLarge(limit)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge as exc:  # the view answers it itself; this is for anything that let it through
            if started:
                raise
            await exc.response()(scope, receive, send)

    async def _drain(self, receive: Receive, message: Message) -> None:
        """Read (and drop) a little more of an oversized chunked body, so the client, still sending, gets to read
        the 413 instead of a connection reset; bounded, so a flood cannot keep the server reading."""
        drained = 0
        while message.get("more_body", False) and drained < DRAIN_BYTES:
            message = await receive()
            if message["type"] != "http.request":
                return
            drained += len(message.get("body", b""))

    async def _declared_too_large(self, receive: Receive, send: Send, limit: int) -> None:
        """413 on the `Content-Length` header alone: the answer is written before any byte of the body is read (a
        client waiting on `Expect: 100-continue` is never asked for it: uvicorn sends no `100 Continue` once a
        response has started). Only then is a bounded amount of what an eager client already sent read and dropped
        (at most 1 MiB, for at most 2 s), so it gets to read the answer instead of a connection reset; then the
        response ends and the connection closes."""
        response = refusal_response(413, "LIMIT_EXCEEDED", f"the request body is larger than {limit} bytes",
                                    {"Connection": "close"}, limit=limit)
        await send({"type": "http.response.start", "status": 413, "headers": response.raw_headers})
        await send({"type": "http.response.body", "body": response.body, "more_body": True})
        with anyio.move_on_after(DRAIN_SECONDS):
            await self._drain(receive, {"type": "http.request", "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int | None = None) -> None:
        limit = limit or self.max_bytes
        await self._refuse(scope, receive, send, 413, "LIMIT_EXCEEDED",
                           f"the request body is larger than {limit} bytes", limit=limit)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str,
                      **details: object) -> None:
        # Connection: close, so the client does not keep streaming a body nobody reads into a kept-alive socket.
        await refusal_response(status, code, message, {"Connection": "close"}, **details)(scope, receive, send)


def _is_multipart(scope: Scope) -> bool:
    content_type: bytes = dict(scope["headers"]).get(b"content-type", b"")
    return content_type.split(b";", 1)[0].strip().lower() == b"multipart/form-data"
