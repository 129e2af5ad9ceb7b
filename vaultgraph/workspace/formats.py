"""Which files count as text: the suffixes the system reads as text kinds, and the test that bytes are text.

One rule for createDocument, uploads, the workspace scan and the watcher: a text file has one of these suffixes
and its bytes are UTF-8 with no NUL. Other files (images, PDFs) enter only as vault-import attachments, by their
bytes, never as text.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from vaultgraph.errors import UnsupportedFormat

# suffix -> docType; `.html` is stored as the text it is (never rendered, never executed).
DOC_TYPES_BY_SUFFIX = {
    ".md": "markdown", ".markdown": "markdown", ".txt": "text", ".json": "json", ".yaml": "yaml",
    ".yml": "yaml", ".csv": "csv", ".tsv": "tsv", ".html": "html", ".htm": "html",
}
TEXT_SUFFIXES = tuple(DOC_TYPES_BY_SUFFIX)
FALLBACK_DOC_TYPE = "text"


def suffix_of(name: str) -> str:
    """The lower-cased suffix of a path or a client's file name, judged on its last segment."""
    return PurePosixPath(name.replace("\\", "/")).suffix.lower()


def is_text_name(name: str) -> bool:
    return suffix_of(name) in DOC_TYPES_BY_SUFFIX


def not_text_reason(name: str) -> str:
    suffix = suffix_of(name)
    return f"{suffix or 'no suffix'} is not an accepted format; use one of {' '.join(TEXT_SUFFIXES)}"


def check_text_name(name: str) -> str:
    """The name's suffix when it is a text kind; UNSUPPORTED_FORMAT naming the accepted ones otherwise."""
    if not is_text_name(name):
        raise UnsupportedFormat(f"{name}: {not_text_reason(name)}", field="path")
    return suffix_of(name)


def doc_type_of(name: str) -> str:
    """The docType a file's suffix implies (`markdown`, `json`…)."""
    return DOC_TYPES_BY_SUFFIX.get(suffix_of(name), FALLBACK_DOC_TYPE)


def decode_text(data: bytes) -> str | None:
    """The bytes as text, or None when they are binary (a NUL byte near the start) or not UTF-8."""
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
