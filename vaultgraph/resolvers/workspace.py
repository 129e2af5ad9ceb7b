"""The workspace over GraphQL: a rescan of the caller's tenant folder."""

from __future__ import annotations

from vaultgraph.schema.context import Info
from vaultgraph.schema.types.workspace import WorkspaceScanReport


async def rescan_workspace(info: Info) -> WorkspaceScanReport:
    """Bring every document of the tenant in step with its workspace folder (new, changed and removed files); one
    scan at a time per tenant (CONFLICT with `extensions.scanId` otherwise). Progress streams through the
    enrichmentProgress subscription's `scan` field."""
    ctx = info.context
    return WorkspaceScanReport.from_report(await ctx.services.workspace_sync.rescan(ctx.principal))
