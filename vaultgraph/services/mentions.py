"""Unlinked mentions of a note (Obsidian's backlinks pane): other notes that write its title or an alias as plain
text, each mention with a snippet and the [[wikilink]] that would replace it.

The full-text index finds the candidates (a phrase of a name in a note's searchText, its title and body, as the
English analyzer reads it: stemmed, so broader than the name); each candidate's body is then read with the
wikilink parser's own masking (text/mentions.py), so a name inside a link, code, a URL or a tag never counts. Only
mentions that can become a link to this note are kept: the link written in that note (the note's bare name, else
its path) must resolve to it, as saveNote would resolve it (a shared note cannot link to someone's personal note, a
nearer note of the same name takes a bare name). Visibility is the backlinks' rule: notes the caller may read, of
its tenant; archived notes are left out, like the search's.
"""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note, Page, Principal
from vaultgraph.errors import NotFound
from vaultgraph.graph import items as item_cypher
from vaultgraph.graph import mentions as cypher
from vaultgraph.graph.search_text import SEARCH_TEXT_FIELD
from vaultgraph.graph.session import Graph
from vaultgraph.services.note_reads import note_cursor
from vaultgraph.services.note_renames import new_names
from vaultgraph.services.pagination import encode_cursor, page_size, timestamp_cursor
from vaultgraph.services.wikilink_sync import key_in, resolve_refs_many
from vaultgraph.text.lucene import phrase_query
from vaultgraph.text.mentions import TextMention, find_mentions, link_for, mention_names

MAX_PAGE = 50
"""Notes a page of mentions holds at most (each one's whole body is read to confirm its mentions)."""
MAX_PER_NOTE = 20
"""Mentions listed per note at most; `count` says how many the note holds."""
MAX_SCANNED = 500
"""Candidate notes one page reads at most; past it the page ends early (fewer than `first` notes, `hasNextPage`
true, `endCursor` after the last note read), so a name common in code or links costs bounded work per request."""


@dataclass(frozen=True, slots=True)
class Mention:
    """One plain-text mention in `UnlinkedMention.source`, with the link that replaces it."""

    text: TextMention
    link: str


@dataclass(frozen=True, slots=True)
class UnlinkedMention:
    """A note that mentions the target without linking it there: its first mentions and how many it holds."""

    source: Note
    mentions: tuple[Mention, ...]
    count: int


@dataclass(frozen=True, slots=True)
class MentionPage:
    """A page of unlinked mentions; `resume_cursor`: where to go on when MAX_SCANNED ended the scan after the page's
    last note (the page's `endCursor` then), else None."""

    page: Page[UnlinkedMention]
    resume_cursor: str | None = None


class MentionService:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    async def page(self, principal: Principal, note_id: str, first: int | None = None,
                   after: str | None = None) -> MentionPage:
        """The notes mentioning the note `note_id` in plain text, most recently updated first; INVALID_INPUT for a
        page size past MAX_PAGE or a cursor this API did not return, NOT_FOUND for a note the caller cannot see."""
        size = page_size(first, MAX_PAGE)
        cursor = timestamp_cursor(after)
        return await self.graph.read(self._page_tx, principal, note_id, size, cursor)

    async def _page_tx(self, tx: AsyncManagedTransaction, principal: Principal, note_id: str, size: int,
                       cursor: tuple[str | None, str | None]) -> MentionPage:
        note = await item_cypher.item_by_id(tx, principal.tenant_id, note_id)
        if not isinstance(note, Note) or not principal.may_read(note.owner):
            raise NotFound(f"no note with id {note_id!r}", id=note_id)
        names = mention_names(note.title, note.frontmatter)
        lucene = phrase_query(names, SEARCH_TEXT_FIELD, principal.tenant_id)
        found: list[UnlinkedMention] = []
        scanned, last_read, more = 0, cursor, False
        while lucene is not None:
            batch = min(size + 1 - len(found), MAX_SCANNED - scanned)
            rows = await cypher.mention_candidates(tx, principal.tenant_id, note.id, lucene,
                                                   principal.visible_owner_keys(), last_read, batch)
            scanned += len(rows)
            if rows:
                last_read = (rows[-1].updated_at.isoformat(), rows[-1].id)
            found += await _linkable(tx, note, names, rows)
            if len(found) > size:
                more = True
                break
            if len(rows) < batch:
                break  # the index ran dry
            if scanned >= MAX_SCANNED:
                more = True  # the bound stopped the scan; the cursor goes on from the last note read
                break
        page = Page(items=[(note_cursor(m.source), m) for m in found[:size]], has_next_page=more)
        stopped = more and len(found) <= size and last_read[0] is not None
        return MentionPage(page, encode_cursor(*last_read) if stopped else None)


async def _linkable(tx: AsyncManagedTransaction, note: Note, names: list[str],
                    sources: list[Note]) -> list[UnlinkedMention]:
    """The `sources` that mention `note` in plain text where a link to it would resolve to it, each with its
    mentions; the link text: the note's bare name where it leads there, else its path (text/mentions.link_for)."""
    mentioned = [(source, find_mentions(source.body, names)) for source in sources]
    mentioned = [(source, mentions) for source, mentions in mentioned if mentions]
    if not mentioned:
        return []
    texts = dict.fromkeys(new_names(note))  # the bare name first, then the path (once when they are one)
    keyed = [[(text, key) for text in texts if (key := key_in(source, text)) is not None] for source, _ in mentioned]
    resolved = await resolve_refs_many(tx, [(source, [key for _, key in pairs])
                                            for (source, _), pairs in zip(mentioned, keyed, strict=True)])
    kept: list[UnlinkedMention] = []
    for (source, mentions), pairs, targets in zip(mentioned, keyed, resolved, strict=True):
        target = next((text for text, key in pairs if targets.get(key) == note.id), None)
        if target is None:
            continue
        shown = tuple(Mention(m, link_for(m.text, target, m.in_table)) for m in mentions[:MAX_PER_NOTE])
        kept.append(UnlinkedMention(source, shown, len(mentions)))
    return kept
