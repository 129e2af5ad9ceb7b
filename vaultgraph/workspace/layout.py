"""Where a workspace file lives and whose it is: the one rule, in both directions.

A tenant's folder holds `agents/<agentId>/…` (that agent's personal space), `teams/<teamId>/…` (that team's space)
and everything else (the shared space). So `agents` and `teams` at the top are reserved: a shared path there would
be another owner's file (or, named exactly `agents/alice`, a file where alice's folder must be). Every write path
(createDocument, uploads, the scan and the watcher, vault import) goes through `check_document_path` or
`owner_of_place`, and every file access through `place_of`, so a path and its owner always agree.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from vaultgraph.domain import Owner, Scope
from vaultgraph.errors import InvalidInput
from vaultgraph.file_walk import skipped_name

MAX_PATH_LENGTH = 1024
AGENTS_FOLDER = "agents"
TEAMS_FOLDER = "teams"
RESERVED_FOLDERS = (AGENTS_FOLDER, TEAMS_FOLDER)
_RESERVED_WHY = ("`agents/` and `teams/` at the top of the workspace are reserved: `agents/<agentId>/…` is that "
                 "agent's personal space and `teams/<teamId>/…` that team's; write there with scope PERSONAL and "
                 "agentId (or TEAM and teamId), or choose another folder")
_SAFE_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


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
    """The folder of an owner's space inside the tenant's folder ("" for the shared space)."""
    if owner.scope is Scope.PERSONAL:
        return f"{AGENTS_FOLDER}/{owner.agent_id}"
    if owner.scope is Scope.TEAM:
        return f"{TEAMS_FOLDER}/{owner.team_id}"
    return ""


def owner_of_place(place: str, field: str = "path") -> tuple[Owner, str]:
    """The owner a tenant-relative path implies, and the document's path inside that owner's space.

    InvalidInput for a path in a reserved folder that names no owner: a file named `agents`, `agents/x.md`,
    `agents/<not an id>/…`, or `Agents/…` (another case of a reserved name, the same folder on a case-insensitive
    disk)."""
    relative = normalize_path(place, field)
    parts = relative.split("/")
    head = parts[0]
    if head.casefold() not in RESERVED_FOLDERS:
        return Owner(Scope.SHARED), relative
    if head not in RESERVED_FOLDERS or len(parts) < 3:
        raise InvalidInput(field, f"{relative!r} is not inside an owner's space: {_RESERVED_WHY}")
    if head == AGENTS_FOLDER:
        return Owner(Scope.PERSONAL, agent_id=check_key(parts[1], "agentId")), "/".join(parts[2:])
    return Owner(Scope.TEAM, team_id=check_key(parts[1], "teamId")), "/".join(parts[2:])


def place_of(owner: Owner, path: str, field: str = "path") -> str:
    """The tenant-relative path where the document of `owner` at `path` lives; InvalidInput when that place would
    be another owner's (a shared `agents/alice/x.md`), so no caller can reach a file that is not the owner's."""
    clean = normalize_path(path, field)
    prefix = owner_prefix(owner)
    place = f"{prefix}/{clean}" if prefix else clean
    try:
        implied = owner_of_place(place, field)
    except InvalidInput as exc:
        raise InvalidInput(field, f"{clean!r} cannot be a {owner.scope.value} path: {_RESERVED_WHY}") from exc
    if implied != (owner, clean):
        raise InvalidInput(field, f"{clean!r} would be the file of {implied[0].key}, not of {owner.key}: "
                                  f"{_RESERVED_WHY}")
    return place


def check_document_path(owner: Owner, path: str, field: str = "path") -> str:
    """The normalised path a new document (or upload folder) of `owner` may take: inside the workspace, in no folder
    a scan skips (hidden, `.git`, `node_modules`…), at a place that is this owner's (see `place_of`)."""
    clean = normalize_path(path, field)
    for part in clean.split("/"):
        if skipped_name(part):
            raise InvalidInput(field, f"{part!r} is a name the workspace scan skips; choose another")
    place_of(owner, clean, field)
    return clean
