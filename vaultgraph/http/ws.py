"""strawberry's graphql-transport-ws handler, encoding each shared result once for every socket.

When subscribers share an execution (schema/extensions/broadcast.py) they also share its `data`: the same dict
reaches every operation's `next`. This handler keeps the JSON text of recently sent `data` dicts (by identity,
holding the dict so the identity stays its own) and splices it into each socket's message, so 500 subscribers cost
one encoding of the payload and 500 short prefixes. The payload's text is the view's `encode_json` (orjson), the
same a whole message would get; everything else — other message types, results with errors or extensions — goes
through strawberry's handler unchanged.

Each operation runs with a `Lane` (schema/extensions/broadcast.py), through which a live subscription event can be
written as the operation's `next` from the bus's callback, its task left asleep (`_ExpressSends.write`). Such a
write is the same frame the task would send, made only while the operation is still the socket's and not
complete; a write that has to wait for the socket (a client not reading) finishes before anything else of its
operation is sent, and is dropped, unwritten, the moment the operation ends (a client's `complete`, the socket's
close), as strawberry's own cancelled send would be.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, Coroutine
from contextvars import ContextVar
from typing import Any, cast

from starlette.websockets import WebSocketDisconnect, WebSocketState
from strawberry.asgi import ASGIWebSocketAdapter
from strawberry.http.exceptions import NonJsonMessageReceived, NonTextMessageReceived, WebSocketDisconnected
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler, Operation
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ConnectionInitMessage,
    Message,
    SubscribeMessage,
)

from vaultgraph.lru import Lru
from vaultgraph.schema.extensions.broadcast import LANE, Lane

RECENT_PAYLOADS = 256  # a payload is asked for by all of its subscribers within moments
# How far past the message cap uvicorn reads a frame (`ws_max_size`, app.uvicorn_options): a message a little over
# the cap gets a coded answer from this handler; a bigger one is closed by the WebSocket library (1009) unread.
FRAME_SLACK_BYTES = 64 * 1024
BAD_INIT = 4400  # a connection_init whose payload is malformed or names another tenant than the handshake
TOO_BIG = 4413  # a message other than `subscribe` over the cap (4400-4499: the protocol's client-error range)


class CloseSocket(Exception):
    """Raised while a connection_init is admitted: close the socket with this code and reason (a close reason
    holds at most 123 bytes, so a long one is cut)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason.encode("utf-8")[:123].decode("utf-8", "ignore")


class MeasuredWebSocket(ASGIWebSocketAdapter):
    """strawberry's adapter, noting each message's size (the handler checks it against the cap), and answering
    JSON that cannot be decoded (nested too deeply) as the invalid JSON it is, not a crash."""

    last_size = 0

    async def iter_json(self, *, ignore_parsing_errors: bool = False) -> AsyncGenerator[object, None]:
        try:
            while self.ws.application_state != WebSocketState.DISCONNECTED:
                text = await self.ws.receive_text()
                self.last_size = len(text.encode("utf-8", "surrogatepass"))
                try:
                    yield json.loads(text)
                except (ValueError, RecursionError) as exc:
                    if not ignore_parsing_errors:
                        raise NonJsonMessageReceived from exc
        except KeyError as exc:
            raise NonTextMessageReceived from exc
        except WebSocketDisconnect:
            pass


class PayloadTexts:
    """The encoded `{"data": …}` of recently sent data dicts, keyed by the dict's identity (and holding it)."""

    def __init__(self, maxsize: int = RECENT_PAYLOADS) -> None:
        self._texts: Lru[int, tuple[object, str]] = Lru(maxsize)
        self.encoded = 0
        self.reused = 0
        self.expressed = 0  # `next` frames an operation's express wrote or began to write (its task left asleep)

    def text(self, data: object, encode: Any) -> str:
        found = self._texts.get(id(data))
        if found is not None and found[0] is data:
            self.reused += 1
            return found[1]
        self.encoded += 1
        text: str = encode({"data": data})
        self._texts.put(id(data), (data, text))
        return text


class _ExpressSends:
    """An operation's express writes (its lane's `write`): each sent now, from the bus's callback, as the `next`
    its task would send; one that has to wait for the socket runs on as a task of its own (`pending`), which
    the operation's next message waits for (`settle`), and which the operation's end cancels."""

    __slots__ = ("handler", "operation", "pending", "prefix")

    def __init__(self, handler: TransportWSHandler, operation: Operation[Any, None]) -> None:
        self.handler = handler
        self.operation = operation
        self.prefix = f'{{"id":{json.dumps(operation.id)},"type":"next","payload":'
        self.pending: asyncio.Future[None] | None = None

    def write(self, data: dict[str, Any]) -> bool:
        handler, operation = self.handler, self.operation
        if self.pending is not None:
            if not self.pending.done():
                return False  # the last write still waits for the socket: this one goes behind it, the usual way
            self.pending = None
        if operation.completed or handler.operations.get(operation.id) is not operation:
            return False  # ended (a client's `complete` drops it from the socket at once; its task stops later)
        texts: PayloadTexts | None = getattr(handler.view, "payload_texts", None)
        ws = getattr(handler.websocket, "ws", None)
        if texts is None or ws is None:
            return False
        sending = ws.send_text(self.prefix + texts.text(data, handler.view.encode_json_string) + "}")
        try:
            waiting = sending.send(None)
        except StopIteration:
            texts.expressed += 1
            return True
        except Exception:  # a socket gone: nothing was written, and the task meets the same when it sends
            return False
        self.pending = asyncio.ensure_future(_run_on(sending, waiting))
        self.pending.add_done_callback(_quietly)  # a socket gone: the task's next send meets it and says so
        texts.expressed += 1
        return True

    async def settle(self) -> None:
        pending, self.pending = self.pending, None
        if pending is not None:
            with contextlib.suppress(Exception):  # a socket gone: what the task sends next meets it too
                await pending

    def stop(self) -> None:
        if self.pending is not None:
            self.pending.cancel()  # the operation is over: no `next` after it


async def _run_on(coroutine: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Run a coroutine, already stepped once and now waiting on `waiting` (what it yielded: a future, or None for a
    bare yield), to its end, as the task that would have run it from the start would. (Python 3.12's eager tasks do
    this; 3.11 has none.)"""
    while True:
        error: BaseException | None = None
        try:
            if waiting is None:
                await asyncio.sleep(0)
            else:
                waiting._asyncio_future_blocking = False  # what a task does with the future its coroutine yields
                await waiting
        except BaseException as exc:  # the future's error or this task's cancellation: the coroutine's to handle
            error = exc
        try:
            waiting = coroutine.throw(error) if error is not None else coroutine.send(None)
        except StopIteration:
            return


def _quietly(done: asyncio.Future[None]) -> None:
    if not done.cancelled():
        done.exception()


_EXPRESS_SENDS: ContextVar[_ExpressSends | None] = ContextVar("vaultgraph_express_sends", default=None)


class TransportWSHandler(BaseGraphQLTransportWSHandler[Any, None]):
    """One `PayloadTexts` per view (`payload_texts` on the view), shared by all of its sockets; messages checked
    against the protocol's shapes (4400), the request-size cap and the rate limit, as HTTP requests are.

    The view provides `max_message_bytes` (the HTTP body cap) and `operation_refusal(request)`: a coded GraphQL
    error (a dict) when the caller's rate limit refuses one more operation, else None."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._express_sends: dict[str, _ExpressSends] = {}  # by operation id, while the operation's task runs

    async def handle(self) -> None:
        """The socket's life, counted in /metrics' open sockets while it lasts (the view's `metrics`, if any)."""
        metrics = getattr(self.view, "metrics", None)
        if metrics is None:
            await super().handle()
            return
        metrics.sockets.inc()
        try:
            await super().handle()
        finally:
            metrics.sockets.dec()

    async def run_operation(self, operation: Operation[Any, None]) -> None:
        """strawberry's, in a context of the operation's own task that holds its lane (the express)."""
        sending = _ExpressSends(self, operation)
        self._express_sends[operation.id] = sending
        _EXPRESS_SENDS.set(sending)
        LANE.set(Lane(sending.write))
        try:
            await super().run_operation(operation)
        finally:
            sending.stop()
            if self._express_sends.get(operation.id) is sending:
                del self._express_sends[operation.id]
            # The finished task's context would hold the lane, and through it the operation and its task: a cycle
            # only the collector frees, and it runs rarely here (app.tune_collector).
            LANE.set(None)
            _EXPRESS_SENDS.set(None)

    async def cleanup_operation(self, operation_id: str) -> None:
        """strawberry's (the operation dropped, its task cancelled), and its express write still waiting for the
        socket dropped at once: cancelling the task reaches that write only at the task's next step, after which the
        socket could already have taken it (and the client reused the id)."""
        sending = self._express_sends.get(operation_id)
        if sending is not None and self.operations.get(operation_id) is sending.operation:
            sending.stop()
        await super().cleanup_operation(operation_id)

    async def handle_message(self, message: Message) -> None:
        fields: Any = message
        if not isinstance(fields, dict) or not isinstance(fields.get("type"), str):
            await self.websocket.close(code=4400, reason="a message is a JSON object with a string `type`")
            return
        cap: int = getattr(self.view, "max_message_bytes", 0)
        size: int = getattr(self.websocket, "last_size", 0)
        if fields["type"] == "subscribe":
            if not isinstance(fields.get("id"), str) or not isinstance(fields.get("payload"), dict):
                await self.websocket.close(code=4400, reason="subscribe needs a string `id` and an object `payload`")
                return
            if cap and size > cap:
                await self._refuse(fields["id"], {
                    "message": f"the message is larger than {cap} bytes, the most a request may carry; nothing ran",
                    "extensions": {"code": "LIMIT_EXCEEDED", "limit": cap}})
                return
        elif cap and size > cap:
            await self.websocket.close(code=TOO_BIG, reason=f"message larger than {cap} bytes")
            return
        await super().handle_message(message)

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        try:
            await super().handle_connection_init(message)
        except CloseSocket as exc:  # the view's own codes (strawberry knows only 4403 "Forbidden")
            await self.websocket.close(code=exc.code, reason=exc.reason)

    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        if self.connection_acknowledged and message["id"] not in self.operations:
            refusal = getattr(self.view, "operation_refusal", None)
            error = refusal(self.context.request) if refusal is not None else None
            if error is not None:
                await self._refuse(message["id"], error)
                return
        await super().handle_subscribe(message)

    async def _refuse(self, operation_id: str, error: dict[str, Any]) -> None:
        """The protocol's `error` message for one operation: it ends that operation; the socket stays open."""
        await self.send_message(cast(Message, {"id": operation_id, "type": "error", "payload": [error]}))

    async def send_message(self, message: Message) -> None:
        sending = _EXPRESS_SENDS.get()  # in an operation's own task: its express write under way goes first
        if sending is not None:
            await sending.settle()
        fields = cast(dict[str, Any], message)
        payload = fields.get("payload") if fields["type"] == "next" else None
        texts: PayloadTexts | None = getattr(self.view, "payload_texts", None)
        ws = getattr(self.websocket, "ws", None)
        if texts is None or ws is None or not isinstance(payload, dict) or payload.keys() != {"data"} \
                or not isinstance(payload["data"], dict):
            await super().send_message(message)
            return
        body = texts.text(payload["data"], self.view.encode_json_string)
        try:
            await ws.send_text(f'{{"id":{json.dumps(fields["id"])},"type":"next","payload":{body}}}')
        except WebSocketDisconnect as exc:
            raise WebSocketDisconnected from exc
