"""Inline ``#tag`` grammar, as Obsidian indexes it.

A tag is ``#`` followed by letters, digits, ``_``, ``-``, ``/`` and non-ASCII symbols (emoji), with at least one
character that is not a digit: ``#y1984``, ``#1-2``, ``#inbox/to-read``, ``#📷`` are tags; ``#1984``, ``# Heading``
and ``#$x`` are not. The ``#`` must start the line or follow whitespace or an opening bracket, quote or emphasis
mark: ``tag#word``, ``tag.#x``, ``tag-#x`` and ``https://x/#frag`` hold no tag. A tag ends at the first other
character, so ``#care-about.`` is ``care-about`` and ``#FFF23456;`` is ``FFF23456``. Case is kept.
"""

from __future__ import annotations

import unicodedata

# Characters after which "#" may open a tag, besides whitespace and the start of the text.
_OPENERS = frozenset("([{\"'*_~")
_ZERO_WIDTH_JOINER = "\u200d"  # holds multi-codepoint emoji such as 👩‍💻 together


def is_tag_char(char: str) -> bool:
    """Whether ``char`` may appear in a tag name."""
    if char.isascii():
        return char.isalnum() or char in "-_/"
    return char == _ZERO_WIDTH_JOINER or unicodedata.category(char)[0] in "LNMS"


def is_tag(name: str) -> bool:
    """Whether ``name`` (without ``#``) is a whole valid tag."""
    return bool(name) and all(map(is_tag_char, name)) and not all(char.isdigit() for char in name)


def find_tags(scan: str) -> list[tuple[str, int, int]]:
    """Every inline tag in ``scan`` as ``(name, start, end)``; ``start`` is the offset of the ``#``."""
    found: list[tuple[str, int, int]] = []
    hash_at = scan.find("#")
    while hash_at != -1:
        end = hash_at + 1
        if hash_at == 0 or scan[hash_at - 1].isspace() or scan[hash_at - 1] in _OPENERS:
            while end < len(scan) and is_tag_char(scan[end]):
                end += 1
            name = scan[hash_at + 1 : end]
            if is_tag(name):
                found.append((name, hash_at, end))
        hash_at = scan.find("#", end)
    return found
