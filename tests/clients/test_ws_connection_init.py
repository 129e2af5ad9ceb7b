"""A browser cannot set a WebSocket's headers, so its graphql-transport-ws `connection_init` payload carries them:
in development mode the X-Vaultgraph-* names there choose the tenant, agent and teams (a contradiction with the
handshake's headers closes the socket with 4400 and says which); with keys required an API key there
authenticates (issue 22.8)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support.graphql_ws import PROTOCOL, graphql_ws
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.api]

NOTES = "{ notes { totalCount edges { node { slug } } } }"


@pytest.fixture(scope="module")
async def keyed(settings: Settings) -> AsyncIterator[RunningServer]:
    update = {"port": 0, "dev_mode": False, "enrichment_workers": False}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


async def _note_in(server: RunningServer, tenant: str) -> str:
    saved = await server.data('mutation { saveNote(input: {title: "Socket tenant", body: "x"}) { note { slug } } }',
                              headers={"X-Vaultgraph-Tenant": tenant})
    slug: str = saved["saveNote"]["note"]["slug"]
    return slug


async def _ask(url: str, payload: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    async with graphql_ws(url, headers=headers, init_payload=payload) as ws:
        return await ws.receive(await ws.subscribe(NOTES))


async def test_the_payload_names_the_tenant_in_development_mode(server: RunningServer) -> None:
    other = f"t{uuid.uuid4().hex[:16]}"  # not the server's default tenant (the test's own)
    slug = await _note_in(server, other)
    seen = {"data": {"notes": {"totalCount": 1, "edges": [{"node": {"slug": slug}}]}}}
    assert await _ask(server.url, {"X-Vaultgraph-Tenant": other}) == seen
    assert await _ask(server.url, {"headers": {"x-vaultgraph-tenant": other}}) == seen  # graphql-ws's `headers`
    assert await _ask(server.url, {"X-Vaultgraph-Tenant": other}, {"X-Vaultgraph-Tenant": other}) == seen
    # No tenant in the payload: the default tenant, as over HTTP without the header.
    assert await _ask(server.url, {}) == {"data": {"notes": {"totalCount": 0, "edges": []}}}
    # An agent named in the payload sees what that agent sees (here: the shared note too).
    assert await _ask(server.url, {"X-Vaultgraph-Tenant": other, "X-Vaultgraph-Agent": "scout",
                                   "X-Vaultgraph-Teams": ["red", "blue"]}) == seen


async def _closed(url: str, payload: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[int, str]:
    ws_url = url.replace("http://", "ws://") + "/graphql"
    async with connect(ws_url, subprotocols=[PROTOCOL], additional_headers=headers or {}) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": payload}))
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": NOTES}}))
        with pytest.raises(ConnectionClosed):
            message = await ws.recv()
            pytest.fail(f"expected a close, got {message!r}")
        assert ws.close_code is not None and ws.close_reason is not None
        return ws.close_code, ws.close_reason


async def test_a_payload_that_contradicts_the_handshake_or_is_malformed_closes_4400(server: RunningServer) -> None:
    code, reason = await _closed(server.url, {"X-Vaultgraph-Tenant": "alpha"}, {"X-Vaultgraph-Tenant": "beta"})
    assert code == 4400 and "x-vaultgraph-tenant" in reason and "connection_init" in reason, reason
    code, reason = await _closed(server.url, {"X-Vaultgraph-Tenant": "../etc"})
    assert code == 4400 and "X-Vaultgraph-Tenant" in reason, reason
    code, reason = await _closed(server.url, {"X-Vaultgraph-Tenant": 7})
    assert code == 4400 and "must be a string" in reason, reason


async def test_with_keys_required_an_api_key_in_the_payload_authenticates(keyed: RunningServer, keys: ApiKeyService,
                                                                         tenant: str) -> None:
    created = await keys.create(tenant)
    empty = {"data": {"notes": {"totalCount": 0, "edges": []}}}
    assert await _ask(keyed.url, {"Authorization": f"Bearer {created.secret}"}) == empty
    # The payload's tenant names do not choose a tenant when keys are required: the key's tenant is the one.
    assert await _ask(keyed.url, {"headers": {"authorization": f"Bearer {created.secret}",
                                              "x-vaultgraph-tenant": "someone-else"}}) == empty
    assert await _closed(keyed.url, {"X-Vaultgraph-Tenant": tenant}) == (4403, "Forbidden")
