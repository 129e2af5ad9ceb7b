"""A small client of the `graphql-transport-ws` protocol over a real WebSocket (the `websockets` package), for
subscription tests: connection_init/ack, subscribe, next/error/complete, and pong for the server's pings."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

PROTOCOL = "graphql-transport-ws"


class GraphQLWebSocket:
    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self._ids = itertools.count(1)
        self._queues: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for raw in self.connection:
            message = json.loads(raw)
            if message["type"] == "ping":
                await self.connection.send(json.dumps({"type": "pong"}))
            elif "id" in message and message["id"] in self._queues:
                await self._queues[message["id"]].put(message)

    async def subscribe(self, query: str, variables: dict[str, Any] | None = None) -> str:
        operation = str(next(self._ids))
        self._queues[operation] = asyncio.Queue()
        await self.connection.send(json.dumps({
            "id": operation, "type": "subscribe", "payload": {"query": query, "variables": variables or {}},
        }))
        return operation

    async def receive(self, operation: str) -> dict[str, Any]:
        """The next `next` payload of the operation; AssertionError on `error` or `complete`, and the socket's own
        error (ConnectionClosed) once it is gone, rather than a wait for a message that can no longer come."""
        queue = self._queues[operation]
        if queue.empty() and not self._reader.done():
            getting = asyncio.ensure_future(queue.get())
            try:
                await asyncio.wait({getting, self._reader}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not getting.done():
                    getting.cancel()
            if getting.done() and not getting.cancelled():
                return self._payload(getting.result())
        if queue.empty():
            self._reader.result()  # the socket's error, if it ended with one
            raise AssertionError("the socket closed before the next message of the operation")
        return self._payload(queue.get_nowait())

    @staticmethod
    def _payload(message: dict[str, Any]) -> dict[str, Any]:
        assert message["type"] == "next", message
        payload: dict[str, Any] = message["payload"]
        return payload

    async def stop(self, operation: str) -> None:
        await self.connection.send(json.dumps({"id": operation, "type": "complete"}))

    async def close(self) -> None:
        """Stop reading and close; the reader's own failure is the caller's to see through `receive`, so closing
        never raises it (it would hide the error that made a test leave its `async with`)."""
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
            await self._reader
        with contextlib.suppress(ConnectionClosed):
            await self.connection.close()


@contextlib.asynccontextmanager
async def graphql_ws(http_url: str, headers: dict[str, str] | None = None,
                     init_payload: dict[str, Any] | None = None) -> AsyncIterator[GraphQLWebSocket]:
    """Connect to `<http_url>/graphql` as a WebSocket and complete the protocol's handshake."""
    url = http_url.replace("http://", "ws://", 1) + "/graphql"
    async with connect(url, subprotocols=[Subprotocol(PROTOCOL)], additional_headers=headers or {}) as connection:
        await connection.send(json.dumps({"type": "connection_init", "payload": init_payload or {}}))
        ack = json.loads(await asyncio.wait_for(connection.recv(), 10))
        assert ack["type"] == "connection_ack", ack
        client = GraphQLWebSocket(connection)
        try:
            yield client
        finally:
            await client.close()
