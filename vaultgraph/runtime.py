"""The one composition root: `build_runtime(settings)` wires settings → driver, bus, models, services, workers.

The API process (`create_app`), `vaultgraph worker`, every CLI command and the bench server take their pieces from
here, so a note imported from the command line goes through exactly the pipeline a `saveNote` does (embedded and
indexed), and a worker process runs exactly what the API's lifespan runs. Building only makes objects;
`Runtime.running()` starts what has tasks (the Neo4j monitor, the bus, the workers, the watcher) and stops it all
in the reverse order.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import structlog

from vaultgraph.config import Settings
from vaultgraph.errors import Unavailable
from vaultgraph.events.bus import EventBus
from vaultgraph.events.foreground import Foreground
from vaultgraph.events.redis import build_event_bus
from vaultgraph.graph.session import Graph
from vaultgraph.health import Neo4jMonitor
from vaultgraph.interop.vault import VaultService
from vaultgraph.metrics import MeasuredModels, Metrics
from vaultgraph.models import ModelClient, ModelConfig, build_model_client
from vaultgraph.models.local_embedding import LocalEmbeddingConfig, default_tokenizer_path, offline_model
from vaultgraph.models.rerank import HttpReranker, RerankConfig, Reranker
from vaultgraph.schema.use_cases import Services
from vaultgraph.services.auth import ApiKeyService
from vaultgraph.services.context_pack import ContextPackService
from vaultgraph.services.days import DayService
from vaultgraph.services.documents import DocumentService
from vaultgraph.services.enrichment import EnrichmentService
from vaultgraph.services.fuzzy_links import FuzzyResolver, save_hook
from vaultgraph.services.indexing import Indexer, chunking_policy
from vaultgraph.services.links import LinkService
from vaultgraph.services.meetings import MeetingService
from vaultgraph.services.mentions import MentionService
from vaultgraph.services.note_renames import DocumentFiles
from vaultgraph.services.notes import NoteService
from vaultgraph.services.search import SearchService, search_config
from vaultgraph.services.suggestions import SuggestionService
from vaultgraph.services.topics import TopicService
from vaultgraph.services.uploads import UploadLimits, UploadService
from vaultgraph.services.vectors import Reembedder, check_models
from vaultgraph.services.weekly_review import WeeklyReviewService
from vaultgraph.services.workspace_sync import WorkspaceSync
from vaultgraph.services.workspace_watch import WorkspaceWatcher
from vaultgraph.text.tokens import TokenCounter
from vaultgraph.workers.pool import WorkerPool, build_worker_pool
from vaultgraph.workspace import Workspace

log = structlog.get_logger(__name__)


def neo4j_uri(settings: Settings) -> str:
    return settings.neo4j_uri or settings.local_bolt_uri


def upload_limits(settings: Settings) -> UploadLimits:
    return UploadLimits(max_files=settings.upload_max_files, max_file_bytes=settings.upload_max_file_bytes,
                        max_body_bytes=settings.upload_max_body_bytes, max_concurrent=settings.upload_max_concurrent)


def model_config(settings: Settings) -> ModelConfig:
    return ModelConfig(
        base_url=settings.openai_base_url, api_key=settings.openai_api_key, chat_model=settings.chat_model,
        embedding_model=settings.embedding_model, embedding_dimensions=settings.embedding_dimensions,
        timeout_seconds=settings.model_timeout, max_retries=settings.model_max_retries,
        local=LocalEmbeddingConfig(model=offline_model(settings.local_embedding_model)),
    )


def build_reranker(settings: Settings) -> Reranker | None:
    """The rerank endpoint's client when VAULTGRAPH_RERANK_URL is set; None (no second stage) otherwise."""
    if not settings.rerank_url or not settings.rerank_model:
        return None
    return HttpReranker(RerankConfig(url=settings.rerank_url, model=settings.rerank_model,
                                     api_key=settings.rerank_api_key, timeout_seconds=settings.rerank_timeout,
                                     max_retries=settings.rerank_max_retries))


def vault_folders(settings: Settings) -> list[Path]:
    """Where the API may import and export vaults: the configured folders, else the data directory on a development
    server (a page that reaches it through the browser must not read or write the rest of the machine) and nowhere
    on a server that requires API keys."""
    if settings.vault_dirs is not None:
        return settings.vault_dirs
    return [settings.data_dir] if settings.dev_mode else []


def build_services(settings: Settings, graph: Graph, models: ModelClient, bus: EventBus,
                   reranker: Reranker | None = None) -> Services:
    workspace = Workspace(settings.workspace_dir)
    links = LinkService(graph, workspace, settings.page_size_max)
    enrichment = EnrichmentService(graph, bus, settings.event_queue_size)
    documents = DocumentService(graph, workspace, settings.page_size_max, on_created=enrichment.enqueue,
                                on_changed=enrichment.enqueue)
    search = SearchService(graph, models, search_config(settings), workspace.root, reranker)
    fuzzy = FuzzyResolver(graph, search, models)
    indexer = Indexer(graph, models, chunking_policy(settings))
    notes = NoteService(graph, settings.page_size_max, indexer=save_hook(indexer, fuzzy),
                        on_deferred=enrichment.notes_queued,
                        files=DocumentFiles(workspace, settings.enrichment_max_bytes))
    sync = WorkspaceSync(graph, workspace, documents, links, enrichment.bus, on_changed=enrichment.enqueue)
    vault = VaultService(notes, documents, links, vault_folders(settings))
    return Services(documents=documents, notes=notes, links=links, vault=vault, enrichment=enrichment,
                    search=search, suggestions=SuggestionService(graph, search), fuzzy=fuzzy,
                    context_pack=ContextPackService(search, links, TokenCounter(default_tokenizer_path())),
                    workspace_sync=sync,
                    uploads=UploadService(graph, workspace, sync, links, upload_limits(settings)),
                    weekly_review=WeeklyReviewService(graph, notes, models), meetings=MeetingService(notes),
                    days=DayService(notes), mentions=MentionService(graph), topics=TopicService(graph))


# The longest a stopping runtime waits for its startup embedding-model check to finish.
MODEL_CHECK_SECONDS = 10.0


@dataclass
class Runtime:
    """Everything one process runs, built from one `Settings`; enter `running()` to start it."""

    settings: Settings
    uri: str
    graph: Graph
    monitor: Neo4jMonitor
    models: ModelClient
    bus: EventBus
    services: Services
    keys: ApiKeyService
    workers: WorkerPool | None
    watcher: WorkspaceWatcher | None
    reembedder: Reembedder
    metrics: Metrics | None = None  # /metrics (VAULTGRAPH_METRICS): None when off
    reranker: Reranker | None = None  # VAULTGRAPH_RERANK_URL: None when off
    # The requests this process is answering; its workers give way to them (events/foreground.py).
    foreground: Foreground = field(default_factory=Foreground)

    @contextlib.asynccontextmanager
    async def running(self, require_neo4j: bool = False) -> AsyncIterator[Runtime]:
        """Start the monitor (which applies the migrations once Neo4j answers), the bus, the workers and the
        watcher; stop them in the reverse order. A server tolerates a Neo4j that is down at start (it reports
        `degraded` and retries); a CLI command asks for `require_neo4j` and gets `Unavailable` at once."""
        up = await self.monitor.check()
        if require_neo4j and not up:
            await self._close()
            raise Unavailable(f"Neo4j at {self.uri} does not answer: {self.monitor.health.error}")
        monitor = asyncio.create_task(self.monitor.watch(), name="neo4j-monitor")
        stage_timer: asyncio.Task[None] | None = None
        check = asyncio.create_task(self._check_models(), name="embedding-model-check") if up else None
        try:
            await self.bus.start()  # Redis: subscribed before anyone can subscribe or publish
            if self.workers is not None:
                await self.workers.start()
            if self.watcher is not None:
                await self.watcher.start()  # after the workers: what it finds changed gets enriched
            if self.metrics is not None:  # after the bus has started: subscriptions made then miss nothing
                stage_timer = asyncio.create_task(self.metrics.time_stages(self.bus), name="metrics-stages")
            yield self
        finally:
            if stage_timer is not None:
                stage_timer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await stage_timer
            if self.watcher is not None:
                await self.watcher.stop()  # before the workers: no batch half-synced when they go
            if self.workers is not None:
                await self.workers.stop()  # before the driver closes: it gives the held leases back
            await self.bus.aclose()
            if check is not None:
                # Waited for, not cancelled: a Bolt read cancelled midway leaves its socket to the garbage
                # collector (a ResourceWarning after a short CLI command); the check is one read, and bounded.
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.wait_for(check, MODEL_CHECK_SECONDS)
            monitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await monitor
            await self._close()

    def operator_vault(self) -> VaultService:
        """The vault import and export of whoever runs this process (the CLI's, the bench's): the services' own,
        with no folder limit, which only binds what API callers may name (VAULTGRAPH_VAULT_DIRS)."""
        services = self.services
        return VaultService(services.notes, services.documents, services.links)

    async def _check_models(self) -> None:
        """The startup warning when stored vectors come from another embedding model (`vaultgraph reembed`)."""
        try:
            # A process sharded to some tenants (VAULTGRAPH_ENRICHMENT_TENANTS) speaks for theirs.
            await check_models(self.reembedder, self.settings.enrichment_tenants)
        except Exception as exc:  # a hint only: Neo4j away again, say so and go on
            log.warning("embedding model check failed", error=str(exc)[:300])

    async def _close(self) -> None:
        await self.models.aclose()
        if self.reranker is not None:
            await self.reranker.aclose()
        await self.graph.close()


def build_runtime(settings: Settings, uri: str | None = None, *, workers: bool | None = None,
                  watcher: bool | None = None, bus_tenants: list[str] | None = None) -> Runtime:
    """The one wiring of every piece. `workers`/`watcher` default to the settings (a CLI command passes False:
    the server's workers pick up what it queues); `uri` defaults to NEO4J_URI or the local server; `bus_tenants`
    narrows what a Redis bus listens to (a worker process sharded with VAULTGRAPH_ENRICHMENT_TENANTS; an API
    replica listens to every tenant, since any of them may subscribe)."""
    uri = uri or neo4j_uri(settings)
    graph = Graph.connect(uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    metrics = Metrics() if settings.metrics else None
    models = build_model_client(model_config(settings))
    if metrics is not None:
        models = cast(ModelClient, MeasuredModels(models, metrics))  # every embedding call's size and time
    bus = build_event_bus(settings.redis_url, settings.event_queue_size, bus_tenants)
    reranker = build_reranker(settings)
    services = build_services(settings, graph, models, bus, reranker)
    reembedder = Reembedder(graph, models, chunking_policy(settings))
    foreground = Foreground(max_wait=settings.enrichment_give_way_seconds)
    pool = None
    if settings.enrichment_workers if workers is None else workers:
        pool = build_worker_pool(settings, graph, Workspace(settings.workspace_dir), models, bus,
                                 chunk_indexer=Indexer(graph, models, chunking_policy(settings)),
                                 note_hook=services.notes.indexer, reembedder=reembedder, foreground=foreground)
    watch = None
    if settings.workspace_watch if watcher is None else watcher:
        watch = WorkspaceWatcher(services.workspace_sync, settings.workspace_dir, settings.workspace_watch_debounce_ms)
    return Runtime(settings=settings, uri=uri, graph=graph,
                   monitor=Neo4jMonitor(graph, uri, settings.embedding_dimensions), models=models, bus=bus,
                   services=services, keys=ApiKeyService(graph, settings.api_key_cache_seconds), workers=pool,
                   watcher=watch, reembedder=reembedder,
                   metrics=_read_by(metrics, graph, pool), reranker=reranker, foreground=foreground)


def _read_by(metrics: Metrics | None, graph: Graph, pool: WorkerPool | None) -> Metrics | None:
    """The figures /metrics reads at scrape time rather than counting on the way (vaultgraph/metrics.py)."""
    if metrics is not None:
        metrics.readings.neo4j_transactions = lambda: graph.transactions
        metrics.readings.neo4j_retries = lambda: graph.retries
        if pool is not None:
            metrics.readings.queue_depth = lambda: len(pool.queue)
    return metrics
