"""Front matter as Obsidian reads it: a YAML block between ``---`` lines at the very start of a note."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml  # type: ignore[import-untyped,unused-ignore]  # PyYAML ships no stubs; types-PyYAML is optional

from vaultgraph.text.masking import MASK
from vaultgraph.text.tags import is_tag

_OPEN = re.compile(r"---[ \t]*\r?\n")
_CLOSE = re.compile(r"^---[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_COMMENT_LINE = re.compile(r"^[ \t]*#[^\n]*", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FrontmatterSpan:
    """Offsets of a front-matter block: the YAML is ``source[yaml_start:yaml_end]``, the body starts at ``end``."""

    yaml_start: int
    yaml_end: int
    end: int


def find_frontmatter(markdown: str) -> FrontmatterSpan | None:
    """The front-matter block opening on the first line and closed by a ``---`` line, or None."""
    opening = _OPEN.match(markdown)
    if opening is None:
        return None
    closing = _CLOSE.search(markdown, opening.end())
    if closing is None:
        return None  # an unclosed "---" is a thematic break, and the text is all body
    return FrontmatterSpan(opening.end(), closing.start(), closing.end())


def frontmatter_scan(markdown: str, span: FrontmatterSpan) -> str:
    """``markdown`` masked everywhere but the YAML block, whose whole-line ``#`` comments are masked too."""
    chars = [MASK] * len(markdown)
    chars[span.yaml_start : span.yaml_end] = markdown[span.yaml_start : span.yaml_end]
    for comment in _COMMENT_LINE.finditer(markdown, span.yaml_start, span.yaml_end):
        chars[comment.start() : comment.end()] = MASK * (comment.end() - comment.start())
    return "".join(chars)


def _tag_value(item: object) -> str | None:
    if not isinstance(item, str):
        return None
    name = item.strip().removeprefix("#")
    return name if is_tag(name) else None


# libyaml's loader where PyYAML was built with it (the same documents, parsed in C), else the pure-Python one.
_BASE_LOADER = getattr(yaml, "CBaseLoader", yaml.BaseLoader)


def frontmatter_tags(yaml_text: str) -> tuple[str, ...]:
    """Tags from the ``tags`` property: a list of tags, or one tag as a plain string.

    Obsidian (1.9) no longer splits a comma- or space-separated string, so ``tags: a, b`` gives no tags, and
    neither does YAML that does not parse.
    """
    try:
        # BaseLoader keeps every scalar a string: no dates or numbers to trip over, and "1984" stays a non-tag.
        data: object = yaml.load(yaml_text, Loader=_BASE_LOADER)
    except (yaml.YAMLError, RecursionError):
        return ()
    if not isinstance(data, dict):
        return ()
    value = next((v for k, v in data.items() if isinstance(k, str) and k.casefold() == "tags"), None)
    items: list[object] = list(value) if isinstance(value, list) else [value]
    return tuple(name for name in map(_tag_value, items) if name is not None)
