"""`vaultgraph serve [--host H] [--port P] [--no-workers]` and `vaultgraph worker`: the two long-running processes.

`worker` runs the enrichment workers and the workspace watcher without HTTP. Its pieces come from the composition
root (`runtime.build_runtime`), so a worker process runs exactly what the API process runs in its lifespan. It
learns of new documents from `DocumentQueued` events (through Redis when REDIS_URL is set) and from its sweep of
Neo4j, and it needs the same workspace directory as the API replicas (VAULTGRAPH_DATA_DIR on a shared volume),
since enrichment reads the document files.
"""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

import click

from vaultgraph.cli.common import settings as command_settings
from vaultgraph.cli.common import with_neo4j

if TYPE_CHECKING:
    import asyncio

    from vaultgraph.config import Settings


def _exit_on_sigterm(signum: int, frame: object) -> None:
    # uvicorn re-raises the signal it shut down for; exiting through SystemExit lets `finally` stop Neo4j.
    raise SystemExit(0)


@click.command()
@click.option("--host", help="address to listen on (default: VAULTGRAPH_HOST)")
@click.option("--port", type=int, help="port to listen on (default: VAULTGRAPH_PORT)")
@click.option("--no-workers", is_flag=True,
              help="API only: no enrichment workers, no workspace watcher (`vaultgraph worker` runs them)")
def serve(host: str | None, port: int | None, no_workers: bool) -> int:
    """Run the GraphQL server (starts the local Neo4j when needed)."""
    import structlog
    import uvicorn

    from vaultgraph.app import create_app, tune_collector, uvicorn_options
    from vaultgraph.http.auth import check_bind
    from vaultgraph.neo4j_local import server as local_neo4j

    # An API replica: the worker processes enrich and watch the workspace.
    off = False if no_workers else None
    settings = command_settings(host=host, port=port, enrichment_workers=off, workspace_watch=off)
    check_bind(settings)  # before starting Neo4j: refuse at once
    log = structlog.get_logger("vaultgraph")
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    server = local_neo4j.LocalNeo4j.from_settings(settings)
    owned = False
    if settings.neo4j_uri is None:
        owned = local_neo4j.start(server, settings.java_home, settings.neo4j_start_timeout)
    else:
        log.info("using external neo4j; starting none", uri=settings.neo4j_uri)
    try:
        app = create_app(settings)
        tune_collector()
        uvicorn.run(app, host=settings.host, port=settings.port, log_config=None, **uvicorn_options(settings))
    finally:
        if owned:
            local_neo4j.stop(server)
    return 0


@click.command()
def worker() -> int:
    """Run the enrichment workers and the workspace watcher, no HTTP."""
    import asyncio

    settings = command_settings()
    return with_neo4j(settings, lambda uri: asyncio.run(run_worker(settings, uri)))


async def run_worker(settings: Settings, uri: str, stop: asyncio.Event | None = None) -> int:
    """Run until SIGTERM or SIGINT (or `stop`), then stop the watcher, give the held leases back and close."""
    import asyncio

    import structlog

    from vaultgraph.runtime import build_runtime

    log = structlog.get_logger("vaultgraph.worker")
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    # A worker sharded to some tenants (VAULTGRAPH_ENRICHMENT_TENANTS) listens to their Redis channels only.
    runtime = build_runtime(settings, uri, workers=True, bus_tenants=settings.enrichment_tenants)
    worker_id = runtime.workers.worker_id if runtime.workers is not None else None
    try:
        async with runtime.running():
            log.info("worker process ready", worker=worker_id, redis=settings.redis_url is not None,
                     watcher=runtime.watcher is not None)
            await stop.wait()
            log.info("worker process stopping", worker=worker_id)
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
    return 0
