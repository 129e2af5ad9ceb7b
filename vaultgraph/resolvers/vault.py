"""Obsidian vault import and export (server-side folders)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from vaultgraph.schema.context import Info
from vaultgraph.schema.types.vault import VaultExportReport, VaultImportReport


async def import_vault(
    info: Info,
    path: Annotated[str, strawberry.argument(description=(
        "An absolute folder path on the server (INVALID_INPUT otherwise), inside the folders the server allows "
        "(FORBIDDEN otherwise)."))],
    force: Annotated[bool, strawberry.argument(description=(
        "Overwrite notes whose body differs from their file; otherwise they are listed in `conflicts`."))] = False,
) -> VaultImportReport:
    """Read every markdown file of an Obsidian vault through the save pipeline; other files become documents.
    The graph is authoritative: a conflicting note is skipped unless `force`. Returns once the notes, their links
    and their full-text entries are committed; their vectors follow in the background (`indexPending`)."""
    vault = info.context.services.vault
    report = await vault.import_vault(info.context.principal, vault.server_folder(path), force)
    return VaultImportReport.from_report(report)


async def export_vault(
    info: Info,
    path: Annotated[str, strawberry.argument(description=(
        "An absolute folder path on the server (INVALID_INPUT otherwise), inside the folders the server allows "
        "(FORBIDDEN otherwise)."))],
) -> VaultExportReport:
    """Write every note as a markdown file Obsidian opens (its body, with a `vaultgraph:` frontmatter key for what the
    body does not say), and every document as its file."""
    vault = info.context.services.vault
    return VaultExportReport.from_report(await vault.export_vault(info.context.principal, vault.server_folder(path)))
