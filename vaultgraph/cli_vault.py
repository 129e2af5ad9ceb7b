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


def _progress(done: int, total: int, path: str) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {path[-40:]:<40}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


async def _run(settings: Settings, args: argparse.Namespace, uri: str) -> int:
    from vaultgraph.domain import Principal
    from vaultgraph.graph.migrations import apply_migrations
    from vaultgraph.graph.session import Graph
    from vaultgraph.interop.vault import VaultService
    from vaultgraph.services.documents import DocumentService
    from vaultgraph.services.notes import NoteService
    from vaultgraph.workspace import Workspace, check_key

    graph = Graph.connect(uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    try:
        await graph.verify()
        await apply_migrations(graph, settings.embedding_dimensions)
        notes = NoteService(graph, settings.page_size_max)
        documents = DocumentService(graph, Workspace(settings.workspace_dir), settings.page_size_max)
        service = VaultService(notes, documents)
        principal = Principal(check_key(args.tenant or settings.dev_tenant, "--tenant"), sees_all_scopes=True)
        if args.command == "import-vault":
            report = await service.import_vault(principal, args.path.resolve(), args.force, _progress)
            print(f"{report.files} files: {len(report.created)} created, {len(report.updated)} updated, "
                  f"{len(report.unchanged)} unchanged, {len(report.attachments)} attachments, "
                  f"{len(report.conflicts)} conflicts, {len(report.skipped)} skipped")
            for path in report.conflicts:
                print(f"  conflict (the note differs; --force lets the file win): {path}")
            for path, why in report.skipped:
                print(f"  skipped {path}: {why}")
        else:
            written = await service.export_vault(principal, args.path.resolve())
            print(f"{len(written.written)} notes written to {args.path}")
        return 0
    finally:
        await graph.close()


def run(settings: Settings, args: argparse.Namespace, uri: str) -> int:
    return asyncio.run(_run(settings, args, uri))
