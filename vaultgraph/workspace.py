"""The workspace on disk: where a document's file lives, checked so no path escapes its tenant's root."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import uuid
from pathlib import Path, PurePosixPath

import aiofiles
import aiofiles.os

from vaultgraph.domain import Owner, Scope
from vaultgraph.errors import InvalidInput

MAX_PATH_LENGTH = 1024
_SAFE_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_key(value: str, field: str) -> str:
    """Tenant, agent and team ids name folders, so they are held to a strict pattern."""
    if not _SAFE_KEY.match(value) or value in (".", ".."):
        raise InvalidInput(field, "use 1-128 letters, digits, '_', '-' or '.', starting with a letter or digit")
    return value


def normalize_path(path: str, field: str = "path") -> str:
    """A workspace-relative POSIX path: no absolute paths, no `..`, no empty or hidden-control segments."""
    if not path or not path.strip():
        raise InvalidInput(field, "must not be empty")
    if len(path) > MAX_PATH_LENGTH:
        raise InvalidInput(field, f"at most {MAX_PATH_LENGTH} characters")
    if "\\" in path or "\x00" in path:
        raise InvalidInput(field, "use '/' as the separator; backslashes and NUL are not allowed")
    pure = PurePosixPath(path)
    if pure.is_absolute():
        raise InvalidInput(field, "must be relative to the workspace, not absolute")
    parts = [part for part in pure.parts if part not in ("", ".")]
    if not parts or any(part == ".." for part in parts):
        raise InvalidInput(field, "must stay inside the workspace ('..' is not allowed)")
    return "/".join(parts)


def owner_prefix(owner: Owner) -> str:
    if owner.scope is Scope.PERSONAL:
        return f"agents/{owner.agent_id}"
    if owner.scope is Scope.TEAM:
        return f"teams/{owner.team_id}"
    return ""


class Workspace:
    """Files of every tenant under one root: `<root>/<tenant>/[agents/<id>/ | teams/<id>/]<path>`."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def file_for(self, tenant_id: str, owner: Owner, path: str) -> Path:
        tenant_root = (self.root / check_key(tenant_id, "tenant")).resolve()
        target = (tenant_root / owner_prefix(owner) / path).resolve()
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
