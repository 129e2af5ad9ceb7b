"""The Host check on every route (DNS rebinding), the security headers, what /healthz tells whom, MCP argument
errors in our words, and development mode's vault folders (issue 19: 19.3, 19.10)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.agents.mcp_client import mcp_session, refused
from tests.support.security import bearer
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.security, pytest.mark.api]

COUNT = {"query": "{ documents { totalCount } }"}
MCP_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
async def dev(settings: Settings) -> AsyncIterator[RunningServer]:
    """Development mode with one extra allowed host (any port) and one allowed only on its port."""
    update = {"port": 0, "allowed_hosts": ["vault.lan", "box.lan:8443"], "enrichment_workers": False}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


@pytest.fixture(scope="module")
async def keyed_allowlist(settings: Settings) -> AsyncIterator[RunningServer]:
    update = {"port": 0, "dev_mode": False, "allowed_hosts": ["vault.example.com"], "enrichment_workers": False,
              "api_key_cache_seconds": 0.0}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


def _port(server: RunningServer) -> int:
    return int(server.url.rsplit(":", 1)[1])


def _misdirected(response: httpx.Response) -> None:
    assert response.status_code == 421, (response.status_code, response.text)
    [error] = response.json()["errors"]
    assert error["extensions"] == {"code": "FORBIDDEN", "header": "Host"}
    assert "VAULTGRAPH_ALLOWED_HOSTS" in error["message"]
    assert re.fullmatch(r"[0-9a-f]{16}", response.headers["x-request-id"])


async def test_development_mode_answers_only_loopback_and_allowed_hosts(dev: RunningServer) -> None:
    port = _port(dev)
    for host in ["evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", "10.0.0.5", "", "box.lan",
                 "box.lan:9000", "localhost.:1", "vault.lan.evil.example"]:
        routes: list[tuple[str, str, dict[str, Any] | None, dict[str, str]]] = [
            ("POST", "/graphql", COUNT, {}), ("GET", "/healthz", None, {}), ("GET", "/", None, {}),
            ("POST", "/mcp", MCP_INIT, MCP_HEADERS)]
        for method, path, body, headers in routes:
            _misdirected(await dev.client.request(method, path, json=body, headers={**headers, "host": host}))
    for host in [f"127.0.0.1:{port}", "localhost", f"localhost:{port}", f"[::1]:{port}", "[::1]", "127.0.0.2",
                 "vault.lan", f"VAULT.lan:{port}", "box.lan:8443"]:
        response = await dev.client.post("/graphql", json=COUNT, headers={"host": host})
        assert response.status_code == 200, (host, response.text)
        response = await dev.client.post("/mcp", json=MCP_INIT, headers={**MCP_HEADERS, "host": host})
        assert response.status_code == 200, (host, response.text)
    # A page of another origin (a cross-site form, a WebSocket) is refused too, whatever the Host.
    response = await dev.client.post("/graphql", json=COUNT, headers={"origin": "http://evil.example"})
    assert response.status_code == 403 and response.json()["errors"][0]["extensions"]["header"] == "Origin"
    response = await dev.client.post("/graphql", json=COUNT, headers={"origin": f"http://localhost:{port}"})
    assert response.status_code == 200


async def test_a_websocket_with_a_foreign_host_is_refused_before_it_opens(dev: RunningServer) -> None:
    url = dev.url.replace("http://", "ws://") + "/graphql"
    port = _port(dev)
    with pytest.raises(InvalidStatus) as refused_handshake:  # the URL names the Host; the socket goes to loopback
        async with connect(f"ws://evil.example:{port}/graphql", host="127.0.0.1", port=port,
                           subprotocols=["graphql-transport-ws"]):  # type: ignore[list-item]
            pytest.fail("the handshake was accepted")
    assert refused_handshake.value.response.status_code == 421
    async with connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        assert ws.subprotocol == "graphql-transport-ws"


async def test_with_keys_the_allowlist_when_set_else_any_host(keyed_allowlist: RunningServer,
                                                               keyed_server: RunningServer, keys: ApiKeyService,
                                                               tenant: str) -> None:
    key = bearer((await keys.create(tenant, all_scopes=True)).secret)
    _misdirected(await keyed_allowlist.client.post("/graphql", json=COUNT, headers={**key, "host": "127.0.0.1"}))
    response = await keyed_allowlist.client.post("/graphql", json=COUNT, headers={**key,
                                                                                  "host": "vault.example.com"})
    assert response.status_code == 200, response.text
    # No allowlist: any Host (behind a proxy, under any name); the key is what protects it. Origin is CORS's.
    for host in ["vault.example.com", "anything.example:8443"]:
        response = await keyed_server.client.post("/graphql", json=COUNT,
                                                  headers={**key, "host": host, "origin": "https://app.example"})
        assert response.status_code == 200, response.text


async def test_pages_and_answers_carry_the_security_headers(dev: RunningServer) -> None:
    for path in ["/", "/graphql", "/healthz"]:
        response = await dev.client.get(path, headers={"accept": "text/html"})
        assert response.headers["x-content-type-options"] == "nosniff", path
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "no-referrer"
    explorer = (await dev.client.get("/", headers={"accept": "text/html"})).headers["content-security-policy"]
    assert "script-src 'self';" in explorer and "connect-src 'self'" in explorer
    assert "frame-ancestors 'none'" in explorer and "unsafe-inline" not in explorer.split("script-src")[1][:20]
    page = await dev.client.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    # GraphiQL comes from the web build (no CDN, nothing inline): the explorer's policy (tests/clients).
    assert page.headers["content-security-policy"] == explorer
    api = await dev.client.post("/graphql", json=COUNT)
    assert "content-security-policy" not in api.headers and api.headers["x-content-type-options"] == "nosniff"


async def test_healthz_says_up_or_down_without_a_key(keyed_server: RunningServer, dev: RunningServer,
                                                     keys: ApiKeyService, tenant: str) -> None:
    anonymous = await keyed_server.client.get("/healthz")
    assert anonymous.status_code == 200
    assert anonymous.json() == {"status": "ok", "neo4j": {"state": "up"}}
    for wrong in ["Bearer vg_made-up", "Basic eDp5"]:
        assert (await keyed_server.client.get("/healthz", headers={"Authorization": wrong})).json() == \
            anonymous.json()
    key = bearer((await keys.create(tenant)).secret)
    detailed = (await keyed_server.client.get("/healthz", headers=key)).json()
    assert detailed["neo4j"]["uri"].startswith("bolt://") and detailed["neo4j"]["version"]
    # Development mode: this machine's own pages (the Host check) see the details.
    assert (await dev.client.get("/healthz")).json()["neo4j"]["version"]


async def test_mcp_argument_errors_are_our_own_coded_words(dev: RunningServer, tenant: str) -> None:
    async with mcp_session(dev.url, {"X-Vaultgraph-Tenant": tenant}) as session:
        text = await refused(session, "vault_search", query="x", maxResults=1000)
        assert text.startswith("INVALID_INPUT: maxResults: must be at most 100"), text
        text = await refused(session, "traverse", id="note_x", direction="sideways")
        assert text.startswith("INVALID_INPUT: direction: must be one of"), text
        text = await refused(session, "vault_search")
        assert text.startswith("INVALID_INPUT: query: is required"), text
        text = await refused(session, "backlinks", id="note_x", first="many")
        assert text.startswith("INVALID_INPUT: first: must be a whole number"), text
        for answer in [text]:
            assert "pydantic" not in answer and "validation error" not in answer and "input_value" not in answer


async def test_development_mode_vaults_stay_under_the_data_directory(dev: RunningServer, settings: Settings,
                                                                     tenant: str, tmp_path: Path) -> None:
    outside = tmp_path / "vault"
    outside.mkdir()
    (outside / "a.md").write_text("# A\n")
    headers = {"X-Vaultgraph-Tenant": tenant}
    for mutation in ["mutation($p: String!) { importVault(path: $p) { files } }",
                     "mutation($p: String!) { exportVault(path: $p) { written } }"]:
        for path in [str(outside), "/etc", str(settings.data_dir / ".." / "elsewhere")]:
            body = await dev.graphql(mutation, {"p": path}, headers)
            error = body["errors"][0]
            assert error["extensions"]["code"] == "FORBIDDEN", body
            assert str(settings.data_dir.resolve()) in error["message"]
    inside = settings.data_dir / "vaults" / tenant
    inside.mkdir(parents=True)
    (inside / "a.md").write_text("# A\n")
    imported = await dev.data("mutation($p: String!) { importVault(path: $p) { files } }", {"p": str(inside)},
                              headers)
    assert imported["importVault"]["files"] == 1
