"""Obsidian vault import and export (server-side folders)."""

from __future__ import annotations

from vaultgraph.schema.context import Info
from vaultgraph.schema.vault_types import VaultExportReport, VaultImportReport


async def import_vault(info: Info, path: str, force: bool = False) -> VaultImportReport:
    """Read every markdown file of an Obsidian vault through the save pipeline; other files become documents."""
    vault = info.context.services.vault
    report = await vault.import_vault(info.context.principal, vault.server_folder(path), force)
    return VaultImportReport.from_report(report)


async def export_vault(info: Info, path: str) -> VaultExportReport:
    """Write every note as a markdown file Obsidian opens (its body, with a `vaultgraph:` frontmatter key for what the
    body does not say), and every document as its file."""
    vault = info.context.services.vault
    return VaultExportReport.from_report(await vault.export_vault(info.context.principal, vault.server_folder(path)))
