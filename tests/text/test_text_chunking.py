"""Chunking long bodies: on headings, bounded, overlapping inside long sections, code fences respected."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultgraph.text.chunking import ChunkingPolicy, chunk_text, split_sections

pytestmark = pytest.mark.text

POLICY = ChunkingPolicy(max_chars=300, overlap_chars=60, min_chars=80)


def test_short_text_is_one_chunk() -> None:
    [chunk] = chunk_text("# Title\nA short note.", POLICY)
    assert chunk.text == "# Title\nA short note." and chunk.heading == "Title" and chunk.ordinal == 0


def test_blank_text_has_no_chunks() -> None:
    assert chunk_text(" \n\n ", POLICY) == []


def test_sections_split_on_headings_with_their_path() -> None:
    text = "# Guide\n" + "intro words. " * 10 + "\n## Setup\n" + "setup words. " * 20 + "\n## Use\n" + "use. " * 40
    chunks = chunk_text(text, POLICY)
    assert [c.heading for c in chunks] == ["Guide", "Guide > Setup", "Guide > Use"]
    assert chunks[1].text.startswith("## Setup")


def test_headings_inside_code_fences_do_not_split() -> None:
    text = "# Real\ntext\n```\n# not a heading\n```\nmore"
    assert [heading for heading, _, _ in split_sections(text)] == ["Real"]


def test_front_matter_is_left_out() -> None:
    [chunk] = chunk_text("---\ntitle: x\n---\nBody text.", POLICY)
    assert chunk.text == "Body text."


def test_long_section_becomes_overlapping_windows_at_sentence_ends() -> None:
    text = "## Long\n" + " ".join(f"Sentence number {i} ends here." for i in range(60))
    chunks = chunk_text(text, POLICY)
    assert len(chunks) > 3
    for first, second in zip(chunks, chunks[1:], strict=False):
        assert first.end > second.start, "neighbouring windows overlap"
        assert first.text.endswith("."), "a window ends at a sentence end when one is near"
    assert all(c.heading == "Long" for c in chunks)


def test_small_sections_are_packed_together() -> None:
    text = "# A\none.\n# B\ntwo.\n# C\nthree."
    [chunk] = chunk_text(text, POLICY)
    assert chunk.text == text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "bb", " ", "#", "\n", ". ", "`", "\n## H\n", "```\n", "word " * 30]),
                max_size=300).map("".join))
def test_chunks_are_bounded_ordered_and_cover_the_text(text: str) -> None:
    chunks = chunk_text(text, POLICY)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert 0 < len(chunk.text) <= POLICY.max_chars
        assert text[chunk.start : chunk.end] == chunk.text
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.start, chunk.end))
    assert all(i in covered for i, char in enumerate(text) if not char.isspace())


def test_policy_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        ChunkingPolicy(max_chars=50)
    with pytest.raises(ValueError):
        ChunkingPolicy(max_chars=200, overlap_chars=150)
