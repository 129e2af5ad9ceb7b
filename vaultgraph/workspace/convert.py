"""Office files, PDFs and HTML as Markdown, through MarkItDown (the optional `formats` extra).

MarkItDown over Docling: it needs no PyTorch and downloads no model at run time (we run offline), and it turns each
of these formats into Markdown with headings, lists and tables kept. It is imported lazily, when a file is
converted, never when vaultgraph is imported: the CLI answers `--help` without it, and a server without the extra
runs, refusing these formats with a message that names the extra.

Each suffix goes to its own converter, called directly: MarkItDown's front door tries converter after converter
and would hand a corrupt PDF to the plain-text one, which is exactly what must fail instead.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import re

EXTRA = "pip install 'vaultgraph[formats]'"
# suffix -> (the MarkItDown converter class, a module its extra brings, the format's name in messages)
_CONVERTERS = {
    ".pdf": ("PdfConverter", "pdfminer", "PDF"),
    ".docx": ("DocxConverter", "mammoth", "DOCX"),
    ".pptx": ("PptxConverter", "pptx", "PPTX"),
    ".xlsx": ("XlsxConverter", "openpyxl", "XLSX"),
    ".html": ("HtmlConverter", "bs4", "HTML"),
    ".htm": ("HtmlConverter", "bs4", "HTML"),
}
MAX_REASON_CHARS = 300
# MarkItDown's own marks (`<!-- Slide number: 3 -->`): not the document's text, so not summarised or searched.
_COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)
# pdfminer's names for a PDF that needs a password or uses encryption it cannot undo.
_ENCRYPTED = ("PDFPasswordIncorrect", "PDFEncryptionError", "PDFEncryptionWarning", "PDFNotImplementedError")


class ConversionFailed(Exception):
    """A file that cannot become Markdown (corrupt, encrypted, or its converter not installed): why, in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@functools.cache
def _installed(module: str) -> bool:
    # find_spec looks the module up without importing it (so nothing heavy loads to answer this).
    return importlib.util.find_spec("markitdown") is not None and importlib.util.find_spec(module) is not None


def converts(suffix: str) -> bool:
    """True when files of this suffix are turned into Markdown here: a known format, and its converter installed."""
    entry = _CONVERTERS.get(suffix)
    return entry is not None and _installed(entry[1])


def missing_extra_reason(suffix: str) -> str:
    """Why a file of a known suffix is refused on a server without the extra, naming the command that adds it."""
    return f"{suffix} files are converted to Markdown by the optional formats extra, not installed here: {EXTRA}"


def to_markdown(suffix: str, data: bytes) -> str:
    """The file's Markdown; ConversionFailed when it cannot be read as its suffix says (blocking: run it in a
    thread)."""
    entry = _CONVERTERS.get(suffix)
    if entry is None:
        raise ConversionFailed(f"{suffix or 'no suffix'} is not a format vaultgraph converts")
    class_name, _, label = entry
    try:
        from markitdown import MissingDependencyException, StreamInfo, converters
    except ImportError as exc:
        raise ConversionFailed(missing_extra_reason(suffix)) from exc
    converter = getattr(converters, class_name)()
    try:
        result = converter.convert(io.BytesIO(data), StreamInfo(extension=suffix, charset="utf-8"))
    except MissingDependencyException as exc:
        raise ConversionFailed(missing_extra_reason(suffix)) from exc
    except Exception as exc:  # each library fails its own way on a bad file; all of them mean "not readable"
        raise ConversionFailed(_reason(label, exc)) from exc
    markdown: str = result.markdown
    return _COMMENT.sub("", markdown)


def _reason(label: str, exc: BaseException) -> str:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    if any(type(e).__name__ in _ENCRYPTED for e in chain):
        return (f"the {label} is encrypted (password protected) and cannot be read; upload a copy saved without a "
                "password")
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return (f"the file could not be read as {label} ({detail[:MAX_REASON_CHARS]}); it may be corrupt or not a "
            f"{label} file")
