"""Changing a note's front-matter properties in its markdown: the block is re-emitted as YAML with the given keys
set (``None`` deletes one), every other key kept in its order, the body after the block untouched."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml  # type: ignore[import-untyped,unused-ignore]  # PyYAML ships no stubs; types-PyYAML is optional

from vaultgraph.text.frontmatter import find_frontmatter


class PropertiesError(ValueError):
    """The existing front matter is not a YAML mapping, so keys cannot be set in it."""


def set_properties(markdown: str, changes: Mapping[str, Any]) -> str:
    """``markdown`` with its front matter's keys in ``changes`` replaced (``None``: removed). A note left with no
    properties loses its block; a note without one gains it."""
    span = find_frontmatter(markdown)
    body = markdown[span.end :] if span else markdown
    data: Any = {}
    if span is not None:
        try:
            data = yaml.safe_load(markdown[span.yaml_start : span.yaml_end]) or {}
        except yaml.YAMLError as exc:
            raise PropertiesError(f"the frontmatter is not valid YAML: {exc}".splitlines()[0]) from exc
        if not isinstance(data, dict):
            raise PropertiesError("the frontmatter is not a mapping of properties")
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    if not data:
        return body
    block = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
    return f"---\n{block}---\n{body}"
