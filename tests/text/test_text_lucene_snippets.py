"""Lucene query building (user text is never syntax) and snippets with marked words."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.tiers import sized
from vaultgraph.text.lucene import (
    STOP_WORDS,
    escape,
    fallback_keywords,
    fallback_query,
    fulltext_query,
    query_terms,
    tenant_token,
)
from vaultgraph.text.snippets import _matches, _same_word, _stem, make_snippet

pytestmark = pytest.mark.text

pure = settings(database=None, deadline=None, max_examples=sized(100, 300))
# Words that stem alike, case pairs whose casefold changes length (ß, İ), accents, digits and underscores.
SNIPPET_TEXT = st.lists(st.sampled_from([*"aeginostx_ 2.-\n", "ß", "SS", "İ", "é", "É", "\u0301", "ings ", "ation ",
                                          "Index", "Indext "]), max_size=40).map("".join)


def test_terms_are_words_lowercased_and_distinct() -> None:
    words = ["title", "foo", "and", "bar", "or", "baz", "2", "x"]
    assert query_terms('title:(foo AND "bar") OR baz~2 -x* foo') == words


def test_syntax_characters_are_escaped() -> None:
    assert escape('a+b-c&&d||e!f(g)h{i}j[k]l^m"n~o*p?q:r\\s/t') == (
        'a\\+b\\-c\\&\\&d\\|\\|e\\!f\\(g\\)h\\{i\\}j\\[k\\]l\\^m\\"n\\~o\\*p\\?q\\:r\\\\s\\/t'
    )


def test_query_restricts_to_the_tenant_without_scoring_it() -> None:
    query = fulltext_query(["graph", "db"], ["title", "body"], tenant="t-1")
    assert query == '+searchTenant:"tenantt_01_9"^0 +(title:(graph db) body:(graph db))'


TENANT_IDS = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_.-]{0,40}\Z")


@pure
@given(TENANT_IDS, TENANT_IDS)
def test_each_tenant_is_one_word_of_its_own_in_the_index(first: str, second: str) -> None:
    """`searchTenant` must be a single token the English analyzer leaves alone (letters, digits and `_`, nothing
    upper-case, ending in a digit so no stemmer rule applies) and name one tenant only: `team-a` is not `team`."""
    token = tenant_token(first)
    assert re.fullmatch(r"tenant[a-z0-9_]*_9", token)
    assert (tenant_token(first) == tenant_token(second)) == (first == second)
    assert tenant_token("team-a") != tenant_token("team") != tenant_token("Team") != tenant_token("team_a")


def test_no_words_no_query() -> None:
    assert fulltext_query(query_terms("?! ... ::"), ["title"]) is None


def test_fallback_keywords_skip_short_and_common_words_and_split_cjk() -> None:
    assert fallback_keywords(["the", "of", "vector", "db"]) == ["vector"]
    assert fallback_keywords(["用户认证"]) == ["用户", "户认", "认证"]
    assert len(fallback_keywords([f"word{i}" for i in range(10)])) == 5
    assert fallback_keywords(["a" * 256, "b" * 255]) == ["b" * 255]  # longer than any word the index holds


def test_the_fallback_asks_the_index_for_words_containing_each_keyword_within_the_tenant() -> None:
    assert fallback_query(["fluorometh", "인증"], ["searchText"], "t-1") == (
        f'+searchTenant:"{tenant_token("t-1")}"^0 +(searchText:*fluorometh* searchText:*인증*)')
    assert fallback_query([], ["searchText"], "t-1") is None


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


def test_snippet_marks_whole_words_only() -> None:
    snippet = make_snippet("vectorindex _index indexes Index", ["index"])
    assert snippet.text == "vectorindex _index **indexes** **Index**"


def test_snippet_marks_a_word_whose_stem_begins_the_terms() -> None:
    assert make_snippet("An Index, indexed", ["indextab"]).text == "An **Index**, **indexed**"


def test_snippet_marks_words_where_casefolding_changes_the_length() -> None:
    snippet = make_snippet("Die Straße und STRASSE indexing", ["strasse", "index"])
    assert snippet.text == "Die **Straße** und **STRASSE** **indexing**"


def _word_by_word(text: str, terms: list[str]) -> list[tuple[int, int, str]]:
    """The matching rule applied to every word in turn, as snippets did before they looked for terms' prefixes."""
    stems = [(t, _stem(t)) for t in terms if t not in STOP_WORDS]
    found = []
    for match in re.finditer(r"\w+", text):
        word = match.group().casefold()
        term = next((t for t, stem in stems if word == t or _same_word(_stem(word), stem)), None)
        if term is not None:
            found.append((match.start(), match.end(), term))
    return found


@pure
@given(SNIPPET_TEXT, st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=3))
def test_snippet_matches_are_the_rule_applied_word_by_word(text: str, picks: list[int]) -> None:
    words = re.findall(r"\w+", text) or ["absent"]
    terms = query_terms(" ".join(words[pick % len(words)] for pick in picks))
    assert _matches(text, terms) == _word_by_word(text, terms)


def test_a_long_lived_query_s_word_memo_stays_bounded_and_right() -> None:
    from vaultgraph.text.snippets import _Terms

    terms = _Terms(("graph",))
    text = " ".join(f"graph{i}" for i in range(_Terms.MEMO_WORDS + 500))  # every word starts like the term
    matches = terms.word_matches(text)
    assert len(matches) == _Terms.MEMO_WORDS + 500  # each still decided (a longer word with the term's stem)
    assert len(terms.memo) <= _Terms.MEMO_WORDS
    assert terms.word_matches("a graph and graphs") == [(2, 7, "graph"), (12, 18, "graph")]
