"""The one wikilink and ``#tag`` parser: pure functions, no I/O, Obsidian's grammar.

``[[T]]``, ``[[T|Alias]]``, ``[[T#Heading]]``, ``[[T#H1#H2|Alias]]``, ``[[T#^block]]``, ``[[#Heading]]`` (the
same note, target ``""``) and ``![[T]]`` embeds, which Obsidian counts as links. The rules follow the shared
conformance cases (captured Obsidian behaviour):

- the link text splits at the first ``|`` into link and alias, but only when something precedes it
  (``[[|alias]]`` is a link to ``"|alias"``); ``\\|``, the form used inside tables, is the same separator;
- the link splits at the first ``#`` into target and heading; a heading starting with ``^`` is a block id;
- the target is trimmed and loses a final ``.md``; headings, block ids and aliases are trimmed;
- nothing inside fenced code, inline code, HTML comments or HTML tags counts, and ``\\[[x]]`` is no link; code
  spans bind first, so a code span around a link (or across its end) hides it, while one inside its alias belongs
  to it, backticks kept: ``[[Functions#hasTag|`hasTag`]]`` (from Obsidian's own help vault);
  ``%%comments%%`` do not hide links or tags (Obsidian indexes them);
- front matter is not body: its links and ``tags`` property are reported apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from vaultgraph.text.frontmatter import find_frontmatter, frontmatter_scan, frontmatter_tags
from vaultgraph.text.masking import MASK, is_escaped, mask_markup, mask_spans, masks_only_code
from vaultgraph.text.resolve import resolve, resolve_workspace
from vaultgraph.text.tags import find_tags

__all__ = ["CONTEXT_CHARS", "ParsedText", "WikiLink", "context_span", "link_context", "parse", "resolve",
           "resolve_workspace"]

CONTEXT_CHARS = 25
_SPACE = re.compile(r"\s+")
"""How many characters of source either side of a link make up its ``context``."""

# The link text cannot hold brackets or a line break, so "[[a [[b]]" links to "b" only. Masked text may only be
# in the alias, and only code (checked by `_link_text`): "[[T|`code`]]" is a link, "`[[T]]`" is code.
_LINK = re.compile(
    rf"(?P<bang>!?)\[\[(?P<inner>[^\[\]\n|{MASK}]+(?:\|[^\[\]\n]*)?|\|[^\[\]\n]*)\]\]"
)


@dataclass(frozen=True, slots=True)
class WikiLink:
    """One ``[[…]]`` or ``![[…]]``; ``source[start:end]`` is its text, ``!`` included for an embed."""

    target: str
    heading: str | None
    block: str | None
    alias: str | None
    embed: bool
    start: int
    end: int
    context: str

    @property
    def is_self_link(self) -> bool:
        """``[[#Heading]]`` and ``[[#^block]]`` point into the note that holds them."""
        return self.target == ""


@dataclass(frozen=True, slots=True)
class ParsedText:
    """Links and tags of one markdown source, in source order.

    ``tags`` keeps every occurrence, as Obsidian's metadata cache does; ``unique_tags`` is the deduplicated set
    (tags compare case-insensitively in Obsidian, the first spelling wins).
    """

    links: tuple[WikiLink, ...]
    tags: tuple[str, ...]
    frontmatter_links: tuple[WikiLink, ...] = ()
    frontmatter_tags: tuple[str, ...] = ()
    markdown_links: tuple[WikiLink, ...] = ()

    @property
    def all_links(self) -> tuple[WikiLink, ...]:
        """Front-matter links, body wikilinks, then internal markdown links: Obsidian resolves and counts all."""
        return self.frontmatter_links + self.links + self.markdown_links

    @property
    def unique_tags(self) -> tuple[str, ...]:
        """Front-matter and body tags, each once, compared case-insensitively, first spelling kept."""
        seen: dict[str, str] = {}
        for tag in self.frontmatter_tags + self.tags:
            seen.setdefault(tag.casefold(), tag)
        return tuple(seen.values())


def _strip_md(target: str) -> str:
    return target[:-3] if target[-3:].lower() == ".md" else target


def context_span(source: str, start: int, end: int, region: tuple[int, int] | None = None,
                 chars: int = CONTEXT_CHARS) -> tuple[int, int]:
    """Where the context of `source[start:end]` starts and ends: about `chars` either side (within `region`, all of
    `source` by default), in whole words: an edge that would cut a word moves inward to the nearest space (a side
    that is one word, touching the span, stays as it is)."""
    region = region or (0, len(source))
    left, right = max(region[0], start - chars), min(region[1], end + chars)
    if left > region[0] and not source[left - 1].isspace():
        space = _SPACE.search(source, left, start)
        left = space.end() if space else left
    if right < region[1] and not source[right].isspace():
        spaces = list(_SPACE.finditer(source, end, right))
        right = spaces[-1].start() if spaces else right
    return left, right


def link_context(source: str, start: int, end: int, region: tuple[int, int] | None = None) -> str:
    """About CONTEXT_CHARS either side of the link `source[start:end]` (`context_span`), whitespace collapsed."""
    left, right = context_span(source, start, end, region)
    return " ".join(source[left:right].split())


def _link_text(source: str, scan: str, start: int, end: int) -> str | None:
    """``source[start:end]``, the text of a link, unless masked text other than code spans in the alias is in it."""
    pipe = scan.find("|", start, end)
    alias_start = pipe + 1 if pipe > start else end  # "[[|x]]" has no alias: all of it is the target
    if MASK in scan[start:alias_start] or not masks_only_code(source, scan, alias_start, end):
        return None
    return source[start:end]


def _link(source: str, inner: str, embed: bool, span: tuple[int, int], region: tuple[int, int]) -> WikiLink | None:
    if not inner.strip():
        return None
    text, alias = inner, None
    pipe = inner.find("|")
    if pipe > 0:
        text = inner[:pipe].removesuffix("\\")
        alias = inner[pipe + 1 :].strip() or None
    target, has_anchor, anchor = text.partition("#")
    heading = block = None
    if has_anchor:
        anchor = anchor.strip()
        if anchor.startswith("^"):
            block = anchor[1:].strip() or None
        else:
            heading = anchor or None
    return WikiLink(
        target=_strip_md(target.strip()),
        heading=heading,
        block=block,
        alias=alias,
        embed=embed,
        start=span[0],
        end=span[1],
        context=link_context(source, span[0], span[1], region),
    )


# `[text](dest)` and `![alt](dest)` to a file of the vault: a destination in <…> or without spaces, an optional title.
_MARKDOWN_LINK = re.compile(
    rf'(?P<bang>!?)\[(?P<text>[^\[\]\n]*)\]\(\s*(?P<dest><[^<>\n{MASK}]*>|[^\s(){MASK}]*)(?:\s+"[^"\n]*")?\s*\)'
)
_EXTERNAL = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")


def _find_markdown_links(source: str, scan: str, region: tuple[int, int]) -> Iterator[WikiLink]:
    """Internal markdown links, which Obsidian indexes like wikilinks; URLs with a scheme are not links to notes."""
    for found in _MARKDOWN_LINK.finditer(scan):
        dest = found["dest"].strip("<>").strip()
        if not dest or _EXTERNAL.match(dest) or is_escaped(scan, found.start()):
            continue
        if not masks_only_code(source, scan, found.start("text"), found.end("text")):
            continue  # link text may hold code spans, not a comment or an HTML tag
        target, has_anchor, anchor = unquote(dest).partition("#")
        heading = block = None
        if has_anchor:
            if anchor.startswith("^"):
                block = anchor[1:].strip() or None
            else:
                heading = anchor.strip() or None
        text = source[found.start("text") : found.end("text")]  # the source's: the scan masks code in it
        yield WikiLink(
            target=_strip_md(target.strip()), heading=heading, block=block, alias=text.strip() or None,
            embed=bool(found["bang"]), start=found.start(), end=found.end(),
            context=link_context(source, found.start(), found.end(), region),
        )


def _find_links(source: str, scan: str, region: tuple[int, int]) -> Iterator[WikiLink]:
    """Links found in ``scan``; their context never reaches outside ``region`` (body or front matter)."""
    for found in _LINK.finditer(scan):
        start = found.start()
        embed = bool(found["bang"])
        if embed and is_escaped(scan, start):
            embed, start = False, start + 1  # "\![[x]]" is a plain link after a literal "!"
        elif not embed and is_escaped(scan, start):
            continue  # "\[[x]]" is literal text
        inner = _link_text(source, scan, found.start("inner"), found.end("inner"))
        if inner is None:
            continue
        link = _link(source, inner, embed, (start, found.end()), region)
        if link is not None:
            yield link


def parse(markdown: str) -> ParsedText:
    """Every wikilink, embed and inline tag of ``markdown``, plus front-matter links and ``tags``."""
    span = find_frontmatter(markdown)
    body_start = span.end if span else 0
    scan = mask_markup(markdown, body_start)
    links = tuple(_find_links(markdown, scan, (body_start, len(markdown))))
    markdown_links = tuple(_find_markdown_links(markdown, scan, (body_start, len(markdown))))
    # Link text is no place for tags: "[[#Heading|x]]" names a heading, not the tag "Heading".
    tag_scan = mask_spans(scan, [(link.start, link.end) for link in links])
    tags = tuple(name for name, _, _ in find_tags(tag_scan))
    if span is None:
        return ParsedText(links=links, tags=tags, markdown_links=markdown_links)
    return ParsedText(
        links=links,
        tags=tags,
        markdown_links=markdown_links,
        frontmatter_links=tuple(
            _find_links(markdown, frontmatter_scan(markdown, span), (span.yaml_start, span.yaml_end))
        ),
        frontmatter_tags=frontmatter_tags(markdown, span),
    )
