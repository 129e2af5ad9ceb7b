"""The one walk over a folder of files, shared by the workspace scan and the Obsidian vault import.

Limits are those of a workspace scan: at most MAX_FILES files and MAX_TOTAL_BYTES in all (else LIMIT_EXCEEDED and
nothing is read), MAX_FILE_BYTES a file (larger ones are skipped with why). Hidden files and folders, `.git`,
`node_modules` and symbolic links are never followed, so no walked path resolves outside the root.
"""

from __future__ import annotations

import os
from pathlib import Path

from vaultgraph.errors import LimitExceeded

MAX_FILES = 5000
MAX_TOTAL_BYTES = 500 * 1024 * 1024
MAX_FILE_BYTES = 50 * 1024 * 1024
SKIPPED_DIRS = frozenset({"node_modules", ".git", ".obsidian", ".trash"})


def skipped_name(name: str) -> bool:
    """A file or folder name the walk never enters: hidden (a leading dot), `.git`, `node_modules` and the like."""
    return name.startswith(".") or name in SKIPPED_DIRS


def walk_files(root: Path) -> tuple[list[tuple[str, Path]], list[tuple[str, str]]]:
    """Every file under `root` within the limits, as (relative POSIX path, file), and those skipped with why."""
    root = root.resolve()
    files: list[tuple[str, Path]] = []
    skipped: list[tuple[str, str]] = []
    total = 0
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not skipped_name(d))
        for name in sorted(names):
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if name.startswith("."):
                continue
            try:
                if path.is_symlink():
                    skipped.append((relative, "a symbolic link"))
                    continue
                size = path.stat().st_size
            except FileNotFoundError:
                skipped.append((relative, "deleted while the folder was read"))
                continue
            if size > MAX_FILE_BYTES:
                skipped.append((relative, f"{size} bytes; a file holds at most {MAX_FILE_BYTES}"))
                continue
            total += size
            files.append((relative, path))
            if len(files) > MAX_FILES:
                raise LimitExceeded(f"the folder has more than {MAX_FILES} files; use a smaller folder",
                                    limit=MAX_FILES)
    if total > MAX_TOTAL_BYTES:
        raise LimitExceeded(f"the folder holds {total} bytes; at most {MAX_TOTAL_BYTES} are read at once",
                            limit=MAX_TOTAL_BYTES)
    return files, skipped
