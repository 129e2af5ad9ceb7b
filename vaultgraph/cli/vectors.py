"""`vaultgraph reembed [--tenant T] [--batch N] [--dry-run] [--json]`: make again every stored vector another
embedding model made, after the configured model changed (services/vectors.py). Until then search ignores those
vectors. Resumable: a run that stops loses at most one batch, and the next one carries on."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from vaultgraph.cli.common import Exit, json_option, on_runtime, settings, tenant_of
from vaultgraph.cli.output import Progress, Summary

if TYPE_CHECKING:
    from vaultgraph.runtime import Runtime
    from vaultgraph.services.vectors import ReembedReport


@click.command()
@click.option("--tenant", help="one tenant only (default: every tenant)")
@click.option("--batch", type=click.IntRange(1, 1000), default=64, show_default=True,
              help="texts per embedding call and per write transaction")
@click.option("--dry-run", is_flag=True, help="count what would be re-embedded; change nothing")
@json_option
def reembed(tenant: str | None, batch: int, dry_run: bool, as_json: bool) -> int:
    """Re-embed every item whose vector came from another embedding model (exit code 4 when some are left)."""
    config = settings()

    async def run(runtime: Runtime) -> int:
        key = [tenant_of(config, tenant)] if tenant else None
        reembedder = runtime.reembedder
        if dry_run:
            pending = await reembedder.pending(key)
            _pending_summary(pending, f"{reembedder.model.name}/{reembedder.model.dimensions}").show(as_json)
            return Exit.OK
        with Progress("reembed") as progress:
            report = await reembedder.run(key, batch, progress)
        summary(report).show(as_json)
        return Exit.INCOMPLETE if report.left or report.error else Exit.OK

    return on_runtime(config, run)


def _rows(counts: dict[tuple[str, str], int]) -> list[dict[str, object]]:
    return [{"kind": kind, "model": model, "count": n} for (kind, model), n in sorted(counts.items())]


def _pending_summary(pending: dict[tuple[str, str], int], current: str) -> Summary:
    total = sum(pending.values())
    return Summary(
        headline=f"{total} vectors to re-embed with {current}",
        counts=[(f"{kind} from {model}", n) for (kind, model), n in sorted(pending.items())],
        data={"model": current, "pending": total, "byModel": _rows(pending)})


def summary(report: ReembedReport) -> Summary:
    current = f"{report.model.name}/{report.model.dimensions}"
    done = sum(report.reembedded.values())
    left = sum(report.left.values())
    details = [f"  stopped: {report.error}"] if report.error else []
    details += [f"  left: {n} {kind}s from {model}" for (kind, model), n in sorted(report.left.items())]
    return Summary(
        headline=f"{done} vectors re-embedded with {current}, {report.skipped} skipped (changed meanwhile), "
                 f"{left} left",
        counts=[*((f"{kind}s", report.reembedded.get(kind, 0)) for kind in ("note", "document", "chunk")),
                ("skipped", report.skipped), ("left", left)],
        details=details,
        data={"model": current, "reembedded": dict(report.reembedded), "skipped": report.skipped, "left": left,
              "leftByModel": _rows(report.left), "error": report.error})
