"""A real vaultgraph server for API tests: uvicorn on a free loopback port, in this event loop.

`run_server` starts an app of its own (a test that changes settings needs one); `SharedServer` is the one app a
test process shares between the tests that take the `server` fixture: `for_tenant` makes it serve the next test's
tenant (development mode's default tenant, and its enrichment workers' set) without building another app.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette

from vaultgraph.app import create_app, uvicorn_options
from vaultgraph.config import Settings

# The test clients open a new connection per request. Reusing an idle one races uvicorn's keep-alive (5 s, the same
# as httpx's idle expiry): the server closes it as the client sends, a ReadError of the client's making, seen in
# full-suite runs even with a 2 s client expiry on a loaded machine. A loopback connect costs far less than a retry.
FRESH_CONNECTIONS = httpx.Limits(max_keepalive_connections=0)


@dataclass
class RunningServer:
    url: str
    client: httpx.AsyncClient
    app: Starlette

    async def graphql(
        self, query: str, variables: dict[str, Any] | None = None, headers: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """POST one operation and return the whole response body (data and errors)."""
        response = await self.client.post("/graphql", json={"query": query, "variables": variables or {}},
                                          headers=headers)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    async def data(
        self, query: str, variables: dict[str, Any] | None = None, headers: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """POST one operation that must succeed; return its data."""
        body = await self.graphql(query, variables, headers)
        assert "errors" not in body, body["errors"]
        data: dict[str, Any] = body["data"]
        return data


@contextlib.asynccontextmanager
async def serve_on_loopback(app: Any, port: int = 0, **config: Any) -> AsyncIterator[str]:
    """`app` under real uvicorn on 127.0.0.1 (`port` 0: a free one) in this event loop; yields its base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, **config))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{bound}"
    finally:
        server.should_exit = True
        await task


@contextlib.asynccontextmanager
async def run_server(settings: Settings) -> AsyncIterator[RunningServer]:
    """A server of these settings on a free loopback port. Its enrichment workers never serve every tenant: the
    suite's Neo4j holds every test's documents, each test's files under its own workspace root, so workers serving
    all tenants would claim another test's documents and fail them as missing from the workspace (a run that put
    the tenancy proof beside the multi-process test did). Unnamed, they serve the development tenant; a test with
    tenants of its own adds them (`serve_tenants`)."""
    if settings.enrichment_workers and settings.enrichment_tenants is None:
        settings = settings.model_copy(update={"enrichment_tenants": [settings.dev_tenant]})
    app = create_app(settings)
    async with (serve_on_loopback(app, settings.port, lifespan="on", **uvicorn_options(settings)) as url,
                httpx.AsyncClient(base_url=url, timeout=30, limits=FRESH_CONNECTIONS) as client):
        yield RunningServer(url, client, app)


def serve_tenants(app: Any, tenants: Iterable[str]) -> None:
    """Let the app's enrichment workers (if it runs them) take these tenants' documents too."""
    workers = app.state.workers
    if workers is not None and workers.config.tenants is not None:
        workers.config = dataclasses.replace(workers.config, tenants=workers.config.tenants | set(tenants))


@dataclass
class SharedServer:
    """One app for many tests, one after another (each xdist worker has its own): tenants isolate their data."""

    running: RunningServer

    def for_tenant(self, tenant: str) -> RunningServer:
        """Serve `tenant` as the development-mode default (HTTP, WebSocket and MCP alike: the authenticator is
        one object), and enrich its documents too. Tenants of earlier tests stay served: their leftovers finish."""
        app = self.running.app
        app.state.graphql.authenticator.dev_tenant = tenant
        serve_tenants(app, [tenant])
        return self.running


@contextlib.asynccontextmanager
async def run_shared_server(settings: Settings, first_tenant: str) -> AsyncIterator[SharedServer]:
    """An app whose workers serve only the tenants handed to `for_tenant` (never another run's in the same Neo4j)."""
    update = {"dev_tenant": first_tenant, "port": 0, "enrichment_tenants": [first_tenant]}
    async with run_server(settings.model_copy(update=update)) as running:
        # The embedding session loads on first use (seconds on a loaded machine): in the fixture's set-up, not in
        # the first test's request, whose 30 s client timeout it once ran out.
        await running.app.state.models.embed(["warm up"])
        yield SharedServer(running)
