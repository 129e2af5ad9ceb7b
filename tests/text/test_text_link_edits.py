"""Rewriting link targets (what a rename does to linking notes) and setting front-matter properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultgraph.text.link_edits import retarget_links
from vaultgraph.text.properties import PropertiesError, set_properties
from vaultgraph.text.wikilinks import WikiLink, parse

pytestmark = pytest.mark.text

pure = settings(database=None, deadline=None, max_examples=300)
MARKUP = st.text(alphabet="[]!#|^`~-\\/<>%*.:()\n \tabcOldNme", max_size=120)


def _old_to_new(link: WikiLink) -> str | None:
    return "New Name" if link.target.casefold() == "old name" else None


@pytest.mark.parametrize(("before", "after"), [
    ("[[Old Name]]", "[[New Name]]"),
    ("[[old name]]", "[[New Name]]"),
    ("[[Old Name#Heading|alias]]", "[[New Name#Heading|alias]]"),
    ("![[Old Name#^block]]", "![[New Name#^block]]"),
    ("[[ Old Name.md |x]]", "[[ New Name.md |x]]"),
    ("| [[Old Name\\|alias]] |", "| [[New Name\\|alias]] |"),
    ("[x](Old%20Name.md#part)", "[x](New%20Name.md#part)"),
    ('---\nup: "[[Old Name]]"\n---\nbody', '---\nup: "[[New Name]]"\n---\nbody'),
    ("`[[Old Name]]` and \\[[Old Name]]", "`[[Old Name]]` and \\[[Old Name]]"),
    ("```\n[[Old Name]]\n```\n<!-- [[Old Name]] -->", "```\n[[Old Name]]\n```\n<!-- [[Old Name]] -->"),
    ("[[Other]] [[#Old Name]]", "[[Other]] [[#Old Name]]"),
])
def test_only_the_target_of_a_named_link_changes(before: str, after: str) -> None:
    rewritten, count = retarget_links(before, _old_to_new)
    assert rewritten == after
    assert count == sum(a != b for a, b in zip(parse(before).all_links, parse(after).all_links, strict=True))


@pure
@given(MARKUP)
def test_rewriting_keeps_every_other_link_as_it_was(text: str) -> None:
    rewritten, _ = retarget_links(text, _old_to_new)
    def shape(link: WikiLink) -> tuple[object, ...]:
        return link.heading, link.block, link.alias, link.embed
    before, after = parse(text).all_links, parse(rewritten).all_links
    assert [shape(link) for link in before] == [shape(link) for link in after]
    assert [link.target for link in after if _old_to_new(link) is None and link.target != "New Name"] == [
        link.target for link in before if _old_to_new(link) is None and link.target != "New Name"]
    assert retarget_links(text, lambda link: None) == (text, 0)


def test_set_properties_replaces_the_given_keys_and_keeps_the_rest() -> None:
    body = "---\ntitle: x\ntags: [a]\n---\n# Body\n"
    assert set_properties(body, {"tags": ["b"], "status": "draft"}) == (
        "---\ntitle: x\ntags:\n- b\nstatus: draft\n---\n# Body\n")
    assert set_properties(body, {"title": None, "tags": None}) == "# Body\n"
    assert set_properties("plain", {"n": 1}) == "---\nn: 1\n---\nplain"
    assert set_properties("plain", {"gone": None}) == "plain"
    dated = "---\ndate: 2026-06-09\nat: 2026-06-09T10:00:00Z\n---\nx"
    assert set_properties(dated, {"n": 1}) == "---\ndate: 2026-06-09\nat: 2026-06-09T10:00:00Z\nn: 1\n---\nx"
    assert set_properties("---\n# only a comment\n---\nx", {"n": 1}) == "---\nn: 1\n---\nx"
    with pytest.raises(PropertiesError):
        set_properties("---\n[a, b]\n---\nbody", {"n": 1})
    with pytest.raises(PropertiesError):
        set_properties("---\na: [unclosed\n---\nbody", {"n": 1})
