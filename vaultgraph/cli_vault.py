"""`vaultgraph import-vault PATH` and `vaultgraph export-vault PATH`, with a progress line on stderr."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the rest is imported by the command that runs: `vaultgraph --help` imports no graph code
    from vaultgraph.config import Settings


def add_parser(commands: Any) -> None:
    for name, help_text in (("import-vault", "import an Obsidian vault through the note save pipeline"),
                            ("export-vault", "write every note as a markdown file of an Obsidian vault")):
        command = commands.add_parser(name, help=help_text)
        command.add_argument("path", type=Path)
        command.add_argument("--tenant", help="tenant to import into (default: VAULTGRAPH_DEV_TENANT)")
        if name == "import-vault":
            command.add_argument("--force", action="store_true", help="let files win over notes that differ")
            command.add_argument("--index", action="store_true", help=(
                "embed the notes here before returning; by default the command returns once notes, links and "
                "full text are in, and the server's enrichment workers (or `vaultgraph worker`) embed them"))


def _progress(done: int, total: int, path: str) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {path[-40:]:<40}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


async def _run(settings: Settings, args: argparse.Namespace, uri: str) -> int:
    from vaultgraph.domain import Principal
    from vaultgraph.interop.vault import VaultService
    from vaultgraph.runtime import build_runtime
    from vaultgraph.workspace import check_key

    # The Runtime's own note pipeline (embedding and chunks included), not a bare one: notes imported here are
    # found by vector search like notes saved over the API. Its documents are enriched by the server's workers.
    async with build_runtime(settings, uri, workers=False, watcher=False).running(require_neo4j=True) as runtime:
        # The operator at the command line may read any folder, unlike an API caller (VAULTGRAPH_VAULT_DIRS).
        services = runtime.services
        service = VaultService(services.notes, services.documents, services.links)
        principal = Principal(check_key(args.tenant or settings.dev_tenant, "--tenant"), sees_all_scopes=True)
        if args.command == "import-vault":
            report = await service.import_vault(principal, args.path.resolve(), args.force, _progress,
                                                defer_indexing=not getattr(args, "index", False))
            print(f"{report.files} files: {len(report.created)} created, {len(report.updated)} updated, "
                  f"{len(report.unchanged)} unchanged, {len(report.attachments)} attachments, "
                  f"{len(report.conflicts)} conflicts, {len(report.skipped)} skipped")
            if report.index_pending:
                print(f"  {report.index_pending} notes queued for embedding: keyword search finds them now, vector "
                      "search once the server's enrichment workers (or `vaultgraph worker`) have embedded them "
                      "(enrichmentProgress.notesPending counts down)")
            for path in report.conflicts:
                print(f"  conflict (the note differs; --force lets the file win): {path}")
            for path, why in report.skipped:
                print(f"  skipped {path}: {why}")
        else:
            written = await service.export_vault(principal, args.path.resolve())
            print(f"{len(written.written)} notes and {len(written.attachments)} attachments written to {args.path}, "
                  f"{len(written.renamed)} renamed, {len(written.skipped)} skipped")
        return 0


def run(settings: Settings, args: argparse.Namespace, uri: str) -> int:
    return asyncio.run(_run(settings, args, uri))
