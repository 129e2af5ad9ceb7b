"""The WebSocket holds the HTTP limits: the request-size cap on every message, the rate limit on every operation,
and malformed messages closed with 4400 as graphql-transport-ws says (issue 19: 19.4, 19.10)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings

pytestmark = [pytest.mark.security, pytest.mark.api]

PROTOCOL = "graphql-transport-ws"
CAP = 1024 * 1024  # the default VAULTGRAPH_MAX_BODY_BYTES: the same on both transports
SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }"
COUNT = "{ notes { totalCount } }"
BURST = 12  # a test's tenant has its own bucket of this many tokens (refilled at 0.01 a second: not during a test)


@pytest.fixture(scope="module")
async def socket_server(settings: Settings) -> AsyncIterator[RunningServer]:
    """Development mode (the tenant from a header), the default body cap, a small rate-limit burst."""
    update = {"port": 0, "rate_limit_per_second": 0.01, "rate_limit_burst": BURST, "enrichment_workers": False}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


def _url(server: RunningServer) -> str:
    return server.url.replace("http://", "ws://") + "/graphql"


async def _open(server: RunningServer, tenant: str) -> ClientConnection:
    ws = await connect(_url(server), subprotocols=[PROTOCOL],  # type: ignore[list-item]
                       additional_headers={"X-Vaultgraph-Tenant": tenant}, max_size=None)
    await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
    assert json.loads(await ws.recv()) == {"type": "connection_ack"}
    return ws


async def _answer(ws: ClientConnection, operation_id: str) -> dict[str, Any]:
    """The first message for `operation_id` (skipping nothing else: nothing else is in flight)."""
    message: dict[str, Any] = json.loads(await ws.recv())
    assert message.get("id") == operation_id, message
    return message


async def _closed(ws: ClientConnection) -> int | None:
    with pytest.raises(ConnectionClosed):
        message = await ws.recv()
        pytest.fail(f"expected the server to close the socket, got {message!r}")
    return ws.close_code


def _save(operation_id: str, body: str) -> str:
    return json.dumps({"id": operation_id, "type": "subscribe",
                       "payload": {"query": SAVE, "variables": {"input": {"title": "Big", "body": body}}}})


async def _notes(server: RunningServer, tenant: str) -> int:
    data = await server.data(COUNT, headers={"X-Vaultgraph-Tenant": tenant})
    count: int = data["notes"]["totalCount"]
    return count


async def test_a_message_over_the_request_cap_runs_nothing(socket_server: RunningServer, tenant: str) -> None:
    ws = await _open(socket_server, tenant)
    try:
        # Just over the cap: the operation gets the protocol's `error`, coded; the socket stays open.
        await ws.send(_save("1", "x" * (CAP + 1000)))
        answer = await _answer(ws, "1")
        assert answer["type"] == "error", answer
        [error] = answer["payload"]
        assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": CAP}
        await ws.send(json.dumps({"type": "ping"}))
        assert json.loads(await ws.recv()) == {"type": "pong"}
        # A message under the cap runs as it does over HTTP.
        await ws.send(_save("2", "small"))
        assert (await _answer(ws, "2"))["type"] == "next"
        assert (await _answer(ws, "2"))["type"] == "complete"
        # Far over it (1.5 MB; frames of up to 16 MiB were read): closed at the frame, unread (1009).
        await ws.send(_save("3", "y" * 1_500_000))
        assert await _closed(ws) == 1009
    finally:
        await ws.close()
    assert await _notes(socket_server, tenant) == 1
    # Other message types over the cap close the socket with 4413.
    ws = await _open(socket_server, tenant)
    await ws.send(json.dumps({"type": "ping", "payload": {"pad": "z" * (CAP + 10)}}))
    assert await _closed(ws) == 4413


async def test_operations_on_a_socket_take_from_the_rate_limit(socket_server: RunningServer, tenant: str) -> None:
    ws = await _open(socket_server, tenant)  # connection_init took one token
    try:
        answers = []
        for n in range(BURST + 1):
            await ws.send(json.dumps({"id": str(n), "type": "subscribe", "payload": {"query": COUNT}}))
            first = await _answer(ws, str(n))
            if first["type"] == "next":
                assert (await _answer(ws, str(n)))["type"] == "complete"
            answers.append(first)
        assert [a["type"] for a in answers] == ["next"] * (BURST - 1) + ["error"] * 2, answers
        refused = answers[BURST - 1]
        [error] = refused["payload"]
        assert error["extensions"]["code"] == "LIMIT_EXCEEDED" and error["extensions"]["retryAfter"] >= 1
        assert "rate limit" in error["message"]
    finally:
        await ws.close()
    # The same bucket as HTTP: the tenant's next HTTP request is refused too.
    response = await socket_server.client.post("/graphql", json={"query": COUNT},
                                               headers={"X-Vaultgraph-Tenant": tenant})
    assert response.status_code == 429


@pytest.mark.parametrize("message", [
    [{"type": "connection_init"}], "just text", 5, None,
    {"id": "1", "type": "subscribe", "payload": "{ notes { totalCount } }"},
    {"id": "1", "type": "subscribe", "payload": [COUNT]},
    {"id": "1", "type": "subscribe", "payload": None},
    {"id": ["1"], "type": "subscribe", "payload": {"query": COUNT}},
    {"type": 7},
])
async def test_malformed_messages_close_with_4400(socket_server: RunningServer, tenant: str, message: Any) -> None:
    ws = await _open(socket_server, f"{tenant}x")
    await ws.send(json.dumps(message))
    assert await _closed(ws) == 4400
