"""Composition root: `create_app(settings)` wires every piece; the lifespan owns every resource."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket
from strawberry import Schema
from strawberry.schema.config import StrawberryConfig

from vaultgraph.agents.server import build_endpoint
from vaultgraph.config import Settings
from vaultgraph.events import EventBus
from vaultgraph.events_redis import build_event_bus
from vaultgraph.explorer import Explorer
from vaultgraph.graph.session import Graph
from vaultgraph.health import Neo4jMonitor
from vaultgraph.http.auth import Authenticator, check_bind
from vaultgraph.http.body_limit import BodySizeLimit
from vaultgraph.http.disconnects import RequestIds
from vaultgraph.http.rate_limit import RateLimiter
from vaultgraph.http.view import GuardedGraphQL
from vaultgraph.interop.vault import VaultService
from vaultgraph.models import ModelClient, ModelConfig, build_model_client
from vaultgraph.schema.context import Context, Services
from vaultgraph.schema.limits import Limits, limit_extensions
from vaultgraph.schema.root import build_schema
from vaultgraph.services.auth import ApiKeyService
from vaultgraph.services.context_pack import ContextPackService
from vaultgraph.services.documents import DocumentService
from vaultgraph.services.enrichment import EnrichmentService
from vaultgraph.services.fuzzy_links import FuzzyResolver, save_hook
from vaultgraph.services.indexing import Indexer, chunking_policy
from vaultgraph.services.links import LinkService
from vaultgraph.services.notes import NoteService
from vaultgraph.services.search import SearchService, search_config
from vaultgraph.services.suggestions import SuggestionService
from vaultgraph.services.uploads import UploadLimits, UploadService
from vaultgraph.services.weekly_review import WeeklyReviewService
from vaultgraph.services.workspace_sync import WorkspaceSync
from vaultgraph.services.workspace_watch import WorkspaceWatcher
from vaultgraph.text.tokens import TokenCounter
from vaultgraph.workers.pool import WorkerPool, build_worker_pool
from vaultgraph.workspace import Workspace, check_key


def neo4j_uri(settings: Settings) -> str:
    return settings.neo4j_uri or settings.local_bolt_uri


def upload_limits(settings: Settings) -> UploadLimits:
    return UploadLimits(max_files=settings.upload_max_files, max_file_bytes=settings.upload_max_file_bytes,
                        max_body_bytes=settings.upload_max_body_bytes, max_concurrent=settings.upload_max_concurrent)


def build_services(settings: Settings, graph: Graph, models: ModelClient, bus: EventBus | None = None) -> Services:
    workspace = Workspace(settings.workspace_dir)
    links = LinkService(graph, workspace, settings.page_size_max)
    bus = bus or build_event_bus(settings.redis_url, settings.event_queue_size)  # Redis when REDIS_URL is set
    enrichment = EnrichmentService(graph, bus, settings.event_queue_size)
    documents = DocumentService(graph, workspace, settings.page_size_max, on_created=enrichment.enqueue,
                                on_changed=enrichment.enqueue)
    search = SearchService(graph, models, search_config(settings))
    fuzzy = FuzzyResolver(graph, search, models)
    indexer = Indexer(graph, models, chunking_policy(settings))
    notes = NoteService(graph, settings.page_size_max, indexer=save_hook(indexer, fuzzy))
    sync = WorkspaceSync(graph, workspace, documents, links, enrichment.bus, on_changed=enrichment.enqueue)
    vault = VaultService(notes, documents, links, vault_folders(settings))
    return Services(documents=documents, notes=notes, links=links, vault=vault, enrichment=enrichment,
                    search=search, suggestions=SuggestionService(graph, search), fuzzy=fuzzy,
                    context_pack=ContextPackService(search, links, TokenCounter()), workspace_sync=sync,
                    uploads=UploadService(graph, workspace, sync, links, upload_limits(settings)),
                    weekly_review=WeeklyReviewService(graph, notes, models))


def vault_folders(settings: Settings) -> list[Path] | None:
    """Where the API may import and export vaults: the configured folders, else anywhere on a development server
    (one local user, loopback only) and nowhere on a server that requires API keys."""
    if settings.vault_dirs is not None:
        return settings.vault_dirs
    return None if settings.dev_mode else []


def model_config(settings: Settings) -> ModelConfig:
    return ModelConfig(
        base_url=settings.openai_base_url, api_key=settings.openai_api_key, chat_model=settings.chat_model,
        embedding_model=settings.embedding_model, embedding_dimensions=settings.embedding_dimensions,
        timeout_seconds=settings.model_timeout, max_retries=settings.model_max_retries,
    )


def build_workers(settings: Settings, graph: Graph, models: ModelClient, bus: EventBus) -> WorkerPool:
    """The enrichment pool and its dependencies, for this process's lifespan or a `vaultgraph worker` process;
    builds objects only (`start()` starts the tasks)."""
    return build_worker_pool(settings, graph, Workspace(settings.workspace_dir), models, bus,
                             chunk_indexer=Indexer(graph, models, chunking_policy(settings)))


class GraphQLApp(GuardedGraphQL):
    """Strawberry's ASGI app with vaultgraph's typed Context; who is asking comes from http/auth.py."""

    def __init__(self, services: Services, schema: Schema, authenticator: Authenticator, **kwargs: Any) -> None:
        super().__init__(schema, authenticator, **kwargs)
        self.services = services

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        principal = await self.principal(request)
        return Context(principal=principal, services=self.services, request=request, response=response)


def build_graphql(settings: Settings, services: Services, keys: ApiKeyService) -> GraphQLApp:
    """The GraphQL app with the API limits, the batching cap and the admission rules from Settings."""
    dev_tenant = check_key(settings.dev_tenant, "VAULTGRAPH_DEV_TENANT") if settings.dev_mode else None
    authenticator = Authenticator(keys, RateLimiter(settings.rate_limit_per_second, settings.rate_limit_burst),
                                  dev_tenant)
    schema = build_schema(limit_extensions(Limits.from_settings(settings)),
                          StrawberryConfig(batching_config={"max_operations": settings.max_batch_operations}))
    return GraphQLApp(services, schema, authenticator, ws_init_timeout=settings.ws_connection_init_timeout,
                      graphql_ide="graphiql" if settings.graphiql else None, upload_limits=upload_limits(settings))


def create_app(settings: Settings) -> Starlette:
    check_bind(settings)  # before anything opens: development mode never listens beyond loopback
    uri = neo4j_uri(settings)
    graph = Graph.connect(uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    monitor = Neo4jMonitor(graph, uri, settings.embedding_dimensions)
    models = build_model_client(model_config(settings))
    services = build_services(settings, graph, models)
    keys = ApiKeyService(graph, settings.api_key_cache_seconds)
    graphql = build_graphql(settings, services, keys)
    mcp = build_endpoint(services, graphql.authenticator, settings.host)  # same admission rules as GraphQL
    workers = build_workers(settings, graph, models, services.enrichment.bus) if settings.enrichment_workers else None
    workspace_watcher = (WorkspaceWatcher(services.workspace_sync, settings.workspace_dir,
                                          settings.workspace_watch_debounce_ms)
                         if settings.workspace_watch else None)

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
        await services.enrichment.bus.start()  # Redis: subscribed before anyone can subscribe or publish
        if workers is not None:
            await workers.start()
        if workspace_watcher is not None:
            await workspace_watcher.start()  # after the workers: what it finds changed gets enriched
        try:
            async with mcp.manager.run():  # the MCP session manager's task group
                yield
        finally:
            if workspace_watcher is not None:
                await workspace_watcher.stop()  # before the workers: no batch half-synced when they go
            if workers is not None:
                await workers.stop()  # before the driver closes: it gives the held leases back
            await services.enrichment.bus.aclose()
            await models.aclose()
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            await graph.close()

    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/graphql", graphql, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", graphql),
            Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]),
            Mount("/", app=Explorer()),  # the web explorer (web/dist), after the API routes
        ],
        lifespan=lifespan,
        middleware=[Middleware(RequestIds),  # outermost: ids, and a client gone is no server error
                    Middleware(BodySizeLimit, max_bytes=settings.max_body_bytes,
                               upload_max_bytes=settings.upload_max_body_bytes)],
    )
    app.state.settings = settings
    app.state.keys = keys
    app.state.graphql = graphql
    app.state.graph = graph
    app.state.services = services
    app.state.monitor = monitor
    app.state.models = models
    app.state.workers = workers
    app.state.watcher = workspace_watcher
    return app
