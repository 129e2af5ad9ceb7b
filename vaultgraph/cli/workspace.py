"""`vaultgraph rescan [--tenant T]`: bring a tenant's documents in step with its workspace folder, with progress on
stderr and a summary at the end. Documents it queues are enriched by a running server's workers (they pick QUEUED
ones up)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import click

from vaultgraph.cli.common import Exit, json_option, on_runtime, settings, tenant_of, tenant_option
from vaultgraph.cli.output import Progress, Summary

if TYPE_CHECKING:
    from vaultgraph.events.bus import EventBus
    from vaultgraph.runtime import Runtime
    from vaultgraph.services.workspace_sync import ScanReport


@click.command()
@tenant_option
@json_option
def rescan(tenant: str | None, as_json: bool) -> int:
    """Scan the workspace folder: new, changed and removed files."""
    config = settings()

    import asyncio
    import contextlib

    async def run(runtime: Runtime) -> int:
        key = tenant_of(config, tenant)
        with Progress("rescan") as progress:
            shower = asyncio.create_task(_show(runtime.bus, key, progress))
            await asyncio.sleep(0)  # let it subscribe before the scan publishes
            started = time.monotonic()
            try:
                report = await runtime.services.workspace_sync.scan(key)
            finally:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(shower, 1)
        summary(report, time.monotonic() - started).show(as_json)
        return Exit.OK

    return on_runtime(config, run)


async def _show(bus: EventBus, tenant: str, progress: Progress) -> None:
    from vaultgraph.events.bus import WorkspaceScanProgress

    def mine(event: object) -> bool:
        return isinstance(event, WorkspaceScanProgress) and event.tenant_id == tenant

    async with bus.subscribe(mine, label="cli") as subscription:
        async for event in subscription:
            assert isinstance(event, WorkspaceScanProgress)  # the filter lets nothing else through
            progress.update(event.seen, event.total, f"new {event.new} changed {event.changed} "
                                                     f"removed {event.removed} skipped {event.skipped}")
            if event.done:
                return


def summary(report: ScanReport, seconds: float) -> Summary:
    counts = {"new": len(report.new), "changed": len(report.changed), "unchanged": report.unchanged,
              "removed": len(report.removed), "skipped": len(report.skipped)}
    return Summary(
        headline=f"{report.seen} files in {seconds:.2f} s ({report.seen / max(seconds, 1e-6):.0f} files/s): "
                 + ", ".join(f"{n} {name}" for name, n in counts.items()),
        counts=list(counts.items()), details=[f"  skipped {path}: {why}" for path, why in report.skipped],
        data={"tenant": report.tenant_id, "files": report.seen, "seconds": round(seconds, 3), **counts,
              "skippedPaths": [{"path": p, "reason": why} for p, why in report.skipped]})
