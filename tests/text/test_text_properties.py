"""Properties of the parser, the resolvers and slugify, over generated text."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.tiers import sized
from vaultgraph.text.resolve import resolve, resolve_workspace
from vaultgraph.text.slugify import slugify
from vaultgraph.text.wikilinks import parse

pytestmark = pytest.mark.text

# No example database: these tests stay pure and leave no .hypothesis/ folder behind. 100 examples a property in
# make test, 300 in make test-all.
pure = settings(database=None, deadline=None, max_examples=sized(100, 300))

# Markdown-flavoured text hits the grammar far more often than arbitrary unicode.
MARKUP = st.text(alphabet="[]!#|^`~-\\/<>%*.:\n \tabcXYZ19é📷", max_size=120)
ANY_TEXT = st.one_of(st.text(max_size=200), MARKUP)
# Text that can neither close a fence nor a code span, nor open a tag on its own.
CODE_BODY = st.text(alphabet=st.characters(exclude_characters="`~\r"), max_size=80)
WORD = st.text(alphabet=st.sampled_from("abcdefgXYZ0123 _-é"), min_size=1, max_size=12).filter(
    lambda s: s.strip() != ""
)


@pure
@given(ANY_TEXT)
def test_parse_never_raises_and_spans_lie_within_the_input(markdown: str) -> None:
    parsed = parse(markdown)

    ends = 0
    for link in parsed.all_links:
        assert 0 <= link.start < link.end <= len(markdown)
        text = markdown[link.start : link.end]
        assert text.startswith("![[" if link.embed else "[[") and text.endswith("]]")
        assert link.context == " ".join(link.context.split())
    for link in parsed.links:
        assert link.start >= ends, "links come in source order and never overlap"
        ends = link.end
    assert all(tag and not tag.isdigit() for tag in parsed.tags)


@pure
@given(st.text(max_size=60), ANY_TEXT)
def test_parse_never_raises_on_front_matter(front: str, body: str) -> None:
    parse(f"---\n{front}\n---\n{body}")


@pure
@given(CODE_BODY, st.sampled_from(["```", "~~~", "````"]), st.sampled_from(["", "python", " js"]))
def test_nothing_inside_a_fence_counts(body: str, fence: str, info: str) -> None:
    parsed = parse(f"{fence}{info}\n{body}\n{fence}\n")

    assert parsed.links == () and parsed.tags == ()


@pure
@given(CODE_BODY.map(lambda s: s.replace("\n", " ")), st.sampled_from(["`", "``"]))
def test_nothing_inside_a_code_span_counts(body: str, ticks: str) -> None:
    parsed = parse(f"text {ticks}{body}{ticks} text")

    assert parsed.links == () and parsed.tags == ()


# Code span text: no backtick, bracket, pipe or line break, so it closes where it should and the link stays one line.
CODE_TEXT = st.text(alphabet=st.characters(exclude_characters="`[]|\r\n\\"), min_size=1, max_size=20).filter(
    lambda s: s.strip() != ""
)


@pure
@given(WORD, st.none() | WORD, st.lists(st.one_of(WORD, CODE_TEXT.map(lambda s: f"`{s}`")), min_size=1, max_size=4))
def test_code_spans_in_an_alias_belong_to_the_link(target: str, heading: str | None, parts: list[str]) -> None:
    alias = " ".join(parts)
    source = "[[" + target + ("#" + heading if heading else "") + "|" + alias + "]]"

    (link,) = parse(f"before {source} #after").links

    assert (link.target, link.heading, link.alias) == (
        target.strip(), heading.strip() if heading else None, alias.strip()
    )
    assert parse(f"before {source} #after").tags == ("after",)


@pure
@given(WORD, st.none() | WORD, st.sampled_from(["`", "``"]))
def test_code_spans_around_a_link_hide_it(target: str, alias: str | None, ticks: str) -> None:
    source = "[[" + target + ("|" + alias if alias else "") + "]]"

    assert parse(f"text {ticks}{source}{ticks} text").links == ()
    assert parse(f"text {ticks}a {source[:-2]}{ticks}]] text").links == ()


@pure
@given(WORD, st.none() | WORD, st.none() | WORD, st.booleans())
def test_link_parts_round_trip(target: str, heading: str | None, alias: str | None, embed: bool) -> None:
    source = "!" * embed + "[[" + target + ("#" + heading if heading else "") + ("|" + alias if alias else "") + "]]"

    (link,) = parse(f"before {source} after").links

    assert link.target == target.strip()
    assert link.heading == (heading.strip() if heading else None)
    assert link.alias == (alias.strip() if alias else None)
    assert link.embed is embed


@pure
@given(st.text(alphabet=st.sampled_from("abcXYZ0123456789_-/é日"), min_size=1, max_size=15))
def test_a_tag_needs_a_non_digit(name: str) -> None:
    expected = () if name.isdigit() else (name,)

    assert parse(f"start #{name} end").tags == expected


@pure
@given(st.text(max_size=80))
def test_slugify_is_idempotent_and_never_yields_an_empty_segment(title: str) -> None:
    try:
        slug = slugify(title)
    except ValueError:
        assert not any(unicodedata.category(c)[0] in "LNM" for c in unicodedata.normalize("NFKC", title))
        return

    assert slugify(slug) == slug
    assert slug == slug.lower()
    for segment in slug.split("/"):
        assert segment and not segment.startswith("-") and not segment.endswith("-") and "--" not in segment


# Segments neither start nor end with a space: link targets are trimmed, so such a file cannot be named.
PATH = st.lists(
    st.text(alphabet=st.sampled_from("abcABC01 .-"), min_size=1, max_size=6).filter(
        lambda s: s == s.strip() and s.strip(".") != ""
    ),
    min_size=1,
    max_size=3,
).map("/".join)


@pure
@given(st.lists(PATH, max_size=8), PATH, PATH)
def test_resolvers_only_answer_with_a_path_they_were_given(vault: list[str], target: str, source: str) -> None:
    for answer in (resolve(target, source, vault), resolve_workspace(target, vault)):
        assert answer is None or answer in vault


@pure
@given(st.lists(PATH.map(lambda p: p + ".md"), min_size=1, max_size=8, unique_by=str.casefold), st.data())
def test_a_vault_path_resolves_to_itself(vault: list[str], data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(vault))
    source = data.draw(PATH)

    assert resolve(path, source, vault) == path
    assert resolve_workspace(path, vault) == path
