"""`vaultgraph worker`: the enrichment workers and the workspace watcher, without HTTP.

The pieces come from the composition root (`runtime.build_runtime`), so a worker process runs exactly what the API
process runs in its lifespan. It learns of new documents from `DocumentQueued` events
(through Redis when REDIS_URL is set) and from its sweep of Neo4j, and it needs the same workspace directory as
the API replicas (VAULTGRAPH_DATA_DIR on a shared volume), since enrichment reads the document files.
"""

from __future__ import annotations

import asyncio
import signal

import structlog

from vaultgraph.config import Settings
from vaultgraph.runtime import build_runtime

log = structlog.get_logger(__name__)


async def run_worker(settings: Settings, uri: str, stop: asyncio.Event | None = None) -> int:
    """Run until SIGTERM or SIGINT (or `stop`), then stop the watcher, give the held leases back and close."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    # A worker sharded to some tenants (VAULTGRAPH_ENRICHMENT_TENANTS) listens to their Redis channels only.
    runtime = build_runtime(settings, uri, workers=True, bus_tenants=settings.enrichment_tenants)
    worker = runtime.workers.worker_id if runtime.workers is not None else None
    try:
        async with runtime.running():
            log.info("worker process ready", worker=worker, redis=settings.redis_url is not None,
                     watcher=runtime.watcher is not None)
            await stop.wait()
            log.info("worker process stopping", worker=worker)
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
    return 0
