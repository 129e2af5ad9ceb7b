"""`vaultgraph worker`: the enrichment workers and the workspace watcher, without HTTP.

The pieces come from the composition root (`app.build_services`, `app.build_workers`), so a worker process runs
exactly what the API process runs in its lifespan. It learns of new documents from `DocumentQueued` events
(through Redis when REDIS_URL is set) and from its sweep of Neo4j, and it needs the same workspace directory as
the API replicas (VAULTGRAPH_DATA_DIR on a shared volume), since enrichment reads the document files.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal

import structlog

from vaultgraph.app import build_services, build_workers, model_config
from vaultgraph.config import Settings
from vaultgraph.events_redis import build_event_bus
from vaultgraph.graph.session import Graph
from vaultgraph.health import Neo4jMonitor
from vaultgraph.models import build_model_client
from vaultgraph.services.workspace_watch import WorkspaceWatcher

log = structlog.get_logger(__name__)


async def run_worker(settings: Settings, uri: str, stop: asyncio.Event | None = None) -> int:
    """Run until SIGTERM or SIGINT (or `stop`), then stop the watcher, give the held leases back and close."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    graph = Graph.connect(uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    monitor = Neo4jMonitor(graph, uri, settings.embedding_dimensions)
    models = build_model_client(model_config(settings))
    # A worker sharded to some tenants (VAULTGRAPH_ENRICHMENT_TENANTS) listens to their Redis channels only.
    bus = build_event_bus(settings.redis_url, settings.event_queue_size, settings.enrichment_tenants)
    services = build_services(settings, graph, models, bus)
    pool = build_workers(settings, graph, models, bus)
    watcher = (WorkspaceWatcher(services.workspace_sync, settings.workspace_dir, settings.workspace_watch_debounce_ms)
               if settings.workspace_watch else None)
    health: asyncio.Task[None] | None = None
    try:
        await monitor.check()
        health = asyncio.create_task(monitor.watch(), name="neo4j-monitor")
        await bus.start()
        await pool.start()
        if watcher is not None:
            await watcher.start()  # after the workers: what it finds changed gets enriched
        log.info("worker process ready", worker=pool.worker_id, redis=settings.redis_url is not None,
                 watcher=watcher is not None)
        await stop.wait()
        log.info("worker process stopping", worker=pool.worker_id)
    finally:
        if watcher is not None:
            await watcher.stop()
        await pool.stop()  # before the driver closes: it gives the held leases back
        await bus.aclose()
        await models.aclose()
        if health is not None:
            health.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await health
        await graph.close()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
    return 0
