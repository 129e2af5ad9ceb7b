"""Composition root: `create_app(settings)` wires every piece; the lifespan owns every resource."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from vaultgraph.config import Settings
from vaultgraph.domain import Principal
from vaultgraph.graph.session import Graph
from vaultgraph.health import Neo4jMonitor
from vaultgraph.schema.context import Context, Services
from vaultgraph.schema.root import build_schema
from vaultgraph.services.documents import DocumentService
from vaultgraph.workspace import Workspace, check_key


def neo4j_uri(settings: Settings) -> str:
    return settings.neo4j_uri or settings.local_bolt_uri


def build_services(settings: Settings, graph: Graph) -> Services:
    workspace = Workspace(settings.workspace_dir)
    return Services(documents=DocumentService(graph, workspace, settings.page_size_max))


class GraphQLApp(GraphQL[Context, None]):
    """Strawberry's ASGI app with vaultgraph's typed Context."""

    def __init__(self, services: Services, principal: Principal, **kwargs: Any) -> None:
        super().__init__(build_schema(), **kwargs)
        self.services = services
        self.principal = principal

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        return Context(principal=self.principal, services=self.services, request=request, response=response)


def create_app(settings: Settings) -> Starlette:
    uri = neo4j_uri(settings)
    graph = Graph.connect(uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    monitor = Neo4jMonitor(graph, uri, settings.embedding_dimensions)
    services = build_services(settings, graph)
    # Development mode: one local tenant that sees every scope. API keys replace this (see README).
    principal = Principal(tenant_id=check_key(settings.dev_tenant, "VAULTGRAPH_DEV_TENANT"), sees_all_scopes=True)
    graphql = GraphQLApp(services, principal, graphql_ide="graphiql")

    async def healthz(request: Request) -> JSONResponse:
        health = monitor.health
        body = {
            "status": "ok" if health.state == "up" else "degraded",
            "neo4j": {"state": health.state, "uri": uri, "version": health.version, "error": health.error},
        }
        return JSONResponse(body, status_code=200 if health.state == "up" else 503)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await monitor.check()
        watcher = asyncio.create_task(monitor.watch(), name="neo4j-monitor")
        try:
            yield
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            await graph.close()

    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/graphql", graphql, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", graphql),
        ],
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.services = services
    app.state.monitor = monitor
    return app
