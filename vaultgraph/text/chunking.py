"""Splitting a long markdown body into bounded chunks for search: on headings first, then inside a section that
is still too long, into overlapping windows that end at a paragraph, a sentence or a space where one is near.

Pure: same text and policy, same chunks. Offsets point into the given text, so a chunk can be shown in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vaultgraph.text.frontmatter import find_frontmatter

# About 256 word pieces: within what either offline model reads (all-MiniLM-L6-v2 256, bge-small-en-v1.5 512), so a
# chunk is embedded whole; a chunk much longer would be embedded only in part by the smaller.
DEFAULT_MAX_CHARS = 1200
DEFAULT_OVERLAP_CHARS = 150
# Sections shorter than this are packed together with their neighbours rather than left as tiny chunks.
DEFAULT_MIN_CHARS = 300
# A window may end this far before its limit to land on a paragraph or sentence break instead of mid-word.
_BREAK_SEARCH_FRACTION = 0.4

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SENTENCE_END = re.compile(r"[.!?。！？][\"')\]]*\s")


@dataclass(frozen=True, slots=True)
class ChunkingPolicy:
    max_chars: int = DEFAULT_MAX_CHARS
    overlap_chars: int = DEFAULT_OVERLAP_CHARS
    min_chars: int = DEFAULT_MIN_CHARS

    def __post_init__(self) -> None:
        if self.max_chars < 100:
            raise ValueError("max_chars must be at least 100")
        if not 0 <= self.overlap_chars <= self.max_chars // 2:
            raise ValueError("overlap_chars must be between 0 and half of max_chars")
        if not 0 <= self.min_chars <= self.max_chars:
            raise ValueError("min_chars must be between 0 and max_chars")

    @property
    def key(self) -> str:
        """Part of a chunk's content hash: a new policy re-chunks, an unchanged one does not."""
        return f"{self.max_chars}/{self.overlap_chars}/{self.min_chars}"


@dataclass(frozen=True, slots=True)
class TextChunk:
    ordinal: int
    heading: str | None  # the heading path the chunk sits under, "Setup > Linux"; None before the first heading
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Section:
    heading: str | None
    start: int
    end: int
    trail: tuple[tuple[int, str], ...] = ()  # (level, title) of the headings above and of its own, outermost first


@dataclass(frozen=True, slots=True)
class HeadingSection:
    """A heading-led stretch of a text (the stretch before the first heading has no trail)."""

    trail: tuple[tuple[int, str], ...]  # (level, title) of the headings it sits under, its own last
    start: int  # where its heading line starts (the body's start when it has no heading)
    end: int


def is_heading_line(line: str) -> bool:
    """A Markdown ATX heading line (`## Setup`), as the sections are cut on."""
    return bool(_HEADING.match(line))


def split_sections(text: str) -> list[tuple[str | None, int, int]]:
    """(heading path, start, end) of each heading-led section; headings inside fenced code do not count."""
    return [(s.heading, s.start, s.end) for s in _sections(text, _body_start(text))]


def heading_sections(text: str) -> list[HeadingSection]:
    """Each heading-led section with its heading trail (front matter left out; headings in fenced code do not
    count): the tree `split_sections` flattens into a path."""
    return [HeadingSection(s.trail, s.start, s.end) for s in _sections(text, _body_start(text))]


def cut_by_length(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """`text[start:end]` cut into pieces of at most `max_chars` without overlap, each ending at a paragraph, a
    sentence or a space where one is near (the windows of `chunk_text`)."""
    policy = ChunkingPolicy(max_chars=max_chars, overlap_chars=0, min_chars=0)
    return [(s, e) for _, s, e in _windows(text, _Section(None, start, end), policy)]


def chunk_text(text: str, policy: ChunkingPolicy | None = None) -> list[TextChunk]:
    """Bounded chunks of `text` (front matter left out), in order; none when it holds nothing but whitespace."""
    policy = policy or ChunkingPolicy()
    spans: list[tuple[str | None, int, int]] = []
    for section in _pack(_sections(text, _body_start(text)), text, policy):
        spans.extend(_windows(text, section, policy))
    chunks: list[TextChunk] = []
    for heading, start, end in spans:
        start, end = _trim(text, start, end)
        if start < end:
            chunks.append(TextChunk(len(chunks), heading, text[start:end], start, end))
    return chunks


def _body_start(text: str) -> int:
    span = find_frontmatter(text)
    return span.end if span else 0


def _sections(text: str, start: int) -> list[_Section]:
    sections: list[_Section] = []
    trail: list[tuple[int, str]] = []  # (level, title) of the headings above the current line
    heading: str | None = None
    section_start = start
    fence: str | None = None
    pos = start
    for line in text[start:].split("\n"):
        fence_match = _FENCE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
        elif fence_match:
            fence = fence_match.group(1)
        elif found := _HEADING.match(line):
            if pos > section_start:
                sections.append(_Section(heading, section_start, pos, tuple(trail)))
            level = len(found.group(1))
            trail = [(lvl, title) for lvl, title in trail if lvl < level] + [(level, found.group(2).strip())]
            heading = " > ".join(title for _, title in trail)
            section_start = pos
        pos += len(line) + 1
    end = len(text)
    if end > section_start:
        sections.append(_Section(heading, section_start, end, tuple(trail)))
    return sections


def _pack(sections: list[_Section], text: str, policy: ChunkingPolicy) -> list[_Section]:
    """Neighbouring sections merged while they stay small, so short sections do not each become a chunk."""
    packed: list[_Section] = []
    for section in sections:
        if not text[section.start : section.end].strip():
            continue
        if packed:
            last = packed[-1]
            small = (last.end - last.start) < policy.min_chars or (section.end - section.start) < policy.min_chars
            if small and section.end - last.start <= policy.max_chars:
                packed[-1] = _Section(last.heading or section.heading, last.start, section.end)
                continue
        packed.append(section)
    return packed


def _windows(text: str, section: _Section, policy: ChunkingPolicy) -> list[tuple[str | None, int, int]]:
    """A section that fits is one window; a longer one is cut into overlapping windows at natural breaks."""
    start, end = section.start, section.end
    if end - start <= policy.max_chars:
        return [(section.heading, start, end)]
    windows = []
    while start < end:
        limit = min(start + policy.max_chars, end)
        stop = limit if limit == end else _break_before(text, start, limit, policy)
        windows.append((section.heading, start, stop))
        if stop >= end:
            break
        start = _next_start(text, start, stop, policy)
    return windows


def _break_before(text: str, start: int, limit: int, policy: ChunkingPolicy) -> int:
    """The end of a window: the last paragraph break, sentence end or space in its last stretch; else `limit`."""
    floor = limit - int(policy.max_chars * _BREAK_SEARCH_FRACTION)
    floor = max(floor, start + 1)
    paragraph = text.rfind("\n\n", floor, limit)
    if paragraph != -1:
        return paragraph + 1
    sentences = [m.end() for m in _SENTENCE_END.finditer(text, floor, limit)]
    if sentences:
        return sentences[-1]
    space = max(text.rfind(" ", floor, limit), text.rfind("\n", floor, limit))
    return space + 1 if space != -1 else limit


def _next_start(text: str, start: int, stop: int, policy: ChunkingPolicy) -> int:
    """Where the next window starts: `overlap_chars` back from `stop`, moved forward to a word start."""
    candidate = max(stop - policy.overlap_chars, start + 1)
    if candidate < stop:
        space = text.find(" ", candidate, stop)
        newline = text.find("\n", candidate, stop)
        breaks = [b for b in (space, newline) if b != -1]
        if breaks:
            candidate = min(breaks) + 1
    return min(candidate, stop)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
