"""Lucene query building (user text is never syntax) and snippets with marked words."""

from __future__ import annotations

import pytest

from vaultgraph.text.lucene import escape, fallback_keywords, fulltext_query, query_terms
from vaultgraph.text.snippets import make_snippet

pytestmark = pytest.mark.text


def test_terms_are_words_lowercased_and_distinct() -> None:
    words = ["title", "foo", "and", "bar", "or", "baz", "2", "x"]
    assert query_terms('title:(foo AND "bar") OR baz~2 -x* foo') == words


def test_syntax_characters_are_escaped() -> None:
    assert escape('a+b-c&&d||e!f(g)h{i}j[k]l^m"n~o*p?q:r\\s/t') == (
        'a\\+b\\-c\\&\\&d\\|\\|e\\!f\\(g\\)h\\{i\\}j\\[k\\]l\\^m\\"n\\~o\\*p\\?q\\:r\\\\s\\/t'
    )


def test_query_restricts_to_the_tenant_without_scoring_it() -> None:
    query = fulltext_query(["graph", "db"], ["title", "body"], tenant="t-1")
    assert query == '+tenantId:"t\\-1"^0 +(title:(graph db) body:(graph db))'


def test_no_words_no_query() -> None:
    assert fulltext_query(query_terms("?! ... ::"), ["title"]) is None


def test_fallback_keywords_skip_short_and_common_words_and_split_cjk() -> None:
    assert fallback_keywords(["the", "of", "vector", "db"]) == ["vector"]
    assert fallback_keywords(["用户认证"]) == ["用户", "户认", "认证"]
    assert len(fallback_keywords([f"word{i}" for i in range(10)])) == 5


def test_snippet_marks_matched_words_and_stems() -> None:
    snippet = make_snippet("We authenticate users. Authentication uses tokens.", ["authentication", "token"])
    assert snippet.text == "We **authenticate** users. **Authentication** uses **tokens**."
    assert snippet.matched == ("authentication", "token")


def test_snippet_centres_on_the_densest_matches() -> None:
    text = "filler " * 100 + "the neo4j vector index is here " + "filler " * 100
    snippet = make_snippet(text, ["vector", "index"], width=80)
    assert "**vector** **index**" in snippet.text
    assert snippet.text.startswith("…") and snippet.text.endswith("…") and len(snippet.text) < 100


def test_snippet_without_matches_is_the_start() -> None:
    snippet = make_snippet("First words here. " * 30, ["absent"], width=50)
    assert snippet.text.startswith("First words here.") and snippet.matched == ()


def test_snippet_marks_cjk_substrings() -> None:
    assert make_snippet("系统支持用户认证流程", ["认证"]).text == "系统支持用户**认证**流程"
