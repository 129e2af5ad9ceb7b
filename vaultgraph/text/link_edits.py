"""Rewriting the target of chosen links in a markdown source, the rest of the text untouched: what a rename does
to the notes that link to the renamed one (Obsidian's "automatically update internal links").

Only the target text changes: the heading, block id, alias, the ``!`` of an embed, a final ``.md`` and the
spacing inside the brackets stay as written. The links are the parser's (text/wikilinks.py), so nothing inside
code, comments or HTML is touched, and front-matter links are rewritten like body links."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from vaultgraph.text.wikilinks import WikiLink, parse

# Given a link, the new target text (without ``.md``), or None to leave it as it is.
Retarget = Callable[[WikiLink], str | None]


def _wikilink_target_span(source: str, link: WikiLink) -> tuple[int, int]:
    """Where the target text of a ``[[…]]`` sits in ``source``, ``.md`` included, spacing excluded."""
    inner_start = link.start + (3 if link.embed else 2)
    inner = source[inner_start : link.end - 2]
    pipe = inner.find("|")
    text = inner[:pipe].removesuffix("\\") if pipe > 0 else inner
    target = text.partition("#")[0]
    lead = len(target) - len(target.lstrip())
    return inner_start + lead, inner_start + lead + len(target.strip())


def _markdown_dest_span(source: str, link: WikiLink) -> tuple[int, int, bool]:
    """Where the destination path of a ``[text](dest)`` sits (anchor excluded), and whether it is in ``<…>``."""
    open_paren = source.index("](", link.start, link.end) + 2
    start = open_paren
    while source[start] in " \t":
        start += 1
    bracketed = source[start] == "<"
    if bracketed:
        start += 1
        stop = source.index(">", start)
    else:
        stop = start
        while stop < link.end and source[stop] not in " \t)":
            stop += 1
    anchor = source.find("#", start, stop)
    return start, anchor if anchor != -1 else stop, bracketed


def _with_suffix(old: str, new: str) -> str:
    return new + old[-3:] if old[-3:].casefold() == ".md" else new


def retarget_links(markdown: str, retarget: Retarget) -> tuple[str, int]:
    """``markdown`` with the target of every link ``retarget`` names replaced, and how many links changed."""
    parsed = parse(markdown)
    edits: list[tuple[int, int, str]] = []
    for link in parsed.frontmatter_links + parsed.links:
        new = retarget(link)
        if new is None:
            continue
        start, end = _wikilink_target_span(markdown, link)
        replacement = _with_suffix(markdown[start:end], new)
        if replacement != markdown[start:end]:
            edits.append((start, end, replacement))
    for link in parsed.markdown_links:
        new = retarget(link)
        if new is None:
            continue
        start, end, bracketed = _markdown_dest_span(markdown, link)
        old = markdown[start:end]
        replacement = _with_suffix(old, new)
        replacement = replacement if bracketed else quote(replacement, safe="/.-_~!$&'()*+,;=:@")
        if replacement != old:
            edits.append((start, end, replacement))
    for start, end, replacement in sorted(edits, reverse=True):
        markdown = markdown[:start] + replacement + markdown[end:]
    return markdown, len(edits)
