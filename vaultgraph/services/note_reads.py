"""The read side of notes: one note by id or slug, pages of the list, Bases-style property queries, tag counts.
Every read takes the tenant and answers only what the principal may read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vaultgraph.domain import Note, Page, Principal
from vaultgraph.errors import InvalidInput, NotFound
from vaultgraph.graph import notes as cypher
from vaultgraph.graph.note_query import query_page_and_total
from vaultgraph.graph.session import Graph
from vaultgraph.services.note_drafts import NoteFilter
from vaultgraph.services.note_query import parse_order, parse_where
from vaultgraph.services.pagination import Window, decode_cursor, encode_cursor, page_size, timestamp_cursor, window


def filter_params(principal: Principal, filters: NoteFilter) -> dict[str, Any]:
    """The parameters of graph/notes.py's list statements (pages and property queries) for these filters."""
    return {
        "tenant": principal.tenant_id, "ownerKeys": principal.visible_owner_keys(),
        "includeArchived": filters.include_archived, "scope": filters.scope.value if filters.scope else None,
        "kind": filters.kind, "tag": filters.tag, "pinned": filters.pinned,
    }


def note_page_params(principal: Principal, filters: NoteFilter, span: Window) -> dict[str, Any]:
    """The parameters of graph/notes.py's page statements for these filters and this window."""
    return {**filter_params(principal, filters), **span.params("Ts")}


def note_cursor(note: Note) -> str:
    """A note's cursor in the list of notes (most recently updated first)."""
    return encode_cursor(note.updated_at.isoformat(), note.id)


class NoteReads:
    """Finding and listing notes; `NoteService` (services/notes.py) adds the one write path to these."""

    def __init__(self, graph: Graph, max_page_size: int) -> None:
        self.graph = graph
        self.max_page_size = max_page_size

    async def find(self, principal: Principal, note_id: str) -> Note | None:
        note = await self.graph.read(cypher.note_by_id, principal.tenant_id, note_id)
        return note if note is not None and principal.may_read(note.owner) else None

    async def get(self, principal: Principal, note_id: str) -> Note:
        note = await self.find(principal, note_id)
        if note is None:
            raise NotFound(f"no note with id {note_id!r}", id=note_id)
        return note

    async def get_by_slug(self, principal: Principal, slug: str) -> Note:
        prefer = f"agent:{principal.agent_id}" if principal.agent_id else "shared"
        note = await self.graph.read(
            cypher.note_by_slug, principal.tenant_id, slug, principal.visible_owner_keys(), prefer
        )
        if note is None:
            raise NotFound(f"no note with slug {slug!r}", slug=slug)
        return note

    async def find_by_slugs(self, principal: Principal, slugs: Sequence[str]) -> dict[str, Note]:
        """For each slug, the note `get_by_slug` would give (absent when there is none), in one statement."""
        prefer = f"agent:{principal.agent_id}" if principal.agent_id else "shared"
        return await self.graph.read(
            cypher.notes_by_slugs, principal.tenant_id, list(slugs), principal.visible_owner_keys(), prefer
        )

    async def page(self, principal: Principal, filters: NoteFilter, first: int | None, after: str | None,
                   last: int | None = None, before: str | None = None) -> Page[Note]:
        """Notes, most recently updated first, between the cursors: the first `first` or the last `last`."""
        span = window(first, after, last, before, self.max_page_size, timestamp_cursor)
        rows, total = await self.graph.read(cypher.notes_page_and_total, span.backward,
                                            **note_page_params(principal, filters, span))
        return span.page(rows, note_cursor, total)

    async def query(self, principal: Principal, filters: NoteFilter, where: Any, order_by: Any,
                    first: int | None, after: str | None) -> Page[Note]:
        """A Bases-style property query (services/note_query.py): the notes matching the list filters and
        `where`, sorted by `order_by` (nulls last) then the newest first. Its cursors are positions: a note saved
        meanwhile may shift a later page by one."""
        tree, sorts = parse_where(where), parse_order(order_by)
        limit = page_size(first, self.max_page_size)
        offset = 0
        if after:
            marker, position = decode_cursor(after, 2)
            if marker != "at" or not position.isdigit():
                raise InvalidInput("after", "not a cursor this query returned")
            offset = int(position) + 1
        params = {**filter_params(principal, filters), "offset": offset, "limit": limit + 1}
        rows, total = await self.graph.read(query_page_and_total, tree, sorts, **params)
        items = [(encode_cursor("at", str(offset + i)), note) for i, note in enumerate(rows[:limit])]
        return Page(items=items, has_next_page=len(rows) > limit, total_count=total)

    async def get_writable(self, principal: Principal, note_id: str) -> Note:
        note = await self.get(principal, note_id)
        if not principal.may_write(note.owner):
            raise NotFound(f"no note with id {note_id!r}", id=note_id)
        return note

    async def tags(self, principal: Principal) -> list[tuple[str, int]]:
        return await self.graph.read(cypher.tag_counts, principal.tenant_id, principal.visible_owner_keys())
