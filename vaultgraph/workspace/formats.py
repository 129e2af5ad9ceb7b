"""Which files count as text: the suffixes the system reads as text kinds, and the test that bytes are text.

One rule for createDocument, uploads, the workspace scan and the watcher: a text file has one of these suffixes
and its bytes are UTF-8 with no NUL. PDF, DOCX, PPTX and XLSX files are documents too for uploads and the scan
when the `formats` extra converts them to Markdown (vaultgraph/workspace/convert.py): their bytes are kept as
they are, the Markdown is what enrichment reads. Other files (images) enter only as vault-import attachments.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from vaultgraph.errors import UnsupportedFormat
from vaultgraph.workspace.convert import converts, missing_extra_reason

# suffix -> docType; `.html` is stored as the text it is (never rendered, never executed), and enriched as the
# Markdown it converts to when the formats extra is installed.
DOC_TYPES_BY_SUFFIX = {
    ".md": "markdown", ".markdown": "markdown", ".txt": "text", ".json": "json", ".yaml": "yaml",
    ".yml": "yaml", ".csv": "csv", ".tsv": "tsv", ".html": "html", ".htm": "html",
}
TEXT_SUFFIXES = tuple(DOC_TYPES_BY_SUFFIX)
# suffix -> docType of the binary formats the formats extra reads: never decoded as text, always converted.
CONVERTED_DOC_TYPES = {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx"}
CONVERTED_SUFFIXES = tuple(CONVERTED_DOC_TYPES)
FALLBACK_DOC_TYPE = "text"


def suffix_of(name: str) -> str:
    """The lower-cased suffix of a path or a client's file name, judged on its last segment."""
    return PurePosixPath(name.replace("\\", "/")).suffix.lower()


def is_text_name(name: str) -> bool:
    return suffix_of(name) in DOC_TYPES_BY_SUFFIX


def is_converted_name(name: str) -> bool:
    """A PDF, DOCX, PPTX or XLSX file by its name: a document whose bytes are converted, never read as text."""
    return suffix_of(name) in CONVERTED_DOC_TYPES


def is_document_name(name: str) -> bool:
    """A file uploads and the scan make a document of: a text kind, or a converted format (if not installed, it
    is refused with `not_document_reason`, which names the extra)."""
    return is_text_name(name) or (is_converted_name(name) and converts(suffix_of(name)))


def not_text_reason(name: str) -> str:
    suffix = suffix_of(name)
    if suffix in CONVERTED_DOC_TYPES:
        return f"{suffix} is not text; send the file itself with uploadDocuments"
    return f"{suffix or 'no suffix'} is not an accepted format; use one of {' '.join(TEXT_SUFFIXES)}"


def not_document_reason(name: str) -> str:
    """Why uploads and the scan refuse this name: the accepted suffixes, or the extra a converted format needs."""
    suffix = suffix_of(name)
    if suffix in CONVERTED_DOC_TYPES and not converts(suffix):
        return missing_extra_reason(suffix)
    accepted = TEXT_SUFFIXES + tuple(s for s in CONVERTED_SUFFIXES if converts(s))
    return f"{suffix or 'no suffix'} is not an accepted format; use one of {' '.join(accepted)}"


def check_text_name(name: str) -> str:
    """The name's suffix when it is a text kind; UNSUPPORTED_FORMAT naming the accepted ones otherwise."""
    if not is_text_name(name):
        raise UnsupportedFormat(f"{name}: {not_text_reason(name)}", field="path")
    return suffix_of(name)


def doc_type_of(name: str) -> str:
    """The docType a file's suffix implies (`markdown`, `json`, `pdf`…)."""
    suffix = suffix_of(name)
    return DOC_TYPES_BY_SUFFIX.get(suffix) or CONVERTED_DOC_TYPES.get(suffix, FALLBACK_DOC_TYPE)


def decode_text(data: bytes) -> str | None:
    """The bytes as text, or None when they are binary (a NUL byte near the start) or not UTF-8."""
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
