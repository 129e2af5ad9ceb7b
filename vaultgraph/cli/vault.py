"""`vaultgraph import-vault PATH [--force] [--index]` and `vaultgraph export-vault PATH`: Obsidian vaults, with
progress on stderr and a summary at the end.

Both run on the Runtime's own services, so notes imported here go through exactly the save pipeline a `saveNote`
does; their embedding is deferred to the server's workers (as `importVault`'s) unless `--index` does it here.
The operator at the command line may read and write any folder, unlike an API caller (VAULTGRAPH_VAULT_DIRS);
documents an import queues are enriched by the server's workers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from vaultgraph.cli.common import Exit, json_option, on_runtime, settings, tenant_of, tenant_option
from vaultgraph.cli.output import Progress, Summary

if TYPE_CHECKING:
    from vaultgraph.interop.vault import VaultReport
    from vaultgraph.interop.vault_export import ExportReport
    from vaultgraph.runtime import Runtime

FOLDER = click.Path(file_okay=False, path_type=Path, resolve_path=True)


@click.command(name="import-vault")
@click.argument("path", type=FOLDER)
@tenant_option
@click.option("--force", is_flag=True, help="let files win over notes that differ")
@click.option("--index", is_flag=True, help=(
    "embed the notes here before returning; by default the command returns once notes, links and full text are "
    "in, and the server's enrichment workers (or `vaultgraph worker`) embed them"))
@json_option
def import_vault(path: Path, tenant: str | None, force: bool, index: bool, as_json: bool) -> int:
    """Import an Obsidian vault through the note save pipeline."""
    config = settings()

    async def run(runtime: Runtime) -> int:
        from vaultgraph.domain import Principal

        principal = Principal(tenant_of(config, tenant), sees_all_scopes=True)
        with Progress("import") as progress:
            report = await runtime.operator_vault().import_vault(principal, path, force, progress,
                                                                 defer_indexing=not index)
        import_summary(report).show(as_json)
        return Exit.OK

    return on_runtime(config, run)


@click.command(name="export-vault")
@click.argument("path", type=FOLDER)
@tenant_option
@json_option
def export_vault(path: Path, tenant: str | None, as_json: bool) -> int:
    """Write every note as a markdown file of an Obsidian vault (and every document as its file)."""
    config = settings()

    async def run(runtime: Runtime) -> int:
        from vaultgraph.domain import Principal

        principal = Principal(tenant_of(config, tenant), sees_all_scopes=True)
        with Progress("export") as progress:
            report = await runtime.operator_vault().export_vault(principal, path, progress)
        export_summary(report, path).show(as_json)
        return Exit.OK

    return on_runtime(config, run)


def import_summary(report: VaultReport) -> Summary:
    counts = {"created": len(report.created), "updated": len(report.updated), "unchanged": len(report.unchanged),
              "attachments": len(report.attachments), "conflicts": len(report.conflicts),
              "skipped": len(report.skipped)}
    details = [f"  conflict (the note differs; --force lets the file win): {path}" for path in report.conflicts]
    details += [f"  skipped {path}: {why}" for path, why in report.skipped]
    if report.index_pending:
        details.append(f"  {report.index_pending} notes queued for embedding: keyword search finds them now, vector "
                       "search once the server's enrichment workers (or `vaultgraph worker`) have embedded them "
                       "(enrichmentProgress.notesPending counts down)")
    return Summary(
        headline=f"{report.files} files: " + ", ".join(f"{n} {name}" for name, n in counts.items()),
        counts=[*counts.items(), ("typed links", report.links), ("queued for embedding", report.index_pending)],
        details=details,
        data={"files": report.files, **counts, "links": report.links, "indexPending": report.index_pending,
              "conflictPaths": report.conflicts,
              "skippedPaths": [{"path": p, "reason": why} for p, why in report.skipped]})


def export_summary(report: ExportReport, path: Path) -> Summary:
    counts = {"notes": len(report.written), "attachments": len(report.attachments), "renamed": len(report.renamed),
              "skipped": len(report.skipped)}
    details = [f"  renamed {want} -> {name}" for want, name in report.renamed]
    details += [f"  skipped {p}: {why}" for p, why in report.skipped]
    return Summary(
        headline=f"{counts['notes']} notes and {counts['attachments']} attachments written to {path}, "
                 f"{counts['renamed']} renamed, {counts['skipped']} skipped",
        counts=list(counts.items()), details=details,
        data={"path": str(path), **counts, "skippedPaths": [{"path": p, "reason": why} for p, why in report.skipped]})
