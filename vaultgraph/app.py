"""Composition root: `create_app(settings)` wires every piece; the lifespan owns every resource."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from vaultgraph.config import Settings
from vaultgraph.domain import Principal
from vaultgraph.errors import InvalidInput
from vaultgraph.graph.session import Graph
from vaultgraph.health import Neo4jMonitor
from vaultgraph.schema.context import Context, Services
from vaultgraph.schema.root import build_schema
from vaultgraph.services.documents import DocumentService
from vaultgraph.services.links import LinkService
from vaultgraph.services.notes import NoteService
from vaultgraph.workspace import Workspace, check_key


def neo4j_uri(settings: Settings) -> str:
    return settings.neo4j_uri or settings.local_bolt_uri


def build_services(settings: Settings, graph: Graph) -> Services:
    workspace = Workspace(settings.workspace_dir)
    links = LinkService(graph, workspace, settings.page_size_max)
    return Services(
        documents=DocumentService(graph, workspace, settings.page_size_max),
        notes=NoteService(graph, settings.page_size_max),
        links=links,
    )


def dev_principal(headers: Mapping[str, str], default_tenant: str) -> Principal:
    """Development mode: the principal from X-Vaultgraph-* headers, else the local tenant seeing every scope.

    Only for a server on loopback; API keys replace this (see the README)."""
    tenant = headers.get("x-vaultgraph-tenant") or default_tenant
    agent = headers.get("x-vaultgraph-agent") or None
    teams = [t.strip() for t in (headers.get("x-vaultgraph-teams") or "").split(",") if t.strip()]
    try:
        check_key(tenant, "X-Vaultgraph-Tenant")
        for value, name in [(agent, "X-Vaultgraph-Agent"), *((t, "X-Vaultgraph-Teams") for t in teams)]:
            if value is not None:
                check_key(value, name)
    except InvalidInput as exc:
        raise HTTPException(400, exc.message) from exc
    return Principal(tenant_id=tenant, agent_id=agent, team_ids=frozenset(teams),
                     sees_all_scopes=agent is None and not teams)


class GraphQLApp(GraphQL[Context, None]):
    """Strawberry's ASGI app with vaultgraph's typed Context."""

    def __init__(self, services: Services, default_tenant: str, **kwargs: Any) -> None:
        super().__init__(build_schema(), **kwargs)
        self.services = services
        self.default_tenant = default_tenant

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        principal = dev_principal(request.headers, self.default_tenant)
        return Context(principal=principal, services=self.services, request=request, response=response)


def create_app(settings: Settings) -> Starlette:
    uri = neo4j_uri(settings)
    graph = Graph.connect(uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    monitor = Neo4jMonitor(graph, uri, settings.embedding_dimensions)
    services = build_services(settings, graph)
    graphql = GraphQLApp(services, check_key(settings.dev_tenant, "VAULTGRAPH_DEV_TENANT"), graphql_ide="graphiql")

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
    app.state.graph = graph
    app.state.services = services
    app.state.monitor = monitor
    return app
