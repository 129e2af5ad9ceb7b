"""WebSockets authenticate in `connection_init` (graphql-transport-ws) and are refused before any operation."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.security, pytest.mark.api]

PROTOCOL = "graphql-transport-ws"
COUNT = {"query": "{ documents { totalCount } }"}


@pytest.fixture(scope="module")
async def ws_server(settings: Settings) -> AsyncIterator[RunningServer]:
    keyed = settings.model_copy(update={"dev_mode": False, "port": 0, "ws_connection_init_timeout": 0.5})
    async with run_server(keyed) as running:
        yield running


def _url(server: RunningServer) -> str:
    return server.url.replace("http://", "ws://") + "/graphql"


async def _closed(ws: ClientConnection) -> tuple[int | None, str | None]:
    """Read until the server closes the socket; any message before that is a failure."""
    with pytest.raises(ConnectionClosed):
        message = await ws.recv()
        pytest.fail(f"expected the server to close the socket, got {message!r}")
    return ws.close_code, ws.close_reason


async def _send(ws: ClientConnection, message: dict[str, Any]) -> None:
    await ws.send(json.dumps(message))


async def test_connection_init_without_a_valid_key_is_refused(ws_server: RunningServer, keys: ApiKeyService,
                                                               tenant: str) -> None:
    revoked = await keys.create(tenant)
    await keys.revoke(revoked.key.id)
    for payload in [{}, {"authorization": "Bearer vg_made-up"}, {"authorization": 42}, {"Authorization": "Basic x"},
                    {"authorization": f"Bearer {revoked.secret}"}]:
        async with connect(_url(ws_server), subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
            await _send(ws, {"type": "connection_init", "payload": payload})
            # The operation sent right behind the init must never run: the socket closes first.
            await _send(ws, {"id": "1", "type": "subscribe", "payload": COUNT})
            assert await _closed(ws) == (4403, "Forbidden"), payload


async def test_operations_before_connection_init_are_refused(ws_server: RunningServer) -> None:
    async with connect(_url(ws_server), subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        await _send(ws, {"id": "1", "type": "subscribe", "payload": COUNT})
        assert (await _closed(ws))[0] == 4401
    async with connect(_url(ws_server), subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        assert (await _closed(ws))[0] == 4408, "connection_init must come within the timeout"


async def test_only_graphql_transport_ws_is_spoken(ws_server: RunningServer) -> None:
    async with connect(_url(ws_server), subprotocols=["graphql-ws"]) as ws:  # type: ignore[list-item]
        assert (await _closed(ws))[0] == 4406


async def test_a_valid_key_runs_operations_in_its_tenant(ws_server: RunningServer, keys: ApiKeyService,
                                                         tenant: str) -> None:
    secret = (await keys.create(tenant, all_scopes=True)).secret
    await ws_server.data('mutation { createDocument(input: {path: "ws.md", content: "x"}) { id } }',
                         headers={"Authorization": f"Bearer {secret}"})
    async with connect(_url(ws_server), subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        await _send(ws, {"type": "connection_init", "payload": {"authorization": f"Bearer {secret}"}})
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await _send(ws, {"id": "1", "type": "subscribe", "payload": COUNT})
        reply = json.loads(await ws.recv())
        assert reply == {"id": "1", "type": "next", "payload": {"data": {"documents": {"totalCount": 1}}}}
        assert json.loads(await ws.recv()) == {"id": "1", "type": "complete"}
        await _send(ws, {"type": "connection_init", "payload": {}})
        assert (await _closed(ws))[0] == 4429, "a second connection_init is refused"


async def test_development_mode_needs_no_key(server: RunningServer) -> None:
    await server.data('mutation { createDocument(input: {path: "dev.md", content: "x"}) { id } }')
    async with connect(_url(server), subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        await _send(ws, {"type": "connection_init"})
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await _send(ws, {"id": "1", "type": "subscribe", "payload": COUNT})
        assert json.loads(await ws.recv())["payload"] == {"data": {"documents": {"totalCount": 1}}}
