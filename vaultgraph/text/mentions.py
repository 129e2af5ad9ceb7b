"""Unlinked mentions, as Obsidian's backlinks pane finds them: a note's title or an alias written as plain text in
another note's body, case-insensitive, in whole words, and nowhere a link could not stand.

What does not count, on the parser's own masked scan (text/masking.py): front matter, fenced and inline code, HTML
comments and tags; on top of it, every [[wikilink]], embed and markdown link (its text too: `[Alpha](x.md)` and
`[Alpha](https://…)` are links already), bare URLs and `#tags` (`#alpha` is a tag, not the word). A mention whose
text holds `[`, `]` or `|` could not become the alias of a link, and is not one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vaultgraph.text.frontmatter import find_frontmatter
from vaultgraph.text.masking import mask_markup, mask_spans
from vaultgraph.text.snippets import MARK_CLOSE, MARK_OPEN
from vaultgraph.text.wikilinks import context_span, parse

SNIPPET_CHARS = 60
"""Characters of the body either side of a mention its snippet shows (cut inward to whole words)."""
MAX_NAMES = 20
"""Names (the title and aliases) a note is looked for by; aliases past it are not looked for."""

_ANY_MARKDOWN_LINK = re.compile(r"!?\[[^\[\]\n]*\]\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)")
_BARE_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s<>]*")
_NOT_IN_ALIAS = re.compile(r"[\[\]|\n]")
_TABLE_ROW = re.compile(r"[ \t]*(?:>[ \t]*)*\|")


@dataclass(frozen=True, slots=True)
class TextMention:
    """One plain-text mention: `source[start:end]` is `text` (offsets in characters, Unicode code points)."""

    start: int
    end: int
    text: str
    snippet: str  # the surrounding words, the mention marked **like this**
    in_table: bool = False  # on a row of a GFM table, where a link's `|` must be written `\|`


def mention_names(title: str, frontmatter: Mapping[str, Any]) -> list[str]:
    """The names a note goes by: its title, then its front matter's `aliases` (a list or one string; Obsidian's older
    `alias` too), trimmed, each once (case-insensitively), at most MAX_NAMES."""
    given: list[Any] = [title]
    for key in ("aliases", "alias"):
        value = frontmatter.get(key)
        given += [value] if isinstance(value, str) else value if isinstance(value, list) else []
    names: dict[str, str] = {}
    for alias in given:
        if isinstance(alias, str) and (name := " ".join(alias.split())) and _has_word(name):
            names.setdefault(name.casefold(), name)
    return list(names.values())[:MAX_NAMES]


def _has_word(name: str) -> bool:
    return any(ch.isalnum() for ch in name)


def _pattern(names: Sequence[str]) -> re.Pattern[str]:
    # Longest first, so "Alpha Project" wins over "Alpha" where both match; whitespace in a name matches any run
    # of spaces or tabs (never a line break: a link cannot span one). Whole words: no word character either side,
    # no `#` before (a tag), no bracket either side (`[Alpha]` would turn into `[[[Alpha]]]`).
    parts = sorted({r"[ \t]+".join(re.escape(word) for word in name.split()) for name in names}, key=len, reverse=True)
    return re.compile(rf"(?<![\w#\[])(?:{'|'.join(parts)})(?![\w\]])", re.IGNORECASE)


def _plain_scan(markdown: str, body_start: int) -> str:
    """`markdown` with everything that is not plain body text masked (same length, so offsets carry over)."""
    scan = mask_markup(markdown, body_start)
    parsed = parse(markdown)
    spans = [(link.start, link.end) for link in parsed.links + parsed.markdown_links]
    spans += [(found.start(), found.end()) for pattern in (_ANY_MARKDOWN_LINK, _BARE_URL)
              for found in pattern.finditer(scan)]
    return mask_spans(scan, spans)


def snippet(source: str, start: int, end: int, chars: int = SNIPPET_CHARS, body_start: int = 0) -> str:
    """About `chars` characters of `source` either side of `source[start:end]` (none before `body_start`: not the
    front matter), whitespace collapsed, in whole words (`context_span`), with `…` where text was left out and the
    mention marked `**like this**`."""
    left, right = context_span(source, start, end, (body_start, len(source)), chars)
    before, text, after = (" ".join(part.split())
                           for part in (source[left:start], source[start:end], source[end:right]))
    if before and source[start - 1].isspace():
        before += " "
    if after and source[end].isspace():
        after = " " + after
    cut_before, cut_after = "…" if left > body_start else "", "…" if right < len(source) else ""
    return f"{cut_before}{before}{MARK_OPEN}{text}{MARK_CLOSE}{after}{cut_after}"


def find_mentions(markdown: str, names: Sequence[str]) -> list[TextMention]:
    """Every plain-text mention of one of `names` in `markdown`, in source order (none when no name has a word)."""
    usable = [name for name in names if _has_word(name)]
    if not usable:
        return []
    span = find_frontmatter(markdown)
    body_start = span.end if span else 0
    scan = _plain_scan(markdown, body_start)
    found: list[TextMention] = []
    for match in _pattern(usable).finditer(scan):
        text = markdown[match.start():match.end()]
        if _NOT_IN_ALIAS.search(text):
            continue
        line_start = markdown.rfind("\n", 0, match.start()) + 1
        found.append(TextMention(match.start(), match.end(), text,
                                 snippet(markdown, match.start(), match.end(), body_start=body_start),
                                 in_table=bool(_TABLE_ROW.match(markdown, line_start))))
    return found


def link_for(mention_text: str, target: str, in_table: bool = False) -> str:
    """The [[wikilink]] that replaces a mention: `[[target]]` where the mention spells the target exactly, else
    `[[target|mention]]`, so the text reads as it did (`[[target\\|mention]]` in a table row, as Obsidian writes it:
    a bare `|` would end the cell)."""
    if mention_text == target:
        return f"[[{target}]]"
    pipe = "\\|" if in_table else "|"
    return f"[[{target}{pipe}{mention_text}]]"
