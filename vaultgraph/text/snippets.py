"""Snippets for search hits: the stretch of text with the most query words, those words marked `**like this**`.

Matching is forgiving the way an English analyzer is: case-insensitive, and words match when they are one after a
light suffix strip (so `authenticate` marks `authentication`, `tokens` marks `token`). CJK terms match as
substrings.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from vaultgraph.text.lucene import STOP_WORDS

DEFAULT_WIDTH = 240
MARK_OPEN = "**"
MARK_CLOSE = "**"
_STEM_MIN = 5
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    matched: tuple[str, ...]  # the query terms found in the snippet, in query order


_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "er", "ies", "es", "ed", "ly", "s", "e")


@functools.lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    """A light suffix strip: enough to see `authenticate` and `authentication` as one word, never a dictionary."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _STEM_MIN - 1:
            return word[: -len(suffix)]
    return word


def _same_word(word_stem: str, term_stem: str) -> bool:
    if word_stem == term_stem:
        return True
    shorter, longer = (word_stem, term_stem) if len(word_stem) <= len(term_stem) else (term_stem, word_stem)
    return len(shorter) >= _STEM_MIN and longer.startswith(shorter)


class _Terms:
    """A query's terms, and which of them a word of a text is. Deep searches cut a snippet from each of 100 texts:
    deciding every word of each (a regex match, casefold, stem and comparisons per word) was most of their time
    (bench/README.md, search at depth). So only the words that may match are looked at, and each distinct word is
    decided once for all the texts of the query."""

    # Only words that start like a term are decided, so a query meets a few hundred; the bound keeps the 64 cached
    # queries (`_terms`) to a few MB however long they live (50,000 allowed a few hundred MB in the worst case).
    MEMO_WORDS = 4_096

    def __init__(self, terms: tuple[str, ...]) -> None:
        self.stems = [(t, _stem(t)) for t in terms if not _CJK.search(t) and t not in STOP_WORDS]
        self.cjk = [t for t in terms if _CJK.search(t)]
        # A word matching a term starts, casefolded, with the first _STEM_MIN letters of the term's stem (equal
        # stems, or one a prefix of the other at _STEM_MIN letters or more; a term starts with its stem).
        self.prefixes = sorted({stem[:_STEM_MIN] for _, stem in self.stems})
        self.memo: dict[str, str | None] = {}

    def term_of(self, word: str) -> str | None:
        """The term a word (as written) matches, if any."""
        memo = self.memo
        if word in memo:
            return memo[word]
        folded = word.casefold()
        word_stem = _stem(folded)
        term = next((t for t, stem in self.stems if folded == t or _same_word(word_stem, stem)), None)
        if len(memo) >= self.MEMO_WORDS:
            memo = self.memo = {}  # replaced, never emptied under another caller
        memo[word] = term
        return term

    def _words(self, text: str) -> Iterator[re.Match[str]]:
        """The words of `text` (as `_WORD` finds them) that may match a term: those where the casefolded text
        holds a term's prefix at a word's start. When casefolding changes the text's length (ß → ss), its offsets
        no longer line up with the text's: then every word."""
        folded = text.casefold()
        if len(folded) != len(text):
            yield from _WORD.finditer(text)
            return
        for prefix in self.prefixes:
            start = folded.find(prefix)
            while start != -1:
                if start == 0 or not _WORD.match(text, start - 1, start):
                    word = _WORD.match(text, start)
                    if word is not None:
                        yield word
                start = folded.find(prefix, start + 1)

    def word_matches(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, term) of each word of `text` that matches a term, in text order."""
        if not self.stems:
            return []
        found: dict[int, tuple[int, int, str]] = {}  # by start: two prefixes may find the same word
        for word in self._words(text):
            term = self.term_of(word.group())
            if term is not None:
                found[word.start()] = (word.start(), word.end(), term)
        return sorted(found.values())


@functools.lru_cache(maxsize=64)
def _terms(terms: tuple[str, ...]) -> _Terms:
    return _Terms(terms)


def _matches(text: str, terms: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, term) of each match, in text order, non-overlapping."""
    matcher = _terms(tuple(terms))
    found = matcher.word_matches(text)
    if matcher.cjk:
        folded = text.casefold()
        for term in matcher.cjk:
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
    text = " ".join(text.split())  # runs of white space as one space (str.split's white space is \s's)
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
