"""Pure parts of the pipeline: prompts and their answer validation, the extractive summary, the taxonomy."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgraph.services.taxonomy import DEFAULT_TAXONOMY, FALLBACK, load_taxonomy, parse_taxonomy
from vaultgraph.workers.extractive import extractive_summary
from vaultgraph.workers.prepare import looks_binary
from vaultgraph.workers.prompts import (
    SKIP,
    InvalidAnswer,
    LinkCandidate,
    SummaryInput,
    classify_prompt,
    parse_link_choices,
    parse_summaries,
    parse_topics,
    summarize_prompt,
    topics_prompt,
)

pytestmark = pytest.mark.workers


def test_the_summary_prompt_numbers_documents_and_cuts_long_ones() -> None:
    docs = [SummaryInput("A", "a.md", "x" * 10_000), SummaryInput("B", "b.md", "short")]
    system, user = summarize_prompt(docs, DEFAULT_TAXONOMY.choosable())
    assert '[{"idx": 1, "summary": "...", "category": "..."}]' in system
    assert "Technology" in system and "Others" in system
    assert "### Document 1\nTitle: A" in user and "### Document 2\nTitle: B" in user
    assert user.count("x") == 3000


def test_summary_answers_are_validated_and_normalised() -> None:
    answer = [{"idx": 2, "summary": "  Two\n lines. "}, {"idx": 1, "summary": "One."}, {"idx": 9, "summary": "?"},
              {"idx": 1, "summary": "Duplicate."}]
    found = parse_summaries(answer, 2)
    assert {i: s.summary for i, s in found.items()} == {1: "One.", 2: "Two lines."}
    assert parse_summaries({"summaries": [{"idx": 1, "summary": "Wrapped."}]}, 1)[1].summary == "Wrapped."
    for bad in ({"idx": 1}, [{"idx": "one", "summary": "x"}], [{"idx": 1, "summary": ""}], "text"):
        with pytest.raises(InvalidAnswer):
            parse_summaries(bad, 1)


def test_link_choices_keep_known_types_and_turn_the_rest_into_skip() -> None:
    _, user = classify_prompt(SummaryInput("S", "s.md", ""), "about s",
                              [LinkCandidate("T", "t.md", None, 0.91)])
    assert "similarity 0.91" in user and "Summary: (none)" in user
    choices = parse_link_choices([{"idx": 1, "type": "depends on"}, {"idx": 2, "type": "FRIENDS_WITH"},
                                  {"idx": 3, "type": "skip"}], 3)
    assert choices == {1: "DEPENDS_ON", 2: SKIP, 3: SKIP}


def test_the_extractive_summary_takes_whole_sentences_of_prose() -> None:
    text = ("---\ntitle: x\n---\n# Heading\n\n```\ncode()\n```\nFirst **sentence** about [[Target|the target]]. "
            + "Second sentence. " * 40)
    summary = extractive_summary(text)
    assert summary.startswith("First sentence about the target. Second sentence.")
    assert len(summary) <= 400 and summary.endswith(".")
    assert extractive_summary("one " * 200).endswith("…")
    assert extractive_summary("# Only a heading") == ""


def test_binary_sniffing() -> None:
    assert looks_binary(b"PK\x03\x04") and not looks_binary("ünïcode\ttext\r\n".encode())


def test_a_tenant_taxonomy_file_replaces_the_defaults_and_keeps_the_fallback(tmp_path: Path) -> None:
    assert load_taxonomy(tmp_path) is DEFAULT_TAXONOMY
    (tmp_path / ".taxonomy.md").write_text(
        "---\nkind: knowledge_taxonomy\ncategories:\n  - id: InternalOps\n    description: Runbooks.\n"
        "  - id: 'bad id'\n  - id: CustomerSuccess\n---\nnotes\n")
    taxonomy = load_taxonomy(tmp_path)
    assert taxonomy.ids == ["InternalOps", "CustomerSuccess", FALLBACK]
    assert taxonomy.pick("customersuccess") == "CustomerSuccess"
    assert taxonomy.pick("Technology") == FALLBACK
    (tmp_path / ".taxonomy.md").write_text("---\ncategories: [\n---\n")
    assert load_taxonomy(tmp_path) is DEFAULT_TAXONOMY  # a broken file is logged, not fatal
    with pytest.raises(ValueError, match="categories"):
        parse_taxonomy("no front matter")


def test_the_topics_prompt_numbers_the_lines_from_one() -> None:
    system, user = topics_prompt("Guide", ["intro", "# Setup", "steps"])
    assert '"line": 3' in system and "JSON array" in system
    assert user == "TOPICS OF\nTitle: Guide\n\n1| intro\n2| # Setup\n3| steps"


def test_topic_starts_are_validated_ordered_and_deduplicated() -> None:
    starts = parse_topics({"topics": [{"line": 4, "name": " Usage  now ", "labels": [" run ", ""]},
                                      {"line": 2, "name": "Setup", "depth": 2}, {"line": 4, "name": "again"},
                                      {"line": 9, "name": "past the end"}]}, 5)
    assert [(s.line, s.name, s.depth, s.labels) for s in starts] == [(2, "Setup", 2, []), (4, "Usage now", 1, ["run"])]


@pytest.mark.parametrize("answer", [[{"idx": 1, "summary": "x"}], [{"line": 0, "name": "x"}],
                                    [{"line": 1, "name": "x", "depth": 9}], [], [{"line": 7, "name": "x"}], "text"])
def test_a_topics_answer_of_the_wrong_shape_or_with_no_usable_start_is_invalid(answer: object) -> None:
    with pytest.raises(InvalidAnswer):
        parse_topics(answer, 5)
