"""Topics of a text: by its heading tree (paths, depths, parents), short sections merged, long ones cut by length,
text without headings cut by length, front matter and fenced code respected."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultgraph.text.chunking import chunk_text
from vaultgraph.text.topics import (
    TOPIC_MAX_CHARS,
    TOPIC_MIN_CHARS,
    Section,
    Start,
    body_lines,
    from_starts,
    number,
    passage_key,
    split_topics,
)

pytestmark = pytest.mark.text

LONG = "Words that make a section long enough to stand as its own topic, not merged into the one before. " * 2


def test_headings_give_names_paths_depths_and_parents() -> None:
    text = f"Opening words of the report. {LONG}\n# Performance\n{LONG}\n## Caching\n{LONG}\n# Costs\n{LONG}"
    topics = split_topics(text, "Q1 Report")
    assert [t.name for t in topics] == ["Q1 Report", "Performance", "Caching", "Costs"]
    assert [t.position for t in topics] == [0, 1, 2, 3]
    assert [t.depth for t in topics] == [0, 1, 2, 1]
    assert [t.parent for t in topics] == [None, 0, 1, 0]
    assert topics[2].path == ("Q1 Report", "Performance", "Caching")
    assert topics[1].content == LONG.strip()  # the heading line is the name, not content


def test_no_text_before_the_first_heading_means_no_root_topic() -> None:
    topics = split_topics(f"# A\n{LONG}\n# B\n{LONG}", "Doc")
    assert [(t.name, t.parent) for t in topics] == [("A", None), ("B", None)]


def test_short_section_joins_its_parent_or_sibling_with_its_heading_kept() -> None:
    text = f"# Setup\n{LONG}\n## Linux\nRun make.\n## Windows\n{LONG}"
    topics = split_topics(text, "Guide")
    assert [t.name for t in topics] == ["Setup", "Windows"]
    assert topics[0].content.endswith("## Linux\n\nRun make.")


def test_short_section_after_a_deeper_one_stays_its_own() -> None:
    text = f"# A\n## A1\n{LONG}\n# B\nshort"
    assert [t.name for t in split_topics(text, "Doc")] == ["A1", "B"]


def test_heading_without_text_is_no_topic_but_stays_in_paths() -> None:
    [topic] = split_topics(f"# Guide\n## Install\n{LONG}", "Doc")
    assert topic.name == "Install" and topic.path == ("Doc", "Guide", "Install") and topic.depth == 2


def test_long_section_is_cut_by_length_into_named_parts() -> None:
    text = "# Big\n" + "A sentence of the long section. " * 400
    topics = split_topics(text, "Doc")
    assert len(topics) == 4
    assert [t.name for t in topics] == ["Big (1/4)", "Big (2/4)", "Big (3/4)", "Big (4/4)"]
    assert all(len(t.content) <= TOPIC_MAX_CHARS for t in topics)
    assert all(t.content.endswith(".") for t in topics)  # cut at a sentence end


def test_text_without_headings_is_cut_by_length_and_named_after_the_document() -> None:
    assert [t.name for t in split_topics("One short paragraph.", "Notes")] == ["Notes"]
    topics = split_topics("Plain words go on and on. " * 400, "Notes")
    assert [t.name for t in topics][:2] == ["Notes (1/3)", "Notes (2/3)"] and len(topics) == 3
    assert all(t.depth == 0 and t.parent is None for t in topics)


def test_front_matter_and_code_are_not_topics_or_headings() -> None:
    text = f"---\ntitle: x\n---\n# Real\n{LONG}\n```\n# not a heading\n```\n"
    [topic] = split_topics(text, "Doc")
    assert topic.name == "Real" and "# not a heading" in topic.content and "title: x" not in topic.content


def test_labels_are_the_tags_outside_code() -> None:
    [topic] = split_topics(f"# Perf\n{LONG} #performance #Latency #performance\n`#code` #latency", "Doc")
    assert topic.labels == ("performance", "Latency")


def test_blank_text_has_no_topics() -> None:
    assert split_topics(" \n\n", "Doc") == [] and split_topics("---\na: 1\n---\n", "Doc") == []


def test_number_turns_named_sections_into_topics() -> None:
    topics = number("Doc", [Section((), "intro"), Section(("Part",), "body #x", ("given",)),
                            Section(("Part", "Sub"), "deeper #x"), Section(("Gone",), "  ")])
    assert [(t.name, t.depth, t.parent) for t in topics] == [("Doc", 0, None), ("Part", 1, 0), ("Sub", 2, 1)]
    assert [t.labels for t in topics] == [(), ("given",), ("x",)]  # given labels win over the #tags


def test_topics_from_starts_run_to_the_next_start_and_nest_by_depth() -> None:
    lines = body_lines("---\na: 1\n---\nintro\nstill intro\nSetup here\nstep one\nLinux bits\nUsage now\nrun it")
    assert lines[0] == "intro"
    starts = [Start(3, "Setup", 1, ("setup",)), Start(5, "Linux", 2), Start(6, "Usage", 1)]
    topics = from_starts(lines, starts, "Guide")
    assert [(t.name, t.depth, t.parent, t.content) for t in topics] == [
        ("Guide", 0, None, "intro\nstill intro"), ("Setup", 1, 0, "Setup here\nstep one"),
        ("Linux", 2, 1, "Linux bits"), ("Usage", 1, 0, "Usage now\nrun it")]
    assert topics[2].path == ("Guide", "Setup", "Linux") and topics[1].labels == ("setup",)
    assert [t.name for t in from_starts(lines, [], "Guide")] == ["Guide"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["# A", "## B", "### C", "", "```", "#tag"]), st.text(max_size=300)),
                max_size=40))
def test_topics_cover_the_text_in_order_and_stay_bounded(lines: list[str]) -> None:
    text = "\n".join(lines)
    topics = split_topics(text, "Doc")
    assert [t.position for t in topics] == list(range(len(topics)))
    for topic in topics:
        assert topic.content and topic.content == topic.content.strip()
        assert len(topic.content) <= TOPIC_MAX_CHARS
        assert topic.parent is None or topics[topic.parent].depth < topic.depth
        assert topic.path[0] == "Doc" and len(topic.path) == topic.depth + 1
    assert TOPIC_MIN_CHARS < TOPIC_MAX_CHARS


def test_a_topic_and_the_chunk_of_the_same_section_share_a_passage_key() -> None:
    text = f"# Guide\n\n{LONG * 2}\n\n## Setup\n\n{LONG * 2}\n"  # each past the packing of small chunks
    setup = next(t for t in split_topics(text, "Doc") if t.name == "Setup")
    chunk = next(c for c in chunk_text(text) if c.heading == "Guide > Setup")
    assert passage_key("Guide > Setup", setup.content) == passage_key(chunk.heading, chunk.text)
    assert passage_key("Guide > Setup", setup.content + " more") != passage_key(chunk.heading, chunk.text)
    assert passage_key(None, "# Title\nbody") == (None, "# Title body")  # no heading path: the line is text
