"""Uploads: files a client sends become workspace files and documents, all of them or none.

Every file is judged first (count, size, format by content, the caller's right to the target folder); one refusal
refuses the lot and nothing is written. Then each is stored under a name made here (never the client's path) in
the target owner's folder and registered the way a scan registers a file: by SHA-256, so the same content at the
same name is unchanged, and a new document starts enrichment by itself (DocumentService.on_created / on_changed).
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import structlog

from vaultgraph.domain import Document, Owner, Principal
from vaultgraph.errors import Conflict, Forbidden, InvalidInput, LimitExceeded, UnsupportedFormat
from vaultgraph.graph import workspace_sync as sync_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.services.links import LinkService
from vaultgraph.services.workspace_sync import WorkspaceSync
from vaultgraph.text.upload_files import Refused, check_content, numbered, storage_name, suffix_of
from vaultgraph.workspace import Workspace, check_document_path, normalize_path, place_of, sha256_hex

log = structlog.get_logger(__name__)

MAX_NAME_TRIES = 1000  # report-2.md … report-1000.md, then the folder is too crowded for that name


@dataclass(frozen=True, slots=True)
class UploadLimits:
    max_files: int
    max_file_bytes: int
    max_body_bytes: int
    max_concurrent: int = 0  # upload requests in flight per tenant (the HTTP view enforces it); 0: no limit


class UploadSource(Protocol):
    """One uploaded file as the HTTP layer hands it over (Starlette's UploadFile fits)."""

    filename: str | None

    async def read(self, size: int = -1) -> bytes: ...

    async def seek(self, offset: int) -> None: ...


class UploadStatus(enum.Enum):
    CREATED = "CREATED"
    UPDATED = "UPDATED"
    UNCHANGED = "UNCHANGED"


@dataclass(frozen=True, slots=True)
class StoredFile:
    filename: str  # as the client named it
    path: str  # where it is stored, inside the owner's space (the document's path)
    status: UploadStatus
    document: Document


@dataclass(frozen=True, slots=True)
class _Checked:
    source: UploadSource
    filename: str
    name: str  # the storage name made from it
    digest: str
    size: int


def check_folder(owner: Owner, folder: str | None) -> str:
    """The folder inside the owner's space, checked by the layout rule: relative, no `..`, nothing a scan skips, and
    not a path that would make the files another owner's (`agents/…` or `teams/…` at the top of the shared space)."""
    if folder is None or not folder.strip().strip("/"):
        return ""
    return check_document_path(owner, folder.strip().strip("/"), "folder")


class UploadService:
    def __init__(self, graph: Graph, workspace: Workspace, sync: WorkspaceSync, links: LinkService,
                 limits: UploadLimits) -> None:
        self.graph = graph
        self.workspace = workspace
        self.sync = sync
        self.links = links
        self.limits = limits
        self._locks: dict[str, asyncio.Lock] = {}  # per tenant: two uploads never pick the same free name

    async def upload(self, principal: Principal, owner: Owner, folder: str | None, files: Sequence[UploadSource],
                     overwrite: bool = False) -> list[StoredFile]:
        if not principal.may_write(owner):
            raise Forbidden(f"you cannot write to the {owner.scope.value} space of {owner.key}")
        where = check_folder(owner, folder)
        if not files:
            raise InvalidInput("files", "send at least one file")
        if len(files) > self.limits.max_files:
            raise LimitExceeded(f"{len(files)} files; an upload carries at most {self.limits.max_files}",
                                field="files", limit=self.limits.max_files)
        checked = [await self._check(source) for source in files]
        refused = [c for c in checked if isinstance(c, dict)]
        if refused:
            first = refused[0]
            error = LimitExceeded if first["code"] == LimitExceeded.code else UnsupportedFormat
            names = ", ".join(f"{r['filename']} ({r['reason']})" for r in refused[:5])
            raise error(f"{len(refused)} of {len(files)} files refused, nothing was stored: {names}",
                        field="files", refused=refused)
        accepted = [c for c in checked if isinstance(c, _Checked)]
        lock = self._locks.setdefault(principal.tenant_id, asyncio.Lock())
        async with lock:
            return await self._store_all(principal, owner, where, accepted, overwrite)

    async def _check(self, source: UploadSource) -> _Checked | dict[str, str]:
        """Read one file (at most the cap plus a byte) and judge it; a refusal comes back as a dict for the error."""
        filename = source.filename or ""
        data = await source.read(self.limits.max_file_bytes + 1)
        if len(data) > self.limits.max_file_bytes:
            return {"filename": filename, "code": LimitExceeded.code,
                    "reason": f"larger than {self.limits.max_file_bytes} bytes, the most a file may hold"}
        try:
            check_content(suffix_of(filename), data)
        except Refused as exc:
            return {"filename": filename, "code": exc.code, "reason": exc.reason}
        return _Checked(source, filename, storage_name(filename), sha256_hex(data), len(data))

    async def _store_all(self, principal: Principal, owner: Owner, folder: str, files: list[_Checked],
                         overwrite: bool) -> list[StoredFile]:
        """Pick each file's name, write the files, then register them through the scan's own code path."""
        tenant = principal.tenant_id
        plans: list[tuple[_Checked, str, UploadStatus]] = []
        taken: set[str] = set()  # names this upload already used
        first_choices = [normalize_path(f"{folder}/{f.name}" if folder else f.name) for f in files]
        known = {d.path: d for d in await self.graph.read(
            sync_cypher.documents_at, tenant, [(owner.key, path) for path in first_choices])}
        for file in files:
            path, status = await self._place(tenant, owner, folder, file, taken, overwrite, known)
            taken.add(path)
            plans.append((file, path, status))
        written: list[tuple[str, UploadStatus]] = []
        try:
            for file, path, status in plans:
                target = self.workspace.file_for(tenant, owner, path)
                if status is UploadStatus.UNCHANGED and await asyncio.to_thread(target.exists):
                    continue
                await self.workspace.write(target, await self._data(file))
                written.append((path, status))
            # The workspace scan's own path: new files registered, changed ones re-hashed, each queued to enrich.
            report = await self.sync.sync_paths(tenant, [place_of(owner, path) for path, _ in written])
            found = {d.path: d for d in await self.graph.read(
                sync_cypher.documents_at, tenant, [(owner.key, path) for _, path, _ in plans])}
            stored: list[StoredFile] = []
            for file, path, status in plans:
                document = found.get(path)
                if document is None or document.content_hash != file.digest:
                    why = dict(report.skipped).get(place_of(owner, path), "it changed while it was stored")
                    raise Conflict(f"{file.filename} could not be stored as {path}: {why}; nothing was stored",
                                   path=path)
                stored.append(StoredFile(file.filename, path, status, document))
        except BaseException:
            await self._undo(principal, owner, [path for path, status in written if status is UploadStatus.CREATED])
            raise
        log.info("upload stored", tenant=tenant, owner=owner.key, files=len(stored),
                 created=sum(s.status is UploadStatus.CREATED for s in stored))
        return stored

    async def _place(self, tenant: str, owner: Owner, folder: str, file: _Checked, taken: set[str],
                     overwrite: bool, known: dict[str, Document]) -> tuple[str, UploadStatus]:
        """The path a file goes to and what storing it there means: the client's name made safe, numbered past
        names that hold other content (unless `overwrite`); the same content at the same name is unchanged."""
        for n in range(1, MAX_NAME_TRIES + 1):
            path = normalize_path(f"{folder}/{numbered(file.name, n)}" if folder else numbered(file.name, n))
            if path in taken:
                continue
            check_document_path(owner, path, "folder")  # ownership from the path, as a scan reads it
            if n == 1:  # looked up for every file at once
                document = known.get(path)
            else:
                existing = await self.graph.read(sync_cypher.documents_at, tenant, [(owner.key, path)])
                document = existing[0] if existing else None
            if document is not None and document.content_hash == file.digest:
                return path, UploadStatus.UNCHANGED
            if document is not None and overwrite:
                return path, UploadStatus.UPDATED
            on_disk = await asyncio.to_thread(self.workspace.file_for(tenant, owner, path).exists)
            if document is None and not on_disk:
                return path, UploadStatus.CREATED
        raise LimitExceeded(f"{MAX_NAME_TRIES} files named like {file.name} are in that folder already; rename it",
                            field="files", limit=MAX_NAME_TRIES)

    @staticmethod
    async def _data(file: _Checked) -> bytes:
        """The file again (read once to check it, then dropped so 50 files never sit in memory at once)."""
        await file.source.seek(0)
        data = await file.source.read()
        if sha256_hex(data) != file.digest:
            raise InvalidInput("files", f"{file.filename} changed while it was uploaded; try again")
        return data

    async def _undo(self, principal: Principal, owner: Owner, created: list[str]) -> None:
        """A failure part way: the files this upload created are removed again, and their documents if any."""
        tenant = principal.tenant_id
        try:
            documents = await self.graph.read(sync_cypher.documents_at, tenant, [(owner.key, p) for p in created])
            for document in documents:
                await self.links.hard_delete(principal, document)
            for path in created:
                await self.workspace.remove(self.workspace.file_for(tenant, owner, path))
        except Exception:  # the original error is what the caller needs to see
            log.exception("upload rollback failed", tenant=tenant, paths=created)
