"""The summary when no chat model is configured: the document's first sentences of prose, cleaned of markup."""

from __future__ import annotations

import re

EXTRACTIVE_MAX_CHARS = 400
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.DOTALL | re.MULTILINE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.MULTILINE)  # the title says it already
_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"[*_`>|]+|^\s*[-+]\s+|^\s*\d+\.\s+", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


def _plain(text: str) -> str:
    text = _FRONT_MATTER.sub("", text.replace("\r\n", "\n"))
    text = _FENCE.sub(" ", text)
    text = _HEADING.sub("", text)
    text = _WIKILINK.sub(lambda m: m.group(2) or m.group(1), text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _MARKUP.sub(" ", text)
    return " ".join(text.split())


def extractive_summary(text: str, max_chars: int = EXTRACTIVE_MAX_CHARS) -> str:
    """Whole sentences from the start of the prose, up to `max_chars`; a cut first sentence ends with '…'."""
    plain = _plain(text)
    if len(plain) <= max_chars:
        return plain
    summary = ""
    for sentence in _SENTENCE_END.split(plain):
        candidate = f"{summary} {sentence}".strip()
        if len(candidate) > max_chars:
            break
        summary = candidate
    if summary:
        return summary
    cut = plain[:max_chars].rsplit(" ", 1)[0] or plain[:max_chars]
    return cut + "…"
