"""Examples of the wikilink and tag grammar, beyond the shared conformance cases."""

from __future__ import annotations

import dataclasses

import pytest

from vaultgraph.text.wikilinks import CONTEXT_CHARS, ParsedText, WikiLink, parse

pytestmark = pytest.mark.text


def only_link(markdown: str) -> WikiLink:
    (link,) = parse(markdown).links
    return link


@pytest.mark.parametrize(
    ("markdown", "target", "heading", "block", "alias", "embed"),
    [
        ("[[Target]]", "Target", None, None, None, False),
        ("[[Target|Alias]]", "Target", None, None, "Alias", False),
        ("[[Target#Heading]]", "Target", "Heading", None, None, False),
        ("[[Target#Heading|Alias]]", "Target", "Heading", None, "Alias", False),
        ("[[Target#^block-1]]", "Target", None, "block-1", None, False),
        ("![[Target]]", "Target", None, None, None, True),
        ("![[diagram.png|300]]", "diagram.png", None, None, "300", True),
        ("[[folder/Note.md]]", "folder/Note", None, None, None, False),
        ("[[#Heading]]", "", "Heading", None, None, False),
        ("[[  spaced  |  alias  ]]", "spaced", None, None, "alias", False),
        ("[[T#H1#H2]]", "T", "H1#H2", None, None, False),
        # Obsidian's help vault: a code span inside the alias belongs to the link.
        ("[[Functions#hasTag|`hasTag`]]", "Functions", "hasTag", None, "`hasTag`", False),
        ("[[T|a `b` c ``d``]]", "T", None, None, "a `b` c ``d``", False),
        ("[[T|`]]`]]", "T", None, None, "`]]`", False),  # code binds first: its brackets are code
        ("![[diagram.png|`300`]]", "diagram.png", None, None, "`300`", True),
    ],
)
def test_link_forms(
    markdown: str, target: str, heading: str | None, block: str | None, alias: str | None, embed: bool
) -> None:
    link = only_link(f"before {markdown} after")

    assert (link.target, link.heading, link.block, link.alias, link.embed) == (target, heading, block, alias, embed)


def test_offsets_cover_the_link_and_the_bang_of_an_embed() -> None:
    source = "see [[A|x]] and ![[B]]"

    first, second = parse(source).links

    assert source[first.start : first.end] == "[[A|x]]"
    assert source[second.start : second.end] == "![[B]]"


def test_context_is_a_whitespace_collapsed_window_around_the_link() -> None:
    source = "x" * 40 + "  lead\n\tin [[Target]] trailing\n\n  text " + "y" * 40

    link = only_link(source)

    assert "\n" not in link.context and "  " not in link.context
    assert "lead in [[Target]] trailing text" in link.context
    assert len(link.context) <= len("[[Target]]") + 2 * CONTEXT_CHARS


def test_context_of_a_body_link_stays_out_of_the_front_matter() -> None:
    link = only_link("---\nsecret: x\n---\n[[A]]")

    assert link.context == "[[A]]"


@pytest.mark.parametrize(
    "markdown",
    [
        "```\n[[a]] #tag\n```",
        "~~~python\n[[a]] #tag\n~~~",
        "````\n```\n[[a]] #tag\n```\n````",  # a shorter fence does not close a longer one
        "```\n[[a]] #tag\n",  # unclosed: runs to the end
        "> ```\n> [[a]] #tag\n> ```",
        "`[[a]] #tag`",
        "``[[a]] ` #tag``",
        "`[[a|b`]] `#tag`",  # a code span that opens before the link hides it
        "[[a|`b]] #tag`",  # ... and so does one that runs past its end
        "[[`a`]]",  # code in the target: not a note name
        "[[a|<!-- b -->]]",  # the alias may hold code, not a comment or an HTML tag
        "[[a|<b>c</b>]]",
        "<!-- [[a]] #tag -->",
        "<!--\n[[a]]\n#tag\n-->",
        '<span title="[[a]] #tag">x</span>',
        r"\[[a]] \#tag",
    ],
)
def test_nothing_counts_inside_code_comments_html_or_escapes(markdown: str) -> None:
    assert parse(markdown) == ParsedText(links=(), tags=())


def test_code_in_a_link_alias_is_no_tag_and_keeps_its_offsets() -> None:
    source = "see [[T|`#not-a-tag`]] #tag"

    parsed = parse(source)

    ((link,), tags) = parsed.links, parsed.tags
    assert source[link.start : link.end] == "[[T|`#not-a-tag`]]"
    assert tags == ("tag",)


def test_a_nul_the_source_holds_is_text_not_a_masked_region() -> None:
    # The masked scan marks code with NUL; a NUL in the source itself must not read as one (found by hypothesis).
    (link,) = parse("before [[0|`\x00`]] #after").links
    assert (link.target, link.alias) == ("0", "`\x00`")
    assert parse("`a\x00b` [[x]]").links[0].target == "x"


def test_code_in_a_markdown_link_text_belongs_to_the_link() -> None:
    (link,) = parse("see [`hasTag`](Functions.md#hasTag) and `[x](y.md)`").markdown_links

    assert (link.target, link.heading, link.alias) == ("Functions", "hasTag", "`hasTag`")


def test_text_after_a_closed_fence_counts_again() -> None:
    parsed = parse("```\n[[in]]\n```\n[[out]] #after")

    assert [link.target for link in parsed.links] == ["out"]
    assert parsed.tags == ("after",)


def test_an_unmatched_backtick_is_plain_text() -> None:
    parsed = parse("a ` b [[link]] #tag")

    assert [link.target for link in parsed.links] == ["link"]
    assert parsed.tags == ("tag",)


def test_a_code_span_does_not_cross_a_blank_line() -> None:
    assert [link.target for link in parse("`open\n\n[[link]] `").links] == ["link"]


def test_percent_comments_do_not_hide_links_or_tags() -> None:
    parsed = parse("%% [[hidden?]] #no %%")

    assert [link.target for link in parsed.links] == ["hidden?"]
    assert parsed.tags == ("no",)


def test_an_escaped_bang_makes_a_plain_link() -> None:
    link = only_link(r"\![[A]]")

    assert link.embed is False
    assert (link.start, link.end) == (2, 7)


def test_table_pipe_escape_separates_the_alias() -> None:
    link = only_link(r"| a | [[post-1\|Post]] |")

    assert (link.target, link.alias) == ("post-1", "Post")


@pytest.mark.parametrize("markdown", ["[[]]", "[[ ]]", "[[a\nb]]", "[[a]", "[a]]", "[[a [[b]"])
def test_not_links(markdown: str) -> None:
    assert parse(markdown).links == ()


def test_brackets_inside_link_text_restart_the_link() -> None:
    assert [link.target for link in parse("[[a [[b]]").links] == ["b"]


@pytest.mark.parametrize(
    ("markdown", "tags"),
    [
        ("#tag #nested/tag #kebab-case #snake_case", ("tag", "nested/tag", "kebab-case", "snake_case")),
        ("# Heading\n## Sub\n#123 #1984", ()),
        ("#CamelCase #camelcase", ("CamelCase", "camelcase")),
        ("word#not a.#not b-#not https://x.org/#frag color=#fff", ()),
        ('(#paren) [#bracket] **#bold** "#quoted"', ("paren", "bracket", "bold", "quoted")),
        ("#ends. #at; #comma, #bang!", ("ends", "at", "comma", "bang")),
        ("[link](#anchor) [link](https://x.org/#frag)", ()),
        ("#日本語 #📷 #naïve", ("日本語", "📷", "naïve")),
        ("[[#Heading]] [[Note#Section]]", ()),
    ],
)
def test_tags(markdown: str, tags: tuple[str, ...]) -> None:
    assert parse(markdown).tags == tags


def test_tags_keep_every_occurrence_and_unique_tags_dedupe_ignoring_case() -> None:
    parsed = parse("---\ntags: [Project]\n---\n#project #todo #TODO #todo")

    assert parsed.tags == ("project", "todo", "TODO", "todo")
    assert parsed.unique_tags == ("Project", "todo")


def test_front_matter_is_reported_apart_from_the_body() -> None:
    source = '---\ntitle: "[[Up]]"\n# a comment with [[not-a-link]]\ntags:\n  - one\n  - "#two"\n---\n[[Body]] #three\n'

    parsed = parse(source)

    assert [link.target for link in parsed.links] == ["Body"]
    assert [link.target for link in parsed.frontmatter_links] == ["Up"]
    assert [link.target for link in parsed.all_links] == ["Up", "Body"]
    assert parsed.frontmatter_tags == ("one", "two")
    assert parsed.tags == ("three",)


@pytest.mark.parametrize(
    ("front", "tags"),
    [
        ("tags: single", ("single",)),
        ("tags: one, two", ()),  # Obsidian 1.9 no longer splits strings
        ("tags: [a, 1984, b c, d]", ("a", "d")),
        ("tags: {not: [a list]}", ()),
        ("tags: [unclosed", ()),
        ("- just\n- a list", ()),
    ],
)
def test_front_matter_tags(front: str, tags: tuple[str, ...]) -> None:
    assert parse(f"---\n{front}\n---\nbody").frontmatter_tags == tags


def test_an_unclosed_front_matter_fence_is_body() -> None:
    parsed = parse("---\ntags: [a]\n[[Link]] #tag")

    assert [link.target for link in parsed.links] == ["Link"]
    assert parsed.tags == ("tag",)
    assert parsed.frontmatter_tags == ()


def test_front_matter_must_open_the_note() -> None:
    parsed = parse("intro\n---\ntags: [a]\n---\n")

    assert parsed.frontmatter_tags == ()


def test_results_are_frozen() -> None:
    parsed = parse("[[A]] #b")

    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.links[0].target = "B"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.tags = ()  # type: ignore[misc]


def test_self_links() -> None:
    assert only_link("[[#^abc]]").is_self_link
    assert not only_link("[[Other#^abc]]").is_self_link
