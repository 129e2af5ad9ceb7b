"""The one frontmatter parser: where the block is, what it reads, and what it refuses (with the note's line)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultgraph.services.taxonomy import parse_taxonomy
from vaultgraph.text.frontmatter import (
    MAX_FRONTMATTER_BYTES,
    MAX_FRONTMATTER_DEPTH,
    FrontmatterError,
    parse_frontmatter,
)
from vaultgraph.text.wikilinks import parse

pytestmark = pytest.mark.text


def refusal(markdown: str) -> FrontmatterError:
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter(markdown)
    return caught.value


@pytest.mark.parametrize(
    "markdown",
    [
        "{\nnot json\n}\nbody",  # python-frontmatter took a "{" line for JSON frontmatter and raised
        '{\n  "retries": 3\n}\nbody',  # ... or read it as properties
        "{{template}}\n---\na: 1\n---\n",
        "no frontmatter [[x]]",
        "---\na: 1\nno closing fence",  # unclosed: a thematic break, all body
        "\n---\na: 1\n---\n",  # the fence must be the very first line
        "---\n---\nbody",
        "---\njust a sentence\n---\n",  # YAML, but no properties: Obsidian shows none either
        "---\n- a\n- list\n---\n",
        "",
    ],
)
def test_text_without_properties_reads_as_none(markdown: str) -> None:
    assert parse_frontmatter(markdown) == {}


def test_a_body_starting_with_a_brace_is_body() -> None:
    parsed = parse("{ [[Link]] } #tag")

    assert [link.target for link in parsed.links] == ["Link"] and parsed.tags == ("tag",)


@pytest.mark.parametrize(
    "markdown",
    [
        "\ufeff---\ntags: [a]\nstatus: x\n---\nbody #b",
        "---\r\ntags: [a]\r\nstatus: x\r\n---\r\nbody #b",
        "\ufeff---\r\ntags:\r\n  - a\r\nstatus: x\r\n---\r\nbody #b",
        "---  \ntags: [a]\nstatus: x\n---\t\nbody #b",
    ],
)
def test_a_byte_order_mark_crlf_and_trailing_blanks_around_the_fences(markdown: str) -> None:
    parsed = parse(markdown)

    assert parse_frontmatter(markdown) == {"tags": ["a"], "status": "x"}
    assert parsed.frontmatter_tags == ("a",) and parsed.tags == ("b",)


def test_values_are_json_and_dates_stay_the_text_written() -> None:
    markdown = (
        "---\ndate: 2026-06-09\nwhen: 2026-06-09T10:30:00Z\n2026-01-01: a date as a name\n1: one\n"
        "n: null\ni: 0x10\nf: 1.5\nb: true\nquoted: '.nan'\nexplicit: !!timestamp 2026-06-09\n"
        "nested: {a: [1, {b: c}]}\nmerge: {<<: {x: 1}}\n---\n"  # "<<" a plain name, not YAML 1.1's merge
    )

    assert parse_frontmatter(markdown) == {
        "date": "2026-06-09", "when": "2026-06-09T10:30:00Z", "2026-01-01": "a date as a name", "1": "one",
        "n": None, "i": 16, "f": 1.5, "b": True, "quoted": ".nan", "explicit": "2026-06-09",
        "nested": {"a": [1, {"b": "c"}]}, "merge": {"<<": {"x": 1}},
    }


@pytest.mark.parametrize(
    ("markdown", "line", "reason"),
    [
        ("---\ntitle: ok\na: b: c\n---\n", 3, "not valid YAML: mapping values are not allowed"),
        ("---\r\ntitle: ok\r\na: b: c\r\n---\r\n", 3, "not valid YAML"),
        ("\ufeff---\ntitle: ok\na: b: c\n---\n", 3, "not valid YAML"),
        ("---\nx:\n\t- tab\n---\n", 3, "not valid YAML"),
        ("---\nx: é\n\ny: a\x07b\n---\n", 4, "the character U+0007 is not allowed"),
        ("---\na: 1\n...\nb: 2\n---\n", 4, "not valid YAML"),
        ("---\nok: 1\nx: .nan\n---\n", 3, "'.nan' is not a finite number"),
        ("---\nx: [1, -.inf]\n---\n", 2, "'-.inf' is not a finite number"),
        ("---\nx: .Inf\n---\n", 2, "not a finite number"),
        ("---\nx: 1.0e+999\n---\n", 2, "not a finite number"),  # overflows to infinity
        ("---\nx: !!binary aGVsbG8=\n---\n", 2, "the YAML tag !!binary has no JSON form"),
        ("---\nx: !!set {a, b}\n---\n", 2, "the YAML tag !!set has no JSON form"),
        ("---\nx: !custom value\n---\n", 2, "the YAML tag !custom has no JSON form"),
        ("---\n? [a, b]\n: c\n---\n", 2, "a property name must be plain text"),
    ],
)
def test_unreadable_frontmatter_names_the_line_of_the_note(markdown: str, line: int, reason: str) -> None:
    error = refusal(markdown)

    assert (error.line, str(error)) == (line, f"line {line}: {error.reason}")
    assert reason in error.reason


@pytest.mark.parametrize(
    ("markdown", "line", "reason"),
    [
        ("---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n---\n", 2,
         "YAML anchors (&a) are not allowed"),  # the "billion laughs", refused at its first anchor
        ("---\na: &a [*a]\n---\n", 2, "YAML anchors (&a)"),  # recursive
        ("---\nbase: {x: 1}\nother: *base\n---\n", 3, "YAML aliases (*base) are not allowed"),
    ],
)
def test_anchors_and_aliases_are_refused(markdown: str, line: int, reason: str) -> None:
    error = refusal(markdown)
    assert error.line == line and reason in error.reason


def _nested(levels: int) -> str:
    return "---\nx: " + "[" * (levels - 1) + "]" * (levels - 1) + "\n---\n"  # the top mapping is level 1


def test_nesting_is_bounded() -> None:
    assert parse_frontmatter(_nested(MAX_FRONTMATTER_DEPTH))["x"] is not None
    assert f"nested deeper than {MAX_FRONTMATTER_DEPTH} levels" in refusal(_nested(MAX_FRONTMATTER_DEPTH + 1)).reason
    assert refusal(_nested(5000)).line == 2  # far past the bound: refused, no recursion


def test_size_is_bounded() -> None:
    fits = "---\nx: " + "a" * (MAX_FRONTMATTER_BYTES - 4) + "\n---\n"
    too_big = "---\nx: " + "é" * (MAX_FRONTMATTER_BYTES // 2) + "\n---\n"  # bytes, not characters

    assert len(parse_frontmatter(fits)["x"]) == MAX_FRONTMATTER_BYTES - 4
    error = refusal(too_big)
    assert error.line == 1 and f"at most {MAX_FRONTMATTER_BYTES}" in error.reason


def test_refused_frontmatter_gives_no_tags_and_keeps_the_body_parsed() -> None:
    parsed = parse("---\ntags: &t [a]\nmore: *t\n---\n[[Body]] #b")

    assert parsed.frontmatter_tags == () and [link.target for link in parsed.links] == ["Body"]


def test_tags_are_read_as_written() -> None:
    assert parse("---\nTags: [true, 1984, '#x', y1, [n], 1.5]\n---\n").frontmatter_tags == ("true", "x", "y1")


def test_the_taxonomy_file_uses_the_same_parser() -> None:
    taxonomy = parse_taxonomy("\ufeff---\r\ncategories:\r\n  - {id: Ops, description: Running things}\r\n---\r\n")
    assert taxonomy.ids == ["Ops", "Others"]
    with pytest.raises(FrontmatterError):
        parse_taxonomy("---\ncategories: &c [{id: Ops}]\nagain: *c\n---\n")
    with pytest.raises(ValueError, match="categories"):
        parse_taxonomy('{"categories": [{"id": "Ops"}]}')  # JSON is body, not frontmatter


@settings(database=None, deadline=None, max_examples=300)
@given(st.text(alphabet="-:[]{}&*!|>'\"#.\n \tabc19né\ufeff\r", max_size=120))
def test_any_text_gives_json_or_a_frontmatter_error(yaml_text: str) -> None:
    markdown = f"---\n{yaml_text}\n---\nbody"
    try:
        properties = parse_frontmatter(markdown)
    except FrontmatterError as error:
        # Lines as YAML counts them: a lone CR ends one too.
        assert 1 <= error.line <= len(re.findall("\r\n|[\r\n]", markdown)) + 1 and error.reason
        return
    json.dumps(properties, allow_nan=False)  # plain JSON: no NaN, no dates, no bytes
    assert all(isinstance(key, str) for key in properties)
