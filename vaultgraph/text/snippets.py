"""Snippets for search hits: the stretch of text with the most query words, those words marked `**like this**`.

Matching is forgiving the way an English analyzer is: case-insensitive, and words match when they are one after a
light suffix strip (so `authenticate` marks `authentication`, `tokens` marks `token`). CJK terms match as
substrings.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from vaultgraph.text.lucene import STOP_WORDS

DEFAULT_WIDTH = 240
MARK_OPEN = "**"
MARK_CLOSE = "**"
_STEM_MIN = 5
_WORD = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    matched: tuple[str, ...]  # the query terms found in the snippet, in query order


_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "er", "ies", "es", "ed", "ly", "s", "e")


def _stem(word: str) -> str:
    """A light suffix strip: enough to see `authenticate` and `authentication` as one word, never a dictionary."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _STEM_MIN - 1:
            return word[: -len(suffix)]
    return word


def _same_word(word_stem: str, term_stem: str) -> bool:
    if word_stem == term_stem:
        return True
    shorter, longer = sorted((word_stem, term_stem), key=len)
    return len(shorter) >= _STEM_MIN and longer.startswith(shorter)


def _matches(text: str, terms: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, term) of each match, in text order, non-overlapping."""
    found: list[tuple[int, int, str]] = []
    stems = [(t, _stem(t)) for t in terms if not _CJK.search(t) and t not in STOP_WORDS]
    memo: dict[str, str | None] = {}  # a text repeats its words: decide each distinct word once
    for match in _WORD.finditer(text):
        word = match.group().casefold()
        if word not in memo:
            word_stem = _stem(word)
            memo[word] = next((t for t, stem in stems if word == t or _same_word(word_stem, stem)), None)
        term = memo[word]
        if term is not None:
            found.append((match.start(), match.end(), term))
    folded = text.casefold()
    for term in (t for t in terms if _CJK.search(t)):
        for match in re.finditer(re.escape(term), folded):
            found.append((match.start(), match.end(), term))
    found.sort()
    result: list[tuple[int, int, str]] = []
    for start, end, term in found:
        if not result or start >= result[-1][1]:
            result.append((start, end, term))
    return result


def _densest(matches: list[tuple[int, int, str]], width: int) -> int:
    """Where a `width`-wide window (opening a quarter width before a match) holds the most distinct terms."""
    starts = [start for start, _, _ in matches]
    best, best_start = -1, 0
    for anchor in starts:
        window_start = max(0, anchor - width // 4)
        inside = matches[bisect_left(starts, window_start) : bisect_right(starts, window_start + width)]
        distinct = len({term for _, end, term in inside if end <= window_start + width})
        if distinct > best:
            best, best_start = distinct, window_start
    return best_start


def make_snippet(text: str, terms: Sequence[str], width: int = DEFAULT_WIDTH) -> Snippet:
    """About `width` characters of `text` around the densest cluster of matches (the start when none match)."""
    text = _SPACE.sub(" ", text).strip()
    matches = _matches(text, terms)
    start = _densest(matches, width) if matches else 0
    end = min(len(text), start + width)
    if start > 0:
        space = text.find(" ", start, end)
        start = space + 1 if space != -1 else start
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    shown = [(s, e, t) for s, e, t in matches if s >= start and e <= end]
    parts: list[str] = ["…" if start > 0 else ""]
    cursor = start
    for s, e, _ in shown:
        parts.append(text[cursor:s])
        parts.append(f"{MARK_OPEN}{text[s:e]}{MARK_CLOSE}")
        cursor = e
    parts.append(text[cursor:end])
    parts.append("…" if end < len(text) else "")
    matched = tuple(t for t in dict.fromkeys(term for term in terms) if any(m[2] == t for m in shown))
    return Snippet("".join(parts), matched)
