"""Blank out the parts of a markdown source where neither wikilinks nor tags count.

The parser scans a *masked copy* of the source: same length, so every offset found in it is an offset in the
source, with code, comments and raw HTML replaced by ``MASK``. ``MASK`` is not whitespace, so masked text never
opens a tag, and the link grammar refuses it, so no link spans a masked region.
"""

from __future__ import annotations

import re
from bisect import bisect_left

MASK = "\x00"
# A NUL the source itself holds stands in the scan as U+FFFD (also not whitespace, also no markup), so every MASK in
# the scan is a masked region: a literal NUL inside a code span would otherwise read as the span crossing one.
_LITERAL_MASK = "\ufffd"

_FENCE_OPEN = re.compile(r"[ \t]*(?:>[ \t]*)*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)")
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|$)")
# Raw inline HTML tags and autolinks, one line at most: `<mark style="color: #FFF">` holds no tag.
_HTML_TAG = re.compile(
    r"</?[A-Za-z][A-Za-z0-9-]*(?:[ \t][^<>\n]*)?/?>"  # <tag attr="…">, </tag>, <br/>
    r"|<[A-Za-z][A-Za-z0-9+.-]*:[^\s<>]*>"  # <https://example.org/#frag>
)
_MASK_RUN = re.compile(f"{MASK}+")
# The destination of an inline Markdown link or image: `[text](https://x/#frag)`, `[text](#heading)`.
_LINK_DESTINATION = re.compile(r"(?<=\])\((?:[^()\s]|\([^()\s]*\))*(?:[ \t]+\"[^\"\n]*\")?\)")


def is_escaped(text: str, index: int) -> bool:
    """Whether ``text[index]`` follows an odd number of backslashes (``\\[`` is escaped, ``\\\\[`` is not)."""
    count = 0
    while index - count > 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _blank(chars: list[str], start: int, end: int) -> None:
    """Mask ``chars[start:end]``, keeping newlines so that line structure survives."""
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = MASK


def _mask_fences(text: str, chars: list[str], start: int) -> None:
    """Mask fenced code blocks (``` and ~~~), fence lines included; an unclosed fence runs to the end."""
    pos = start
    open_at: int | None = None
    fence = ""
    # Split on "\n" alone: str.splitlines() also breaks at characters Markdown does not end lines with.
    for line in text[start:].split("\n"):
        body = line.removesuffix("\r")
        if open_at is None:
            found = _FENCE_OPEN.fullmatch(body)
            # A backtick fence's info string cannot hold a backtick: "```code```" is an inline code span.
            if found and not (found["fence"][0] == "`" and "`" in found["info"]):
                open_at, fence = pos, found["fence"]
        else:
            closing = _FENCE_OPEN.fullmatch(body)
            if (
                closing
                and not closing["info"].strip()
                and closing["fence"][0] == fence[0]
                and len(closing["fence"]) >= len(fence)
            ):
                _blank(chars, open_at, pos + len(body))
                open_at = None
        pos += len(line) + 1
    if open_at is not None:
        _blank(chars, open_at, len(text))


def _mask_code_spans(chars: list[str]) -> None:
    """Mask inline code spans: a run of N backticks up to the next run of exactly N, within one paragraph."""
    text = "".join(chars)
    i, n = 0, len(text)
    blank_lines = [found.start() for found in _BLANK_LINE.finditer(text)]
    while i < n:
        if text[i] != "`":
            i += 1
            continue
        j = i
        while j < n and text[j] == "`":
            j += 1
        if is_escaped(text, i):
            i += 1  # "\`" is a literal backtick; the rest of the run may still open a span
            continue
        after = bisect_left(blank_lines, j)
        limit = blank_lines[after] if after < len(blank_lines) else n
        closing = re.compile(rf"(?<!`)`{{{j - i}}}(?!`)").search(text, j, limit)
        if closing is None or MASK in text[j : closing.start()]:
            i = j  # an unmatched run is literal text
            continue
        _blank(chars, i, closing.end())
        i = closing.end()


def _mask_comments(chars: list[str]) -> None:
    """Mask closed HTML comments; a plain scan, where a lazy regex would rescan to the end per unclosed one."""
    text = "".join(chars)
    opening = text.find("<!--")
    while opening != -1:
        closing = text.find("-->", opening + 4)
        if closing == -1:
            return  # no later comment can close either
        _blank(chars, opening, closing + 3)
        opening = text.find("<!--", closing + 3)


def _mask_pattern(chars: list[str], pattern: re.Pattern[str]) -> None:
    for found in pattern.finditer("".join(chars)):
        _blank(chars, found.start(), found.end())


def mask_markup(markdown: str, body_start: int = 0) -> str:
    """Return ``markdown`` with everything before ``body_start``, code, HTML comments and HTML tags masked."""
    chars = list(markdown.replace(MASK, _LITERAL_MASK))
    _blank(chars, 0, body_start)
    _mask_fences(markdown, chars, body_start)
    _mask_code_spans(chars)
    # Code first: "`<!--`" is code, not the start of a comment (CommonMark precedence).
    _mask_comments(chars)
    _mask_pattern(chars, _HTML_TAG)
    return "".join(chars)


def masks_only_code(source: str, scan: str, start: int, end: int) -> bool:
    """Whether every masked run of ``scan[start:end]`` is an inline code span of ``source``, backtick to backtick.

    Link text may hold code spans (``[[T|`code`]]``, ``[`code`](T.md)``, as CommonMark allows in link text), but
    no comment, HTML tag or other masked region.
    """
    for run in _MASK_RUN.finditer(scan, start, end):
        if source[run.start()] != "`" or source[run.end() - 1] != "`":
            return False
    return True


def mask_spans(scan: str, spans: list[tuple[int, int]]) -> str:
    """Mask the given ``(start, end)`` spans and inline link destinations: what the tag scanner must skip."""
    chars = list(scan)
    for start, end in spans:
        _blank(chars, start, end)
    _mask_pattern(chars, _LINK_DESTINATION)
    return "".join(chars)
