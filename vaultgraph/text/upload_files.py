"""Uploaded files judged by what they hold, not what they are called, and the names they are stored under.

`suffix_of` is re-exported from vaultgraph.workspace.formats, the one rule of which files are text.

Pure functions: the upload service calls them on every file before anything is written.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from pathlib import PurePosixPath

import yaml

from vaultgraph.workspace.convert import converts
from vaultgraph.workspace.formats import CONVERTED_SUFFIXES, TEXT_SUFFIXES, not_document_reason, suffix_of

__all__ = ["SUFFIXES", "Refused", "check_content", "numbered", "storage_name", "suffix_of"]

# The text formats an upload may carry are those of every other write path (vaultgraph.workspace.formats), and the
# converted ones (PDF, DOCX, PPTX, XLSX) when the formats extra is installed.
SUFFIXES = TEXT_SUFFIXES + CONVERTED_SUFFIXES
MAX_STEM_CHARS = 100
FALLBACK_STEM = "upload"
_UNSAFE = re.compile(r"[^\w .()+,=@-]+")  # \w is Unicode: readable names in any script stay readable
_SPACES = re.compile(r"\s+")
_DASHES = re.compile(r"-{2,}")
# C0 controls other than tab, newline, form feed, carriage return and escape (ANSI colours in logs).
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27)) + b"\x7f"
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: 50 MB parse in seconds


class Refused(Exception):
    """One file refused: the code the API reports and why, in words."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def storage_name(filename: str) -> str:
    """A safe, readable file name from a client's: no directories, no `..`, no control or odd characters, no
    leading dot (hidden files are not scanned); the suffix lower-cased. Never empty while the suffix is allowed."""
    base = unicodedata.normalize("NFC", filename.replace("\\", "/")).split("/")[-1]
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C")  # controls, format chars, surrogates
    path = PurePosixPath(base)
    suffix = path.suffix.lower()
    stem = base[: -len(path.suffix)] if path.suffix else base
    stem = _UNSAFE.sub("-", stem)
    stem = _DASHES.sub("-", _SPACES.sub(" ", stem)).strip(" .-")
    stem = stem[:MAX_STEM_CHARS].rstrip(" .-") or FALLBACK_STEM
    return f"{stem}{suffix}"


def numbered(name: str, n: int) -> str:
    """`report.md` → `report-2.md`: the n-th candidate when the name is taken."""
    if n <= 1:
        return name
    path = PurePosixPath(name)
    return f"{path.stem}-{n}{path.suffix}"


def check_content(suffix: str, data: bytes) -> str | None:
    """The file's text when its content is what its suffix says; raises Refused (UNSUPPORTED_FORMAT) otherwise.

    None for a converted format (PDF…): it is judged when enrichment converts it, so a corrupt or encrypted file
    fails its own document's enrichment, not the upload of the files sent with it."""
    if suffix not in SUFFIXES:
        raise Refused("UNSUPPORTED_FORMAT", not_document_reason(f"x{suffix}"))
    if suffix in CONVERTED_SUFFIXES:
        if not converts(suffix):
            raise Refused("UNSUPPORTED_FORMAT", not_document_reason(f"x{suffix}"))
        return None
    if b"\x00" in data:
        raise Refused("UNSUPPORTED_FORMAT", "binary content (a NUL byte), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused("UNSUPPORTED_FORMAT", f"not UTF-8 text (byte {exc.start} cannot be decoded)") from exc
    if any(byte in _CONTROL_BYTES for byte in data[:65536]):
        raise Refused("UNSUPPORTED_FORMAT", "binary content (control characters), not text")
    body = text.removeprefix("\ufeff")
    if suffix == ".json":
        try:
            json.loads(body)
        except json.JSONDecodeError as exc:
            raise Refused("UNSUPPORTED_FORMAT", f"not JSON: {exc.msg} at line {exc.lineno}") from exc
    elif suffix in (".yaml", ".yml"):
        try:
            for _ in yaml.load_all(body, Loader=_YAML_LOADER):
                pass
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise Refused("UNSUPPORTED_FORMAT", f"not YAML{where}") from exc
    elif suffix in (".csv", ".tsv"):
        try:
            for _ in csv.reader(io.StringIO(body, newline=""), delimiter="\t" if suffix == ".tsv" else ",",
                                strict=True):
                pass
        except csv.Error as exc:
            raise Refused("UNSUPPORTED_FORMAT", f"not {suffix[1:].upper()}: {exc}") from exc
    return text
