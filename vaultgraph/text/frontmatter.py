"""Front matter as Obsidian reads it, the one parser for every caller: YAML between ``---`` lines at the very start.

The opening ``---`` is the first line (a UTF-8 byte order mark before it is allowed), lines may end in CRLF, and an
unclosed block is body. Only YAML: a body starting with ``{`` is body, not JSON front matter.

The YAML is read as plain data and bounded, because a note body is untrusted input: no anchors or aliases (the
"billion laughs" expands a few hundred bytes into megabytes), at most ``MAX_FRONTMATTER_BYTES`` and
``MAX_FRONTMATTER_DEPTH`` levels of nesting, only JSON values (no NaN or infinity, which JSON cannot carry, and no
binary, sets or custom tags), and dates stay the strings they were written as. What breaks a rule raises
``FrontmatterError`` with the line of the note it is on.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Protocol

import yaml

from vaultgraph.text.masking import MASK
from vaultgraph.text.tags import is_tag

MAX_FRONTMATTER_BYTES = 64 * 1024
"""Largest YAML block a note may open with (UTF-8 bytes between the fences)."""
MAX_FRONTMATTER_DEPTH = 20
"""Deepest nesting of lists and mappings in it (the top mapping is level 1)."""

_OPEN = re.compile(r"\ufeff?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^---[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_COMMENT_LINE = re.compile(r"^[ \t]*#[^\n]*", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FrontmatterSpan:
    """Offsets of a front-matter block: the YAML is ``source[yaml_start:yaml_end]``, the body starts at ``end``."""

    yaml_start: int
    yaml_end: int
    end: int


class FrontmatterError(ValueError):
    """Front matter that cannot be read: ``line`` is 1-based in the whole note, ``reason`` says what is wrong."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


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


_TAG = "tag:yaml.org,2002:"
# Plain scalars resolve to these and to strings only: a date, a merge key "<<" or "=" stays the text it is.
_JSON_SCALARS = frozenset(_TAG + name for name in ("bool", "int", "float", "null"))
_DEFAULT_TAGS = (None, "!")


class _Resolver(yaml.resolver.Resolver):
    yaml_implicit_resolvers = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag in _JSON_SCALARS]
        for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
    }


# Neither keeps state between calls (no path resolvers; the scalar constructors read only the node): one each.
_RESOLVER = _Resolver()
_SCALAR = yaml.constructor.SafeConstructor()
# libyaml's parser where PyYAML was built with it (the same events, five times faster), else the pure-Python one.
_PARSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Mark(Protocol):
    line: int  # 0-based in the YAML text


class _Builder:
    """JSON values from a YAML event stream, refusing what a note's front matter may not hold as it goes.

    Built from events rather than a composed node tree so that an anchor, an alias or a deep nesting is refused
    before anything is expanded or recursed into. ``raw`` keeps every scalar the text it was written as.
    """

    def __init__(self, first_line: int, raw: bool) -> None:
        self.first_line = first_line
        self.raw = raw
        self.stack: list[tuple[list[Any] | dict[str, Any], list[str]]] = []  # container, its pending key
        self.documents = 0
        self.root: Any = None

    def error(self, mark: _Mark | None, reason: str) -> FrontmatterError:
        return FrontmatterError(self.first_line + (mark.line if mark else 0), reason)

    def feed(self, event: yaml.Event) -> None:
        anchor = getattr(event, "anchor", None)
        if isinstance(event, yaml.AliasEvent):
            raise self.error(event.start_mark, f"YAML aliases (*{anchor}) are not allowed in frontmatter")
        if anchor is not None:
            raise self.error(event.start_mark, f"YAML anchors (&{anchor}) are not allowed in frontmatter")
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise self.error(event.start_mark, "the frontmatter holds more than one YAML document")
        elif isinstance(event, yaml.ScalarEvent):
            self.scalar(event)
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            self.open(event)
        elif isinstance(event, yaml.CollectionEndEvent):
            self.add(self.stack.pop()[0])

    def open(self, event: yaml.SequenceStartEvent | yaml.MappingStartEvent) -> None:
        is_map = isinstance(event, yaml.MappingStartEvent)
        if event.tag not in (*_DEFAULT_TAGS, _TAG + ("map" if is_map else "seq")):
            raise self.unsupported(event)
        if self.stack and isinstance(self.stack[-1][0], dict) and not self.stack[-1][1]:
            raise self.error(event.start_mark, "a property name must be plain text, not a list or a mapping")
        if len(self.stack) >= MAX_FRONTMATTER_DEPTH:
            raise self.error(event.start_mark, f"nested deeper than {MAX_FRONTMATTER_DEPTH} levels")
        self.stack.append(({} if is_map else [], []))

    def scalar(self, event: yaml.ScalarEvent) -> None:
        if self.stack and isinstance(self.stack[-1][0], dict) and not self.stack[-1][1]:
            self.stack[-1][1].append(event.value)  # a name as written: "1", "true", "2026-06-09"
            return
        tag = event.tag
        if tag in _DEFAULT_TAGS:
            tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)  # type: ignore[no-untyped-call]
        if self.raw or tag in (_TAG + "str", _TAG + "timestamp"):  # an explicit !!timestamp: as written, too
            self.add(event.value)
        elif tag in _JSON_SCALARS:
            value = _SCALAR.yaml_constructors[tag](_SCALAR, yaml.ScalarNode(tag, event.value))
            if isinstance(value, float) and not math.isfinite(value):
                raise self.error(event.start_mark, f"{event.value!r} is not a finite number (JSON has no NaN or "
                                                   "infinity); quote it to keep it as text")
            self.add(value)
        else:
            raise self.unsupported(event)

    def add(self, value: Any) -> None:
        if not self.stack:
            self.root = value
            return
        container, key = self.stack[-1]
        if isinstance(container, list):
            container.append(value)
        else:
            container[key.pop()] = value

    def unsupported(self, event: yaml.NodeEvent) -> FrontmatterError:
        tag = str(getattr(event, "tag", "")).replace(_TAG, "!!", 1)
        return self.error(event.start_mark, f"the YAML tag {tag} has no JSON form; use text, numbers, true/false, "
                                            "lists and mappings")


def _load(markdown: str, span: FrontmatterSpan, raw: bool = False) -> dict[str, Any]:
    """The front matter's top mapping, checked against the limits; ``{}`` when it is empty, a text or a list."""
    yaml_text = markdown[span.yaml_start : span.yaml_end]
    first_line = markdown.count("\n", 0, span.yaml_start) + 1  # the note line the YAML starts on
    size = len(yaml_text.encode())
    if size > MAX_FRONTMATTER_BYTES:
        raise FrontmatterError(first_line - 1, f"the frontmatter is {size} bytes; at most {MAX_FRONTMATTER_BYTES}")
    builder = _Builder(first_line, raw)
    try:
        for event in yaml.parse(yaml_text, Loader=_PARSER):
            builder.feed(event)
    except yaml.reader.ReaderError as exc:
        line = first_line + yaml_text.encode()[: exc.position].count(b"\n")  # libyaml counts bytes
        raise FrontmatterError(line, f"not valid YAML: the character U+{exc.character:04X} is not allowed") from None
    except yaml.MarkedYAMLError as exc:
        raise builder.error(exc.problem_mark, f"not valid YAML: {exc.problem}") from None
    return builder.root if isinstance(builder.root, dict) else {}  # Obsidian shows no properties for those either


def parse_frontmatter(markdown: str) -> dict[str, Any]:
    """The properties of ``markdown``'s front matter as JSON values, ``{}`` when it has none.

    Raises ``FrontmatterError`` (with the note's line) when the YAML is invalid or breaks a limit.
    """
    span = find_frontmatter(markdown)
    return _load(markdown, span) if span else {}


def _tag_value(item: object) -> str | None:
    if not isinstance(item, str):
        return None
    name = item.strip().removeprefix("#")
    return name if is_tag(name) else None


def frontmatter_tags(markdown: str, span: FrontmatterSpan) -> tuple[str, ...]:
    """Tags from the ``tags`` property: a list of tags, or one tag as a plain string.

    Obsidian (1.9) no longer splits a comma- or space-separated string, so ``tags: a, b`` gives no tags, and
    neither does front matter that ``parse_frontmatter`` refuses. Values are read as written: ``1984`` stays a
    non-tag, ``true`` is a tag.
    """
    try:
        data = _load(markdown, span, raw=True)
    except FrontmatterError:
        return ()
    value = next((v for k, v in data.items() if k.casefold() == "tags"), None)
    items: list[object] = list(value) if isinstance(value, list) else [value]
    return tuple(name for name in map(_tag_value, items) if name is not None)
