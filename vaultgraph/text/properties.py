"""Changing a note's front-matter properties in its markdown: the block is re-emitted as YAML with the given keys
set (``None`` deletes one), every other key kept in its order, the body after the block untouched. The block is
read by the one front-matter parser (text/frontmatter.py), so its limits hold here too."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml  # type: ignore[import-untyped,unused-ignore]  # PyYAML ships no stubs; types-PyYAML is optional

from vaultgraph.text.frontmatter import FrontmatterError, find_frontmatter, parse_frontmatter

_DATE_LIKE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[Tt ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?")
_COMMENTS_AND_SPACE = re.compile(r"(?m)^[ \t]*(?:#.*)?$\n?")


class PropertiesError(ValueError):
    """The existing front matter cannot be read as a mapping of properties, so keys cannot be set in it."""


class _Dumper(yaml.SafeDumper):  # type: ignore[misc,unused-ignore]
    """Dates were read as the strings they were written as; they are written back the same way, unquoted."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    tag = "tag:yaml.org,2002:timestamp" if _DATE_LIKE.fullmatch(value) else "tag:yaml.org,2002:str"
    return dumper.represent_scalar(tag, value)


_Dumper.add_representer(str, _str)


def set_properties(markdown: str, changes: Mapping[str, Any]) -> str:
    """``markdown`` with its front matter's keys in ``changes`` replaced (``None``: removed). A note left with no
    properties loses its block; a note without one gains it."""
    span = find_frontmatter(markdown)
    body = markdown[span.end :] if span else markdown
    try:
        data = parse_frontmatter(markdown)
    except FrontmatterError as exc:
        raise PropertiesError(f"the frontmatter at line {exc.line}: {exc.reason}") from exc
    if span and not data and _COMMENTS_AND_SPACE.sub("", markdown[span.yaml_start : span.yaml_end]).strip("{} \n"):
        raise PropertiesError("the frontmatter is not a mapping of properties")
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    if not data:
        return body
    block = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False)
    return f"---\n{block}---\n{body}"
