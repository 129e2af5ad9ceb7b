"""Phase 0: read what enrichment will work on, and decide whether the document can be enriched at all.

Enrichment reads at most `max_bytes` (4 MB by default, GoClaw's limit). A file over that, an empty one, or one
that is not UTF-8 text is SKIPPED with the reason: that is a property of the file, and no retry changes it. A file
that is missing from the workspace FAILS at once with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vaultgraph.workspace import Workspace, sha256_hex

DEFAULT_MAX_BYTES = 4 * 1024 * 1024
# Control bytes that never occur in text; one of them in the first block marks a binary file.
_BINARY_MARKERS = bytes(range(0, 9)) + b"\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1c\x1d\x1e\x1f"
_SNIFF_BYTES = 8192


@dataclass(frozen=True, slots=True)
class Read:
    text: str = ""
    sha256: str = ""
    size: int = 0
    skip_reason: str | None = None
    fail_reason: str | None = None


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def looks_binary(data: bytes) -> bool:
    head = data[:_SNIFF_BYTES]
    return any(byte in _BINARY_MARKERS for byte in head)


async def read_for_enrichment(workspace: Workspace, target: Path, path: str, max_bytes: int) -> Read:
    try:
        data = await workspace.read(target, max_bytes + 1)
    except FileNotFoundError:
        return Read(fail_reason=f"the file {path!r} is missing from the workspace; write it again or delete "
                                "the document")
    except IsADirectoryError:
        return Read(skip_reason=f"{path!r} is a directory, not a file")
    if len(data) > max_bytes:
        return Read(skip_reason=f"the file is larger than the {_megabytes(max_bytes)} enrichment reads; split it "
                                "into smaller documents")
    if not data.strip():
        return Read(skip_reason="the file is empty")
    if looks_binary(data):
        return Read(skip_reason="the file is not text (it holds binary data)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Read(skip_reason=f"the file is not UTF-8 text (invalid byte at offset {exc.start})")
    return Read(text=text.lstrip("\ufeff"), sha256=sha256_hex(data), size=len(data))
