"""`vaultgraph rescan [--tenant T]`: bring a tenant's documents in step with its workspace folder, with a progress
line on stderr. Documents it queues are enriched by a running server's workers (they pick QUEUED ones up)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the rest is imported by the command that runs: `vaultgraph --help` imports no graph code
    from vaultgraph.config import Settings
    from vaultgraph.events import EventBus, WorkspaceScanProgress
    from vaultgraph.services.workspace_sync import ScanReport


def add_parser(commands: Any) -> None:
    command = commands.add_parser("rescan", help="scan the workspace folder: new, changed and removed files")
    command.add_argument("--tenant", help="tenant to scan (default: VAULTGRAPH_DEV_TENANT)")


def progress_line(event: WorkspaceScanProgress) -> str:
    width = 30
    filled = width * event.seen // max(event.total, 1)
    return (f"[{'#' * filled}{'.' * (width - filled)}] {event.seen}/{event.total} "
            f"new {event.new} changed {event.changed} removed {event.removed} skipped {event.skipped}")


async def _show(bus: EventBus) -> None:
    from vaultgraph.events import WorkspaceScanProgress

    async with bus.subscribe(lambda e: isinstance(e, WorkspaceScanProgress), label="cli") as subscription:
        async for event in subscription:
            assert isinstance(event, WorkspaceScanProgress)  # the filter lets nothing else through
            sys.stderr.write(f"\r{progress_line(event)}" + ("\n" if event.done else ""))
            sys.stderr.flush()
            if event.done:
                return


def summary(report: ScanReport, seconds: float) -> list[str]:
    lines = [f"{report.seen} files in {seconds:.2f} s ({report.seen / max(seconds, 1e-6):.0f} files/s): "
             f"{len(report.new)} new, {len(report.changed)} changed, {report.unchanged} unchanged, "
             f"{len(report.removed)} removed, {len(report.skipped)} skipped"]
    lines += [f"  skipped {path}: {why}" for path, why in report.skipped]
    return lines


async def _run(settings: Settings, args: argparse.Namespace, uri: str) -> int:
    from vaultgraph.runtime import build_runtime
    from vaultgraph.workspace import check_key

    async with build_runtime(settings, uri, workers=False, watcher=False).running(require_neo4j=True) as runtime:
        sync, bus = runtime.services.workspace_sync, runtime.bus
        tenant = check_key(args.tenant or settings.dev_tenant, "--tenant")
        shower = asyncio.create_task(_show(bus))
        await asyncio.sleep(0)  # let it subscribe before the scan publishes
        started = time.monotonic()
        try:
            report = await sync.scan(tenant)
        finally:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(shower, 1)
        for line in summary(report, time.monotonic() - started):
            print(line)
        return 0


def run(settings: Settings, args: argparse.Namespace, uri: str) -> int:
    return asyncio.run(_run(settings, args, uri))
