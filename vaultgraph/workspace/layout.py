"""Where a workspace file lives and whose it is: the one rule, in both directions."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from vaultgraph.domain import Owner, Scope
from vaultgraph.errors import InvalidInput

MAX_PATH_LENGTH = 1024
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
    if owner.scope is Scope.PERSONAL:
        return f"agents/{owner.agent_id}"
    if owner.scope is Scope.TEAM:
        return f"teams/{owner.team_id}"
    return ""
