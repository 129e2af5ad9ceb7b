"""strawberry's graphql-transport-ws handler, encoding each shared result once for every socket.

When subscribers share an execution (schema/extensions/broadcast.py) they also share its `data`: the same dict
reaches every operation's `next`. This handler keeps the JSON text of recently sent `data` dicts (by identity,
holding the dict so the identity stays its own) and splices it into each socket's message, so 500 subscribers cost
one encoding of the payload and 500 short prefixes. The payload's text is the view's `encode_json` (orjson), the
same a whole message would get; everything else — other message types, results with errors or extensions — goes
through strawberry's handler unchanged.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any, cast

from starlette.websockets import WebSocketDisconnect, WebSocketState
from strawberry.asgi import ASGIWebSocketAdapter
from strawberry.http.exceptions import NonJsonMessageReceived, NonTextMessageReceived, WebSocketDisconnected
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ConnectionInitMessage,
    Message,
    SubscribeMessage,
)

from vaultgraph.lru import Lru

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

    def text(self, data: object, encode: Any) -> str:
        found = self._texts.get(id(data))
        if found is not None and found[0] is data:
            self.reused += 1
            return found[1]
        self.encoded += 1
        text: str = encode({"data": data})
        self._texts.put(id(data), (data, text))
        return text


class TransportWSHandler(BaseGraphQLTransportWSHandler[Any, None]):
    """One `PayloadTexts` per view (`payload_texts` on the view), shared by all of its sockets; messages checked
    against the protocol's shapes (4400), the request-size cap and the rate limit, as HTTP requests are.

    The view provides `max_message_bytes` (the HTTP body cap) and `operation_refusal(request)`: a coded GraphQL
    error (a dict) when the caller's rate limit refuses one more operation, else None."""

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
