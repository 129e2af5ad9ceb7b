"""Unlinked mentions in a body: plain text only, whole words, case-insensitive; never in code, links or tags."""

from __future__ import annotations

import pytest

from vaultgraph.text.lucene import phrase_query
from vaultgraph.text.mentions import find_mentions, link_for, mention_names
from vaultgraph.text.wikilinks import parse

pytestmark = pytest.mark.text

BODY = """---
aliases: [AP]
about: alpha in the front matter
---
# Notes
We met about alpha today. See [[Alpha]], [[Other|alpha]], ![[Alpha]] and `alpha` code.
[Alpha](alpha.md) and [Alpha](https://x.org/alpha) and #alpha and https://alpha.example/x and [alpha].
```
alpha in a fence
```
<!-- alpha in a comment --> <span title="alpha">x</span>
Alphabet, alphas and alpha_beta are other words; ALPHA. Also alpha-ish and the ap.
"""


def texts(body: str, names: list[str]) -> list[str]:
    return [mention.text for mention in find_mentions(body, names)]


def test_only_plain_whole_words_count() -> None:
    assert texts(BODY, ["Alpha", "AP"]) == ["alpha", "ALPHA", "alpha", "ap"]


def test_offsets_are_the_sources_and_the_snippet_marks_the_mention() -> None:
    [first, *_] = find_mentions(BODY, ["Alpha"])
    assert BODY[first.start:first.end] == "alpha"
    assert first.snippet == "# Notes We met about **alpha** today. See [[Alpha]], [[Other|alpha]], ![[Alpha]] and…"


def test_a_longer_name_wins_and_spaces_may_differ() -> None:
    body = "The alpha  project started; alpha alone.\nAlpha\nproject is two lines."
    assert texts(body, ["Alpha", "Alpha Project"]) == ["alpha  project", "alpha", "Alpha"]


def test_names_are_the_title_and_aliases_once() -> None:
    assert mention_names("Alpha", {"aliases": ["AP", "alpha", 3, " Big  Cat "], "alias": "old"}) == [
        "Alpha", "AP", "Big Cat", "old"]
    assert mention_names("C++", {"aliases": "!!"}) == ["C++"]
    assert texts("I write C++ daily", ["!!"]) == []


def test_the_link_keeps_the_text_as_it_read() -> None:
    assert link_for("Alpha", "Alpha") == "[[Alpha]]"
    assert link_for("alpha", "Alpha") == "[[Alpha|alpha]]"


def test_a_mention_in_a_table_row_links_with_an_escaped_pipe_the_parser_reads() -> None:
    body = "| Step | Owner |\n| --- | --- |\n| alpha | Ann |\n\nalpha outside.\n"
    inside, outside = find_mentions(body, ["Alpha"])
    assert (inside.in_table, outside.in_table) == (True, False)
    linked = body[:inside.start] + link_for(inside.text, "Alpha", inside.in_table) + body[inside.end:]
    assert "| [[Alpha\\|alpha]] | Ann |" in linked
    [link] = parse(linked).links
    assert (link.target, link.alias) == ("Alpha", "alpha")


def test_phrases_reach_lucene_as_escaped_phrases_of_the_tenant() -> None:
    assert phrase_query(['Node.js "x"', "  a   b ", "!!"], "body", "t-1") == (
        '+searchTenant:"tenantt_01_9"^0 +(body:"Node.js \\"x\\"" body:"a b")')
    assert phrase_query(["!!"], "body", "t") is None
