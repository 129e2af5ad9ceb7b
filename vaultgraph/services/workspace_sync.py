"""The workspace scan: a tenant's folder walked within the limits, each file made or kept in step with its Document.

By SHA-256: an unchanged file costs a read and a hash; a changed one gets its new hash and is queued for
enrichment; a new one is registered as it is (the file is not rewritten); a document whose file is gone is deleted
as for a hard delete (inbound links become ghosts). Ownership comes from the path: `agents/<key>/…` is that agent's,
`teams/<id>/…` that team's, anything else shared. One scan at a time per tenant.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import structlog

from vaultgraph.domain import Document, Owner, Principal, Scope
from vaultgraph.errors import AppError, Conflict, Forbidden, InvalidInput
from vaultgraph.events import EventBus, WorkspaceScanProgress
from vaultgraph.file_walk import walk_files
from vaultgraph.graph import workspace_sync as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.services.documents import DocumentService
from vaultgraph.services.links import LinkService
from vaultgraph.workspace import Workspace, check_key, normalize_path, sha256_hex

log = structlog.get_logger(__name__)

PROGRESS_EVERY_SECONDS = 0.25  # progress events while a scan runs, at most four a second (plus the last)
DocumentHook = Callable[[Document], Awaitable[None]]


@dataclass
class ScanReport:
    scan_id: str
    tenant_id: str
    total: int = 0  # files the walk found within the limits
    seen: int = 0
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (tenant-relative path, why)
    done: bool = False


def owner_from_path(relative: str) -> tuple[Owner, str]:
    """The owner a tenant-relative path implies, and the document's path inside that owner's space."""
    parts = PurePosixPath(relative).parts
    if len(parts) >= 3 and parts[0] == "agents":
        return Owner(Scope.PERSONAL, agent_id=check_key(parts[1], "agentId")), normalize_path("/".join(parts[2:]))
    if len(parts) >= 3 and parts[0] == "teams":
        return Owner(Scope.TEAM, team_id=check_key(parts[1], "teamId")), normalize_path("/".join(parts[2:]))
    return Owner(Scope.SHARED), normalize_path(relative)


def _relative(owner: Owner, path: str) -> str:
    if owner.scope is Scope.PERSONAL:
        return f"agents/{owner.agent_id}/{path}"
    if owner.scope is Scope.TEAM:
        return f"teams/{owner.team_id}/{path}"
    return path


def _text(data: bytes) -> str | None:
    """The file as text, or None when it is binary (a NUL byte) or not UTF-8."""
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class WorkspaceSync:
    def __init__(self, graph: Graph, workspace: Workspace, documents: DocumentService, links: LinkService,
                 bus: EventBus, on_changed: DocumentHook | None = None) -> None:
        self.graph = graph
        self.workspace = workspace
        self.documents = documents
        self.links = links
        self.bus = bus
        # Called with each document whose file changed (the composition root passes EnrichmentService.enqueue).
        self.on_changed = on_changed
        self._running: dict[str, str] = {}  # tenant → id of its running scan

    def running_scan(self, tenant_id: str) -> str | None:
        return self._running.get(tenant_id)

    def start(self, tenant_id: str) -> ScanReport:
        """Claim the tenant's one scan slot (CONFLICT naming the running scan otherwise); run it with `run`."""
        check_key(tenant_id, "tenant")
        running = self._running.get(tenant_id)
        if running is not None:
            raise Conflict(f"scan {running} of this workspace is still running; wait for it to finish",
                           scanId=running)
        report = ScanReport(scan_id=f"scan_{uuid.uuid4().hex[:16]}", tenant_id=tenant_id)
        self._running[tenant_id] = report.scan_id
        return report

    async def rescan(self, principal: Principal) -> ScanReport:
        """A scan on behalf of a caller: it reads and writes every scope, so only a tenant-wide key may ask."""
        if principal.visible_owner_keys() is not None:
            raise Forbidden("a rescan touches every scope of the workspace; use a tenant-wide key (no agent, no team)")
        return await self.scan(principal.tenant_id)

    async def scan(self, tenant_id: str) -> ScanReport:
        """Claim the slot and run the scan to its end."""
        return await self.run(self.start(tenant_id))

    async def run(self, report: ScanReport) -> ScanReport:
        tenant = report.tenant_id
        started = time.monotonic()
        try:
            root = self.workspace.root / tenant
            files, skipped = (await asyncio.to_thread(walk_files, root)
                              if await asyncio.to_thread(root.is_dir) else ([], []))
            report.total = len(files)
            report.skipped.extend(skipped)
            known = {(d.owner.key, d.path): d
                     for d in await self.graph.read(cypher.tenant_documents, tenant)}
            last_published = 0.0
            for relative, file in files:
                await self._sync_one(report, known, relative, file)
                report.seen += 1
                if time.monotonic() - last_published >= PROGRESS_EVERY_SECONDS:
                    last_published = time.monotonic()
                    await self._publish(report, relative)
            await self._remove_missing(report, known)
        finally:
            report.done = True
            self._running.pop(tenant, None)
            await self._publish(report, None)
        log.info("workspace scanned", tenant=tenant, scan=report.scan_id, seen=report.seen, new=len(report.new),
                 changed=len(report.changed), removed=len(report.removed), skipped=len(report.skipped),
                 seconds=round(time.monotonic() - started, 3))
        return report

    async def _sync_one(self, report: ScanReport, known: dict[tuple[str, str], Document], relative: str,
                        file: Path) -> None:
        try:
            owner, path = owner_from_path(relative)
        except InvalidInput as exc:
            report.skipped.append((relative, exc.message))
            return
        document = known.pop((owner.key, path), None)
        try:
            data = await asyncio.to_thread(file.read_bytes)
        except FileNotFoundError:
            report.skipped.append((relative, "deleted during the scan"))
            if document is not None:
                known[(owner.key, path)] = document  # judged with the other missing files at the end
            return
        except OSError as exc:
            report.skipped.append((relative, f"unreadable: {exc.strerror or exc}"))
            return
        digest = sha256_hex(data)
        if document is not None and document.content_hash == digest:
            report.unchanged += 1
            return
        text = _text(data)
        if text is None:
            report.skipped.append((relative, "binary or not UTF-8 text"))
            return
        try:
            if document is None:
                await self.documents.register(report.tenant_id, owner, path, data, text)
                report.new.append(relative)
                return
            updated = await self.graph.write(cypher.set_content, report.tenant_id, document.id, digest, len(data))
        except AppError as exc:
            report.skipped.append((relative, exc.message))
            return
        if updated is not None:
            report.changed.append(relative)
            if self.on_changed is not None:
                await self.on_changed(updated)

    async def _remove_missing(self, report: ScanReport, known: dict[tuple[str, str], Document]) -> None:
        """Documents the walk did not see whose file is really gone (not merely hidden or skipped)."""
        principal = Principal(report.tenant_id, sees_all_scopes=True)
        for document in known.values():
            target = self.workspace.file_for(report.tenant_id, document.owner, document.path)
            if await asyncio.to_thread(target.exists):
                continue
            await self.links.hard_delete(principal, document)
            report.removed.append(_relative(document.owner, document.path))

    async def _publish(self, report: ScanReport, current: str | None) -> None:
        await self.bus.publish(WorkspaceScanProgress(
            tenant_id=report.tenant_id, scan_id=report.scan_id, total=report.total, seen=report.seen,
            new=len(report.new), changed=len(report.changed), unchanged=report.unchanged,
            removed=len(report.removed), skipped=len(report.skipped), current_path=current, done=report.done,
            at=datetime.now(UTC),
        ))
