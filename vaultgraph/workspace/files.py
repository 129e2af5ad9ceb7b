"""The workspace on disk: each tenant's folder, and whole-file reads and writes in it."""

from __future__ import annotations

import asyncio
import hashlib
import os
import uuid
from pathlib import Path

import aiofiles
import aiofiles.os

from vaultgraph.domain import Owner
from vaultgraph.errors import InvalidInput
from vaultgraph.workspace.layout import check_key, place_of


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Workspace:
    """Files of every tenant under one root: `<root>/<tenant>/[agents/<id>/ | teams/<id>/]<path>`."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def file_for(self, tenant_id: str, owner: Owner, path: str) -> Path:
        tenant_root = (self.root / check_key(tenant_id, "tenant")).resolve()
        # place_of refuses a path whose place is another owner's: no document reaches a file that is not its own.
        target = (tenant_root / place_of(owner, path)).resolve()
        if not target.is_relative_to(tenant_root):
            raise InvalidInput("path", "resolves outside the workspace")
        return target

    # File work runs whole in a thread (open, read or write, close): a task cancelled meanwhile (a worker stopping,
    # a request timing out) cannot leave a file open, as it can with aiofiles when the cancel lands after the open.
    async def write(self, target: Path, data: bytes) -> None:
        """Write through a temporary file and rename, so a reader never sees half a file."""
        await asyncio.to_thread(_write_whole, target, data)

    async def read(self, target: Path, limit: int) -> bytes:
        return await asyncio.to_thread(_read_prefix, target, limit)

    async def remove(self, target: Path) -> None:
        if await aiofiles.os.path.exists(target):
            await aiofiles.os.remove(target)


def _write_whole(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        with tmp.open("wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _read_prefix(target: Path, limit: int) -> bytes:
    with target.open("rb") as handle:
        return handle.read(limit)
