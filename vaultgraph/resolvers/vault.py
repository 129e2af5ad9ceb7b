"""Obsidian vault import and export (server-side folders)."""

from __future__ import annotations

from pathlib import Path

from vaultgraph.errors import InvalidInput
from vaultgraph.schema.context import Info
from vaultgraph.schema.vault_types import VaultExportReport, VaultImportReport


def _folder(path: str) -> Path:
    folder = Path(path)
    if not folder.is_absolute():
        raise InvalidInput("path", "give an absolute folder path on the server")
    return folder


async def import_vault(info: Info, path: str, force: bool = False) -> VaultImportReport:
    """Read every markdown file of an Obsidian vault through the save pipeline; other files become documents."""
    ctx = info.context
    report = await ctx.services.vault.import_vault(ctx.principal, _folder(path), force)
    return VaultImportReport.from_report(report)


async def export_vault(info: Info, path: str) -> VaultExportReport:
    """Write every note as a markdown file Obsidian opens as it is (its body, frontmatter included)."""
    ctx = info.context
    return VaultExportReport.from_report(await ctx.services.vault.export_vault(ctx.principal, _folder(path)))
