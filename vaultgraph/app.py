"""The HTTP app: `create_app(settings)` puts routes and middleware around the Runtime (runtime.py), which its
lifespan enters, so every resource is owned by the one composition root."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket
from strawberry import Schema
from strawberry.extensions import SchemaExtension
from strawberry.schema.config import StrawberryConfig

from vaultgraph.agents.server import build_endpoint
from vaultgraph.config import Settings
from vaultgraph.events.foreground import Foreground
from vaultgraph.explorer import Explorer
from vaultgraph.http.auth import Authenticator, check_bind
from vaultgraph.http.body_limit import BodySizeLimit
from vaultgraph.http.cors import CorsPolicy
from vaultgraph.http.disconnects import RequestIds
from vaultgraph.http.files import DocumentFiles
from vaultgraph.http.hosts import HostCheck, HostPolicy
from vaultgraph.http.metrics import metrics_endpoint
from vaultgraph.http.rate_limit import RateLimiter
from vaultgraph.http.view import GuardedGraphQL
from vaultgraph.http.ws import FRAME_SLACK_BYTES
from vaultgraph.metrics import Metrics
from vaultgraph.resolvers.root import build_schema
from vaultgraph.runtime import build_runtime, upload_limits
from vaultgraph.schema.context import Context
from vaultgraph.schema.extensions.limits import Limits, limit_extensions
from vaultgraph.schema.use_cases import Services
from vaultgraph.services.auth import ApiKeyService
from vaultgraph.workspace import check_key


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """What uvicorn needs beyond the app, for `vaultgraph serve` and the test servers alike: a WebSocket frame is
    read only a little past the request cap (http/ws.py answers a message over the cap; uvicorn's default reads
    16 MiB). No permessage-deflate: subscription frames are a few hundred bytes, which compression does not
    shrink, and compressing each socket's copy of an event was a tenth of a fan-out's CPU (bench/README.md)."""
    return {"ws": "websockets-sansio", "ws_max_size": settings.max_body_bytes + FRAME_SLACK_BYTES,
            "ws_per_message_deflate": False}


# The cyclic collector's thresholds in a serving process (`tune_collector`); CPython's default is (700, 10, 10).
COLLECTOR_THRESHOLDS = (50_000, 20, 10)


def tune_collector() -> None:
    """Fit the cyclic garbage collector to a server holding many long-lived sockets, before it starts serving.

    Each open subscription keeps a few hundred objects alive (its socket, task, stream and handler), so 2,000 of
    them are about a million. CPython's default collects the youngest objects every 700 allocations, which a
    fan-out reaches many times per event, with the sockets not yet served holding objects in flight; those
    survive into the older generations, and as these grow a full collection walks every socket's objects: 0.1 to
    1 s with the process stopped, the publish -> last client tail (bench/README.md, fan-out). 50,000 makes the
    young collections rarer and leaves objects time to die first; `gc.freeze()` takes what is built before
    serving (modules, the schema, the app) out of every later collection. Garbage cycles still go, only later."""
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


class GraphQLApp(GuardedGraphQL):
    """Strawberry's ASGI app with vaultgraph's typed Context; who is asking comes from http/auth.py."""

    metrics: Metrics | None = None

    def __init__(self, services: Services, schema: Schema, authenticator: Authenticator, **kwargs: Any) -> None:
        super().__init__(schema, authenticator, **kwargs)
        self.services = services

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        principal = await self.principal(request)
        return Context(principal=principal, services=self.services, request=request, response=response)


def tracing_extension() -> Callable[[], SchemaExtension]:
    """strawberry's OpenTelemetry extension (VAULTGRAPH_OTEL_TRACING), resolver arguments left out of the spans:
    they carry note bodies and search text. Imported only when asked for: the `otel` extra may be absent."""
    try:
        from strawberry.extensions.tracing import OpenTelemetryExtension
    except ImportError as exc:
        raise RuntimeError("VAULTGRAPH_OTEL_TRACING needs OpenTelemetry: pip install 'vaultgraph[otel]'") from exc
    return lambda: OpenTelemetryExtension(arg_filter=lambda arguments, info: {})


def build_graphql(settings: Settings, services: Services, keys: ApiKeyService, cors: CorsPolicy,
                  metrics: Metrics | None = None, foreground: Foreground | None = None) -> GraphQLApp:
    """The GraphQL app with the API limits, the batching cap and the admission rules from Settings."""
    dev_tenant = check_key(settings.dev_tenant, "VAULTGRAPH_DEV_TENANT") if settings.dev_mode else None
    authenticator = Authenticator(keys, RateLimiter(settings.rate_limit_per_second, settings.rate_limit_burst),
                                  dev_tenant)
    extensions = limit_extensions(Limits.from_settings(settings))
    if settings.otel_tracing:
        extensions.append(tracing_extension())
    schema = build_schema(extensions,
                          StrawberryConfig(batching_config={"max_operations": settings.max_batch_operations}),
                          metrics)
    app = GraphQLApp(services, schema, authenticator, ws_init_timeout=settings.ws_connection_init_timeout,
                     graphql_ide="graphiql" if settings.graphiql else None, upload_limits=upload_limits(settings),
                     max_message_bytes=settings.max_body_bytes, persisted_queries=settings.persisted_query_cache,
                     cors=cors, foreground=foreground)
    app.metrics = metrics  # open sockets (http/ws.py)
    return app


def create_app(settings: Settings) -> Starlette:
    check_bind(settings)  # before anything opens: development mode never listens beyond loopback
    cors = CorsPolicy(settings.cors_origins, settings.dev_mode)  # a malformed origin fails here, before too
    runtime = build_runtime(settings)
    services, monitor = runtime.services, runtime.monitor
    graphql = build_graphql(settings, services, runtime.keys, cors, runtime.metrics, runtime.foreground)
    mcp = build_endpoint(services, graphql.authenticator, runtime.foreground)  # same admission rules as GraphQL

    async def healthz(request: Request) -> JSONResponse:
        """Up or down for anyone (a load balancer has no key); where Neo4j is and which version it runs only for a
        valid API key, or in development mode (the Host check keeps that to this machine's own pages)."""
        health = monitor.health
        neo4j: dict[str, Any] = {"state": health.state}
        if await graphql.authenticator.may_see_details(request):
            neo4j.update(uri=runtime.uri, version=health.version, error=health.error)
        body = {"status": "ok" if health.state == "up" else "degraded", "neo4j": neo4j}
        return JSONResponse(body, status_code=200 if health.state == "up" else 503)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with runtime.running(), mcp.manager.run():  # the MCP session manager's task group
            yield

    routes = [Route("/metrics", metrics_endpoint(settings, runtime.metrics))] if runtime.metrics is not None else []
    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            *routes,
            Route("/graphql", graphql, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", graphql),
            Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
            Route("/files/{id}", DocumentFiles(graphql.authenticator, services.documents), methods=["GET"]),
            Mount("/", app=Explorer()),  # the web explorer (web/dist), after the API routes
        ],
        lifespan=lifespan,
        middleware=[Middleware(RequestIds),  # outermost: ids and headers, and a client gone is no server error
                    Middleware(HostCheck, policy=HostPolicy(settings.allowed_hosts, settings.dev_mode, cors)),
                    cors.middleware(),  # behind the Host check: a preflight to a rebound name is refused too
                    Middleware(BodySizeLimit, max_bytes=settings.max_body_bytes,
                               upload_max_bytes=settings.upload_max_body_bytes)],
    )
    app.state.settings = settings
    app.state.runtime = runtime
    app.state.keys = runtime.keys
    app.state.graphql = graphql
    app.state.graph = runtime.graph
    app.state.services = services
    app.state.monitor = monitor
    app.state.models = runtime.models
    app.state.workers = runtime.workers
    app.state.watcher = runtime.watcher
    return app
