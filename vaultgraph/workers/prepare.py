"""Phase 0: read what enrichment will work on, and decide whether the document can be enriched at all.

Enrichment reads at most `max_bytes` (4 MB by default, GoClaw's limit). A file over that, an empty one, or one
that is not UTF-8 text is SKIPPED with the reason: that is a property of the file, and no retry changes it. A file
that is missing from the workspace FAILS at once with the reason.

A PDF, DOCX, PPTX or XLSX file (and HTML, when the formats extra is installed) is converted to Markdown here, and
the Markdown is what every later phase reads (summary, chunks, vectors, full text); the file itself stays as it
is. One that cannot be converted (corrupt, encrypted) FAILS with the reason, not retried: the others of the batch
go on. The size limit applies to the Markdown; the file may be as large as an upload.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from vaultgraph.services.documents import MAX_FILE_BYTES
from vaultgraph.workspace import Workspace, sha256_hex
from vaultgraph.workspace.convert import ConversionFailed, converts, missing_extra_reason, to_markdown
from vaultgraph.workspace.formats import is_converted_name, suffix_of

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
    converted = is_converted_name(path)
    limit = MAX_FILE_BYTES if converted else max_bytes  # a converted file: its Markdown is held to max_bytes
    try:
        data = await workspace.read(target, limit + 1)
    except FileNotFoundError:
        return Read(fail_reason=f"the file {path!r} is missing from the workspace; write it again or delete "
                                "the document")
    except IsADirectoryError:
        return Read(skip_reason=f"{path!r} is a directory, not a file")
    if len(data) > limit:
        return Read(skip_reason=f"the file is larger than the {_megabytes(limit)} enrichment reads; split it "
                                "into smaller documents")
    if not data.strip():
        return Read(skip_reason="the file is empty")
    if converted:
        return await _converted(path, data, max_bytes)
    if looks_binary(data):
        return Read(skip_reason="the file is not text (it holds binary data)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Read(skip_reason=f"the file is not UTF-8 text (invalid byte at offset {exc.start})")
    if converts(suffix_of(path)):  # HTML with the formats extra: its Markdown, not its markup
        return await _converted(path, data, max_bytes)
    return Read(text=text.lstrip("\ufeff"), sha256=sha256_hex(data), size=len(data))


async def _converted(path: str, data: bytes, max_bytes: int) -> Read:
    """The Markdown of a file the formats extra converts, read off the event loop (a PDF takes a while)."""
    suffix = suffix_of(path)
    if not converts(suffix):  # registered before the extra was removed, or a vault-import attachment
        return Read(skip_reason=missing_extra_reason(suffix))
    try:
        markdown = await asyncio.to_thread(to_markdown, suffix, data)
    except ConversionFailed as exc:
        return Read(fail_reason=exc.reason)
    markdown = markdown.replace("\f", "\n\n").strip()  # a PDF's page breaks
    if not markdown:
        return Read(skip_reason="the file holds no text (a scanned PDF needs OCR, which vaultgraph does not do)")
    if len(markdown.encode("utf-8")) > max_bytes:
        return Read(skip_reason=f"its text is larger than the {_megabytes(max_bytes)} enrichment reads; split the "
                                "file into smaller documents")
    return Read(text=markdown, sha256=sha256_hex(data), size=len(data))
