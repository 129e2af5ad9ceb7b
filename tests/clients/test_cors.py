"""CORS through Starlette's CORSMiddleware: preflights, credentials, the auth headers, loopback pages in development
mode, configured origins only with keys required, foreign origins refused; WebSockets follow the same rule
(issue 22.3)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.support.graphql_ws import PROTOCOL
from tests.support.security import bearer
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.api]

APP = "https://app.example.com"
COUNT = {"query": "{ documents { totalCount } }"}
AUTH_HEADERS = "authorization,content-type,x-vaultgraph-tenant,x-vaultgraph-agent,x-vaultgraph-teams"


@pytest.fixture(scope="module")
async def dev(settings: Settings) -> AsyncIterator[RunningServer]:
    update = {"port": 0, "cors_origins": [APP + "/"], "enrichment_workers": False}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


@pytest.fixture(scope="module")
async def keyed(settings: Settings) -> AsyncIterator[RunningServer]:
    update = {"port": 0, "dev_mode": False, "cors_origins": [APP], "enrichment_workers": False}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


async def _preflight(server: RunningServer, origin: str) -> httpx.Response:
    return await server.client.options("/graphql", headers={
        "origin": origin, "access-control-request-method": "POST", "access-control-request-headers": AUTH_HEADERS})


def _allowed(response: httpx.Response, origin: str) -> None:
    assert response.status_code == 200, (origin, response.status_code, response.text)
    assert response.headers["access-control-allow-origin"] == origin
    assert response.headers["access-control-allow-credentials"] == "true"


@pytest.mark.parametrize("origin", ["http://localhost:5173", "https://127.0.0.1:9", "http://[::1]:3000",
                                    "http://localhost", APP])
async def test_development_mode_allows_loopback_pages_on_any_port_and_configured_origins(
        dev: RunningServer, origin: str) -> None:
    preflight = await _preflight(dev, origin)
    _allowed(preflight, origin)
    assert set(AUTH_HEADERS.split(",")) <= set(preflight.headers["access-control-allow-headers"].lower().split(", "))
    assert "POST" in preflight.headers["access-control-allow-methods"]
    response = await dev.client.post("/graphql", json=COUNT, headers={"origin": origin})
    _allowed(response, origin)
    assert "x-request-id" in response.headers["access-control-expose-headers"].lower()
    assert response.headers["x-content-type-options"] == "nosniff"  # the security headers stay


@pytest.mark.parametrize("origin", ["https://evil.example", "http://localhost.evil.example:5173",
                                    "http://127.0.0.1.evil.example", "null"])
async def test_development_mode_refuses_foreign_origins(dev: RunningServer, origin: str) -> None:
    for response in [await _preflight(dev, origin),
                     await dev.client.post("/graphql", json=COUNT, headers={"origin": origin})]:
        assert response.status_code == 403, (origin, response.text)
        assert "access-control-allow-origin" not in response.headers
        assert response.json()["errors"][0]["extensions"] == {"code": "FORBIDDEN", "header": "Origin"}


async def test_keys_required_allow_only_the_configured_origins(keyed: RunningServer, keys: ApiKeyService,
                                                               tenant: str) -> None:
    _allowed(await _preflight(keyed, APP), APP)
    created = await keys.create(tenant)
    response = await keyed.client.post("/graphql", json=COUNT, headers={"origin": APP, **bearer(created.secret)})
    _allowed(response, APP)
    assert response.json() == {"data": {"documents": {"totalCount": 0}}}
    for origin in ["http://localhost:5173", "https://evil.example"]:
        refused = await _preflight(keyed, origin)
        assert refused.status_code == 400 and "access-control-allow-origin" not in refused.headers, origin
        simple = await keyed.client.post("/graphql", json=COUNT, headers={"origin": origin, **bearer(created.secret)})
        assert "access-control-allow-origin" not in simple.headers  # the browser keeps the answer from the page


async def test_a_websocket_from_an_allowed_page_opens_and_a_foreign_one_does_not(dev: RunningServer) -> None:
    url = dev.url.replace("http://", "ws://") + "/graphql"
    for origin in ["http://localhost:5173", APP]:
        async with connect(url, subprotocols=[PROTOCOL], origin=origin) as ws:  # type: ignore[list-item,arg-type]
            assert ws.subprotocol == PROTOCOL
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, subprotocols=[PROTOCOL], origin="https://evil.example"):  # type: ignore[list-item,arg-type]
            pass
    assert refused.value.response.status_code == 403


def test_a_configured_origin_must_be_an_origin(settings: Settings) -> None:
    from vaultgraph.app import create_app
    with pytest.raises(ValueError, match="is not an origin"):
        create_app(settings.model_copy(update={"cors_origins": ["https://app.example.com/path"]}))
