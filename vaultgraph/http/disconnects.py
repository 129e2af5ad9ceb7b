"""A request id for every HTTP request, and a client that goes away treated as the expected event it is.

A client may close its connection at any time: while its body is still arriving (an upload cancelled half way, a
chunked body cut off), while the answer is computed or streamed. Starlette reports it by raising `ClientDisconnect`
from whatever was reading the body (`Request.stream()`, the multipart parser); uvicorn would log any exception that
leaves the app as "Exception in ASGI application" with a traceback and try to answer 500 to nobody. Here it ends
the request with one INFO line carrying the request id, and nothing else. (An answer written after the client left
raises nothing: uvicorn drops it, and Starlette's responses stop streaming when `receive()` says the client left.)

Other exceptions are a disconnect only when the client is known to be gone (this middleware saw `receive()` answer
`http.disconnect` before the response was complete): `OSError` and anyio's `BrokenResourceError`,
`ClosedResourceError` and `EndOfStream` are what writing to or reading from a closed connection raises, but an
`OSError` from a full disk is a real error, so without that proof every one of them propagates with its traceback.

Every response carries the id in `X-Request-Id` (and the security headers, http/headers.py), and every log line
written while the request runs carries it as `request_id` (structlog's context variables), so a client's report
and the server log meet. Anything else that escapes the app before its answer started still answers coded JSON
(500 `INTERNAL`, with the id) and is raised on for uvicorn to log with its traceback.
"""

from __future__ import annotations

import uuid

import anyio
import structlog
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vaultgraph.http.headers import with_security_headers
from vaultgraph.http.refusals import refusal_response

log = structlog.get_logger(__name__)

REQUEST_ID_HEADER = b"x-request-id"
CLOSED_CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    OSError, anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream,
)


def new_request_id() -> str:
    return uuid.uuid4().hex[:16]


def is_disconnect(error: BaseException, client_gone: bool) -> bool:
    """Whether `error` is the client going away (a group: every one of its errors is)."""
    if isinstance(error, BaseExceptionGroup):
        return all(is_disconnect(inner, client_gone) for inner in error.exceptions)
    if isinstance(error, ClientDisconnect):
        return True
    return client_gone and isinstance(error, CLOSED_CONNECTION_ERRORS)


class RequestIds:
    """Outermost middleware (inside Starlette's ServerErrorMiddleware): ids and security headers on every
    response, quiet disconnects, and a coded JSON 500 for whatever else escapes the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_request_id()
        gone = False
        started = False
        complete = False

        async def watched_receive() -> Message:
            nonlocal gone
            message = await receive()
            if message["type"] == "http.disconnect" and not complete:
                gone = True
            return message

        async def identified_send(message: Message) -> None:
            nonlocal started, complete
            if message["type"] == "http.response.start":
                started = True
                message = with_security_headers({**message, "headers": [*message.get("headers", []),
                                                                        (REQUEST_ID_HEADER, request_id.encode())]})
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                complete = True
            await send(message)

        with structlog.contextvars.bound_contextvars(request_id=request_id):
            try:
                await self.app(scope, watched_receive, identified_send)
            except BaseException as exc:
                if is_disconnect(exc, gone):
                    log.info("client disconnected", request_id=request_id, method=scope.get("method"),
                             path=scope.get("path"), stage="response" if started else "request")
                    return
                if not started and isinstance(exc, Exception):
                    # Coded JSON with the id, like every other answer (Starlette's own 500 is plain text); then
                    # raised on, so uvicorn logs the traceback as "Exception in ASGI application".
                    log.error("unhandled error", request_id=request_id, method=scope.get("method"),
                              path=scope.get("path"), error=type(exc).__name__)
                    await refusal_response(500, "INTERNAL", f"Internal error (request {request_id}); the server "
                                           "log has the details.", requestId=request_id)(scope, receive,
                                                                                          identified_send)
                raise


async def read_body_first(receive: Receive) -> Receive:
    """Read the whole request body now, and a `receive` that hands it over again: for an app that would log a
    client gone mid-body as its own error (the MCP SDK answers `ClientDisconnect` with "Error handling POST
    request" and a traceback). Raises `ClientDisconnect`, which RequestIds logs as the disconnect it is. Only for
    bodies the body cap keeps small (http/body_limit.py: 1 MiB outside uploads)."""
    messages: list[Message] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            break

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return replay
