"""Note slugs: the stable, URL-safe key a ``[[Title]]`` maps to.

``slugify("Octipus Architecture")`` is ``octipus-architecture``; ``daily/2026-06-09`` stays a path. The slug is
NFKC-normalised and lowercased; each ``/``-separated segment keeps its runs of Unicode letters, digits and
combining marks (so ``Über Straße`` gives ``über-straße`` and ``東京 メモ`` gives ``東京-メモ``) joined by ``-``;
everything else, whitespace, punctuation and symbols alike, only separates. Empty segments are dropped, so
slashes collapse and never lead or trail. ``slugify`` is idempotent.
"""

from __future__ import annotations

import re
import unicodedata

# Lowercasing can leave text that NFKC changes again (and back): "ǅ" → "ǆ" → "dž". A few rounds settle it.
_MAX_ROUNDS = 8
# In ASCII the word characters (categories L, N, M) are exactly these, NFKC changes nothing and one round is a
# fixed point: most titles and link targets take this path, at a fraction of the cost (a vault import slugs each
# note and each of its links).
_ASCII_WORD = re.compile(r"[a-z0-9]+")


def _is_word_char(char: str) -> bool:
    # Marks (M*) belong with letters: Devanagari vowel signs and viramas are marks, and a word without them breaks.
    return unicodedata.category(char)[0] in "LNM"


def _normalize(text: str) -> str:
    for _ in range(_MAX_ROUNDS):
        settled = unicodedata.normalize("NFKC", text).lower()
        if settled == text:
            break
        text = settled
    return text


def _segment(part: str) -> str:
    words: list[str] = []
    current: list[str] = []
    for char in part:
        if _is_word_char(char):
            current.append(char)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return "-".join(words)


def _slug_once(text: str) -> str:
    segments = (_segment(part) for part in _normalize(text).split("/"))
    return "/".join(segment for segment in segments if segment)


def slugify(title: str) -> str:
    """The slug of ``title``: lowercase, ``-`` between words, ``/`` between folders, never an empty segment.

    Raises ValueError when ``title`` holds no letter or digit (``""``, ``"!!!"``, ``"📷"``).
    """
    if title.isascii():
        parts = ("-".join(_ASCII_WORD.findall(part)) for part in title.lower().split("/"))
        slug = "/".join(part for part in parts if part)
        if not slug:
            raise ValueError(f"cannot make a slug from title {title!r}: it holds no letter or digit")
        return slug
    slug = _slug_once(title)
    for _ in range(_MAX_ROUNDS):
        # Normalising can join what splitting left apart; slugs are keys, so insist on a fixed point.
        again = _slug_once(slug)
        if again == slug:
            break
        slug = again
    if not slug:
        raise ValueError(f"cannot make a slug from title {title!r}: it holds no letter or digit")
    return slug
