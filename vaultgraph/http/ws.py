"""strawberry's graphql-transport-ws handler, encoding each shared result once for every socket.

When subscribers share an execution (schema/broadcast.py) they also share its `data`: the same dict reaches every
operation's `next`. This handler keeps the JSON text of recently sent `data` dicts (by identity, holding the dict
so the identity stays its own) and splices it into each socket's message, so 500 subscribers cost one encoding of
the payload and 500 short prefixes. The text is exactly what `json.dumps` of the whole message would give (the
view's `encode_json`); everything else — other message types, results with errors or extensions — goes through
strawberry's handler unchanged.
"""

from __future__ import annotations

import json
from typing import Any, cast

from starlette.websockets import WebSocketDisconnect
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler
from strawberry.subscriptions.protocols.graphql_transport_ws.types import Message

from vaultgraph.lru import Lru

RECENT_PAYLOADS = 256  # a payload is asked for by all of its subscribers within moments


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
    """One `PayloadTexts` per view (`payload_texts` on the view), shared by all of its sockets."""

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
