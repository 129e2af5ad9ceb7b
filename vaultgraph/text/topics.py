"""Splitting a document's text into topics (EverOS's L2): named sections with content, labels and a place in the
tree. By the document's own headings when it has them, by length when it has none.

The heading tree gives each topic its path and depth; the text before the first heading is a topic named after
the document (the tree's root, depth 0). A section longer than `TOPIC_MAX_CHARS` is cut by length into parts; one
shorter than `TOPIC_MIN_CHARS` joins the topic before it when that one is its parent or sibling (its heading kept as
a line of the content, so nothing is lost); a heading with no text under it is no topic (its title lives on in
the paths below it). The seed names no sizes: these are ours, topics being sections a person reads, several of the
search chunks (text/chunking.py, whose heading tree and length cuts this shares) long.

Pure: same text and title, same topics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vaultgraph.text.chunking import HeadingSection, cut_by_length, heading_sections, is_heading_line
from vaultgraph.text.frontmatter import find_frontmatter
from vaultgraph.text.masking import mask_markup
from vaultgraph.text.tags import find_tags

TOPIC_MAX_CHARS = 4000
TOPIC_MIN_CHARS = 100
MAX_LABELS = 10
MAX_NAME_CHARS = 200
PATH_SEPARATOR = " > "


@dataclass(frozen=True, slots=True)
class TopicDraft:
    """A topic before it is stored: `position` is its place in document order, from 0; `parent` the position of
    the nearest topic before it of smaller depth (None at the root)."""

    position: int
    name: str
    path: tuple[str, ...]  # the document's title, then the headings down to this topic's own
    depth: int  # 0 for the text before any heading (and for a text without headings), else the heading depth
    content: str
    labels: tuple[str, ...]
    parent: int | None


@dataclass(frozen=True, slots=True)
class Section:
    """A named stretch of a text before it is numbered: its titles (outermost first, () before any) and content;
    `labels` None takes the #tags of the content."""

    titles: tuple[str, ...]
    content: str
    labels: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Start:
    """Where a topic starts, as the chat model says (workers/topics.py): a 1-based line of `body_lines`."""

    line: int
    name: str
    depth: int  # 1 for a top-level topic
    labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Piece:
    titles: tuple[str, ...]  # heading titles, outermost first; () before the first heading
    content: str


def split_topics(text: str, title: str, max_chars: int = TOPIC_MAX_CHARS,
                 min_chars: int = TOPIC_MIN_CHARS) -> list[TopicDraft]:
    """The topics of `text` (front matter left out), in order; none when it holds nothing but whitespace."""
    pieces = _merge([_piece(text, section) for section in heading_sections(text)], min_chars)
    return number(title, [Section(p.titles, p.content) for p in pieces], max_chars)


def passage_key(heading: str | None, text: str) -> tuple[str | None, str]:
    """What a topic and a search chunk (text/chunking.py) of the same section with the same words share: the
    heading path, and the text after its heading line, whitespace aside. Equal keys: one vector serves both."""
    first, _, rest = text.partition("\n")
    return heading, " ".join((rest if heading is not None and is_heading_line(first) else text).split())


def body_lines(text: str) -> list[str]:
    """The lines of `text` after its front matter: what a model is shown, numbered from 1, to say where topics
    start."""
    span = find_frontmatter(text)
    return (text[span.end :] if span else text).split("\n")


def from_starts(lines: Sequence[str], starts: Sequence[Start], title: str, max_chars: int = TOPIC_MAX_CHARS
                ) -> list[TopicDraft]:
    """Topics from where each starts (lines in increasing order, 1-based): each runs to the next one's start, the
    lines before the first are the root topic, and depths nest as headings do."""
    sections = [Section((), "\n".join(lines[: starts[0].line - 1]))] if starts else [Section((), "\n".join(lines))]
    trail: list[tuple[int, str]] = []
    for index, start in enumerate(starts):
        trail = [(depth, name) for depth, name in trail if depth < start.depth] + [(start.depth, start.name)]
        end = starts[index + 1].line - 1 if index + 1 < len(starts) else len(lines)
        sections.append(Section(tuple(name for _, name in trail), "\n".join(lines[start.line - 1 : end]),
                                start.labels))
    return number(title, sections, max_chars)


def number(title: str, sections: Sequence[Section], max_chars: int = TOPIC_MAX_CHARS) -> list[TopicDraft]:
    """Topics from sections in order: names, paths, depths, parents and labels. Content longer than `max_chars`
    is cut by length, its parts named `Name (2/3)`; empty content is no topic."""
    title = _name(title) or "Untitled"
    drafts: list[TopicDraft] = []
    for section in sections:
        titles = tuple(name for name in map(_name, section.titles) if name)
        own = None if section.labels is None else tuple(dict.fromkeys(map(_name, section.labels)))[:MAX_LABELS]
        parts = [part for part in (p.strip() for p in _cut(section.content.strip(), max_chars)) if part]
        for index, part in enumerate(parts, start=1):
            name = titles[-1] if titles else title
            if len(parts) > 1:
                name = f"{name} ({index}/{len(parts)})"
            depth = len(titles)
            parent = next((d.position for d in reversed(drafts) if d.depth < depth), None)
            drafts.append(TopicDraft(len(drafts), name, (title, *titles), depth, part,
                                     labels(part) if own is None else own, parent))
    return drafts


def labels(content: str) -> tuple[str, ...]:
    """The #tags a topic's text carries (outside code), first spelling kept, at most MAX_LABELS."""
    if "#" not in content:  # no tag to find: masking the code out of a long text costs more than the rest
        return ()
    found: dict[str, str] = {}
    for name, _, _ in find_tags(mask_markup(content)):
        found.setdefault(name.casefold(), name)
    return tuple(found.values())[:MAX_LABELS]


def _name(text: str) -> str:
    return " ".join(text.split())[:MAX_NAME_CHARS]


def _piece(text: str, section: HeadingSection) -> _Piece:
    body = text[section.start : section.end]
    if section.trail:  # the heading line is the topic's name, not its content
        newline = body.find("\n")
        body = "" if newline == -1 else body[newline + 1 :]
    return _Piece(tuple(title for _, title in section.trail), body.strip())


def _merge(pieces: list[_Piece], min_chars: int) -> list[_Piece]:
    """Drop empty sections; fold a short one into the topic before it when that is its parent or sibling."""
    merged: list[_Piece] = []
    for piece in pieces:
        if not piece.content:
            continue
        if merged and piece.titles and len(piece.content) < min_chars:
            last, above = merged[-1], piece.titles[:-1]
            ancestor = len(last.titles) <= len(above) and above[: len(last.titles)] == last.titles
            sibling = last.titles[:-1] == above and len(last.titles) == len(piece.titles)
            if ancestor or sibling:
                heading = "#" * min(len(piece.titles), 6) + " " + piece.titles[-1]
                merged[-1] = _Piece(last.titles, f"{last.content}\n\n{heading}\n\n{piece.content}")
                continue
        merged.append(piece)
    return merged


def _cut(content: str, max_chars: int) -> list[str]:
    if len(content) <= max_chars:
        return [content]
    return [content[start:end] for start, end in cut_by_length(content, 0, len(content), max_chars)]
