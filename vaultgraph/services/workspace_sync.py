"""The workspace scan: a tenant's folder walked within the limits, each file made or kept in step with its Document.

By SHA-256: an unchanged file costs a read and a hash; a changed one gets its new hash and is queued for
enrichment; a new one is registered as it is (the file is not rewritten); a document whose file is gone is deleted
as for a hard delete (inbound links become ghosts). Ownership comes from the path alone (`workspace.layout`):
`agents/<key>/…` is that agent's, `teams/<id>/…` that team's, anything else shared, whoever wrote the file; a file in
a reserved folder that names no owner is skipped. One scan at a time per tenant, in all processes together: a
lease in Neo4j with an expiry (graph/workspace_sync.py), so two replicas never scan one workspace at once.

`sync_paths` does the same for a few named paths (the watcher's settled batch of changes) without walking the tree;
a scan and a batch of the same tenant never run at once (one lock per tenant), so neither sees the other half done.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import structlog

from vaultgraph import file_walk
from vaultgraph.domain import Document, Principal
from vaultgraph.errors import AppError, Conflict, Forbidden, InvalidInput
from vaultgraph.events.bus import EventBus, WorkspaceScanProgress
from vaultgraph.file_walk import walk_files
from vaultgraph.graph import workspace_sync as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.services.documents import DocumentService
from vaultgraph.services.links import LinkService
from vaultgraph.workspace import Workspace, check_key, normalize_path, owner_of_place, place_of, sha256_hex
from vaultgraph.workspace.formats import decode_text, is_converted_name, is_document_name, not_document_reason

log = structlog.get_logger(__name__)

SCAN_LEASE_MS = 60_000  # a dead process frees its tenant's scan after this; a live one renews at a third of it
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


@dataclass
class _Batch:
    """The named paths of one batch, sorted out on disk: files to sync, paths gone, and those skipped with why."""

    files: list[tuple[str, Path]] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _sort_out(root: Path, relatives: Iterable[str]) -> _Batch:
    """Look at each tenant-relative path under `root` by the walk's rules (blocking: run it in a thread).

    A symbolic link is skipped (a link to a folder, or a path through one, is never entered); a folder is walked
    within the scan limits; a path that is gone is reported gone; a path that resolves outside `root` is refused.
    """
    batch = _Batch()
    root = root.resolve()
    for raw in sorted(set(relatives)):
        try:
            relative = normalize_path(raw) if raw else ""
        except InvalidInput as exc:
            batch.skipped.append((raw, exc.message))
            continue
        parts = PurePosixPath(relative).parts
        if any(file_walk.skipped_name(part) for part in parts):
            continue
        target, linked = root, False
        for part in parts:
            target = target / part
            if target.is_symlink():
                linked = True
                break
        if linked:
            if target == root.joinpath(*parts):
                batch.skipped.append((relative, "a symbolic link"))
            continue  # inside a linked folder: the walk never goes there either
        if not target.resolve().is_relative_to(root):
            batch.skipped.append((relative, "resolves outside the workspace"))
            continue
        try:
            if target.is_dir():
                files, skipped = walk_files(target)
                prefix = f"{relative}/" if relative else ""
                batch.files += [(f"{prefix}{child}", path) for child, path in files]
                batch.skipped += [(f"{prefix}{child}", why) for child, why in skipped]
            elif target.is_file():
                size = target.stat().st_size
                if size > file_walk.MAX_FILE_BYTES:
                    batch.skipped.append((relative, f"{size} bytes; a file holds at most {file_walk.MAX_FILE_BYTES}"))
                else:
                    batch.files.append((relative, target))
            elif not target.exists():
                batch.gone.append(relative)
            else:
                batch.skipped.append((relative, "not a regular file"))
        except FileNotFoundError:
            batch.gone.append(relative)
        except AppError as exc:  # a folder over the scan limits
            batch.skipped.append((relative, exc.message))
    unique: dict[str, Path] = {}
    for relative, path in batch.files:  # a file named and also inside a named folder counts once
        unique.setdefault(relative, path)
    batch.files = list(unique.items())
    if len(batch.files) > file_walk.MAX_FILES:
        why = f"{len(batch.files)} files changed at once; a batch holds at most {file_walk.MAX_FILES}: run a rescan"
        batch.skipped += [(relative, why) for relative, _ in batch.files[file_walk.MAX_FILES:]]
        batch.files = batch.files[:file_walk.MAX_FILES]
    return batch


def _place(document: Document) -> str | None:
    """The document's tenant-relative place, or None when its path is not a place of its owner."""
    try:
        return place_of(document.owner, document.path)
    except InvalidInput:
        return None


class WorkspaceSync:
    def __init__(self, graph: Graph, workspace: Workspace, documents: DocumentService, links: LinkService,
                 bus: EventBus, on_changed: DocumentHook | None = None, lease_ms: int = SCAN_LEASE_MS) -> None:
        self.graph = graph
        self.workspace = workspace
        self.documents = documents
        self.links = links
        self.bus = bus
        # Called with each document whose file changed (the composition root passes EnrichmentService.enqueue).
        self.on_changed = on_changed
        self.lease_ms = lease_ms
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"  # for whoever reads the lease
        self._locks: dict[str, asyncio.Lock] = {}  # tenant → held by its scan or by a watcher batch

    def _lock(self, tenant_id: str) -> asyncio.Lock:
        return self._locks.setdefault(tenant_id, asyncio.Lock())

    async def running_scan(self, tenant_id: str) -> str | None:
        """The id of the tenant's scan running now in any process (its lease is live), or None."""
        return await self.graph.read(cypher.running_scan, check_key(tenant_id, "tenant"))

    async def start(self, tenant_id: str) -> ScanReport:
        """Claim the tenant's one scan lease, shared by every process on this Neo4j (CONFLICT naming the running
        scan otherwise); run the scan with `run`, which renews the lease while it works and releases it at the end.
        A process that dies mid-scan stops renewing: its lease expires after `lease_ms` and frees the tenant."""
        check_key(tenant_id, "tenant")
        report = ScanReport(scan_id=f"scan_{uuid.uuid4().hex[:16]}", tenant_id=tenant_id)
        claim = await self.graph.write(cypher.claim_scan_lease, tenant_id, report.scan_id, self.holder,
                                       self.lease_ms)
        if not claim.claimed:
            raise Conflict(f"scan {claim.scan_id} of this workspace is still running; wait for it to finish",
                           scanId=claim.scan_id)
        return report

    async def rescan(self, principal: Principal) -> ScanReport:
        """A scan on behalf of a caller: it reads and writes every scope, so only a tenant-wide key may ask."""
        if principal.visible_owner_keys() is not None:
            raise Forbidden("a rescan touches every scope of the workspace; use a tenant-wide key (no agent, no team)")
        return await self.scan(principal.tenant_id)

    async def scan(self, tenant_id: str) -> ScanReport:
        """Claim the slot and run the scan to its end."""
        return await self.run(await self.start(tenant_id))

    async def run(self, report: ScanReport) -> ScanReport:
        tenant = report.tenant_id
        started = time.monotonic()
        renewing = asyncio.create_task(self._renew(report), name=f"scan-lease-{report.scan_id}")
        try:
            async with self._lock(tenant):
                await self._walk_and_sync(report)
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            report.done = True
            try:
                await self.graph.write(cypher.release_scan_lease, tenant, report.scan_id)
            except Exception:  # the scan's own outcome is what the caller needs; the lease expires by itself
                log.exception("scan lease release failed", tenant=tenant, scan=report.scan_id)
            await self._publish(report, None)
        log.info("workspace scanned", tenant=tenant, scan=report.scan_id, seen=report.seen, new=len(report.new),
                 changed=len(report.changed), removed=len(report.removed), skipped=len(report.skipped),
                 seconds=round(time.monotonic() - started, 3))
        return report

    async def _renew(self, report: ScanReport) -> None:
        """Keep the lease while the scan runs: renewed at a third of its length, so one slow renewal never loses it."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            try:
                if not await self.graph.write(cypher.renew_scan_lease, report.tenant_id, report.scan_id,
                                              self.lease_ms):
                    log.warning("scan lease lost", tenant=report.tenant_id, scan=report.scan_id)
                    return
            except Exception:  # Neo4j away for a moment: try again at the next tick, the lease may still hold
                log.exception("scan lease renewal failed", tenant=report.tenant_id, scan=report.scan_id)

    async def _walk_and_sync(self, report: ScanReport) -> None:
        tenant = report.tenant_id
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

    async def sync_paths(self, tenant_id: str, relatives: Iterable[str]) -> ScanReport:
        """Bring the documents of these tenant-relative paths in step with their files, as a scan would.

        Added or modified files are registered or get their new hash (an unchanged hash costs a read and nothing
        else); a folder is walked; a path that is gone removes its document, or every document under it when it
        was a folder. The same rules as a scan: hidden and skipped folders are ignored, symbolic links and paths
        outside the tenant's folder never reach the graph. One file's failure is logged and skipped, never fatal.
        """
        check_key(tenant_id, "tenant")
        report = ScanReport(scan_id=f"watch_{uuid.uuid4().hex[:16]}", tenant_id=tenant_id)
        root = self.workspace.root / tenant_id
        async with self._lock(tenant_id):
            batch = await asyncio.to_thread(_sort_out, root, relatives)
            report.total = len(batch.files)
            report.skipped.extend(batch.skipped)
            places: dict[tuple[str, str], str] = {}
            for relative in [r for r, _ in batch.files] + batch.gone:
                try:
                    owner, path = owner_of_place(relative)
                except InvalidInput:
                    continue  # a file here is skipped with why by _sync_one; a path gone had no document
                places[(owner.key, path)] = relative
            found = await self.graph.read(cypher.documents_at, tenant_id, list(places))
            known = {(d.owner.key, d.path): d for d in found}
            for relative, file in batch.files:
                try:
                    await self._sync_one(report, known, relative, file)
                except Exception as exc:  # one bad file never stops the batch (nor the watcher)
                    log.exception("workspace file sync failed", tenant=tenant_id, path=relative)
                    report.skipped.append((relative, f"failed: {exc}"))
                report.seen += 1
            gone = {key: doc for key, doc in known.items() if places.get(key) in batch.gone}
            matched = {places[key] for key in gone}
            unmatched = [relative for relative in batch.gone if relative not in matched]
            if unmatched:  # maybe a folder: every document under it whose file is gone
                for document in await self.graph.read(cypher.tenant_documents, tenant_id):
                    place = _place(document)
                    if place is not None and any(not r or place.startswith(f"{r}/") for r in unmatched):
                        gone[(document.owner.key, document.path)] = document
            try:
                await self._remove_missing(report, gone)
            except Exception:
                log.exception("workspace removal failed", tenant=tenant_id, paths=sorted(batch.gone))
        log.info("workspace paths synced", tenant=tenant_id, batch=report.scan_id, seen=report.seen,
                 new=len(report.new), changed=len(report.changed), unchanged=report.unchanged,
                 removed=len(report.removed), skipped=len(report.skipped))
        return report

    async def _sync_one(self, report: ScanReport, known: dict[tuple[str, str], Document], relative: str,
                        file: Path) -> None:
        try:
            owner, path = owner_of_place(relative)
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
        # A PDF, DOCX… is kept as its bytes: enrichment converts it (and fails it alone if it is corrupt).
        text = "" if is_converted_name(path) else decode_text(data)
        if text is None:
            report.skipped.append((relative, "binary or not UTF-8 text"))
            return
        if document is None and not is_document_name(path):  # the same rule as uploads
            report.skipped.append((relative, not_document_reason(path)))
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
            relative = _place(document)
            if relative is None:  # stored before the layout rule held: its place is another owner's file
                report.skipped.append((document.path, f"document {document.id} of {document.owner.key} is at a "
                                                      "path reserved for another owner; delete it"))
                continue
            target = self.workspace.file_for(report.tenant_id, document.owner, document.path)
            if await asyncio.to_thread(target.exists):
                continue
            await self.links.hard_delete(principal, document)
            report.removed.append(relative)

    async def _publish(self, report: ScanReport, current: str | None) -> None:
        await self.bus.publish(WorkspaceScanProgress(
            tenant_id=report.tenant_id, scan_id=report.scan_id, total=report.total, seen=report.seen,
            new=len(report.new), changed=len(report.changed), unchanged=report.unchanged,
            removed=len(report.removed), skipped=len(report.skipped), current_path=current, done=report.done,
            at=datetime.now(UTC),
        ))
