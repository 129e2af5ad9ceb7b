"""A note, or a page of notes, together with the link connections a request asks of them: one statement.

The GraphQL layer reads the selection and asks for it here; what comes back is what `NoteService.get_by_slug`,
`get`, `page` and `LinkService.pages`/`counts` would give for the same arguments, read in one round trip instead
of one transaction each. A connection whose arguments are invalid is left out (its answer is None), so the field
asks for it the usual way and reports its own error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vaultgraph.domain import Link, Note, Page, Principal
from vaultgraph.errors import InvalidInput, NotFound
from vaultgraph.graph import whole_reads as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.services.links import link_cursor, link_page_params
from vaultgraph.services.note_drafts import NoteFilter
from vaultgraph.services.note_reads import note_cursor, note_page_params
from vaultgraph.services.pagination import Window, timestamp_cursor, window

# A request asking for more connections per note than this reads them the usual way (a statement grows with them).
MAX_ASKS = 4


@dataclass(frozen=True, slots=True)
class ConnectionAsk:
    """One `outgoing`/`backlinks` connection selected on a note: its arguments and what it needs."""

    outgoing: bool
    types: list[str] | None
    first: int | None
    after: str | None
    page: bool  # edges, nodes or pageInfo
    count: bool  # totalCount
    summaries: bool = False  # the links' ends may come without their text (graph/records.py ITEM_SUMMARY_FIELDS)


@dataclass(frozen=True, slots=True)
class ConnectionAnswer:
    page: Page[Link] | None  # with `total_count` when the count was asked too, else 0 (as LinkService.pages)
    total: int | None


class WholeReads:
    def __init__(self, graph: Graph, max_page_size: int) -> None:
        self.graph = graph
        self.max_page_size = max_page_size

    def _plan(
        self, principal: Principal, asks: Sequence[ConnectionAsk]
    ) -> tuple[list[cypher.LinkAsk], dict[str, Any], list[Window | None]]:
        """The statement's parts for the valid asks, their parameters, and per ask its window (None: left out)."""
        parts: list[cypher.LinkAsk] = []
        params: dict[str, Any] = {}
        spans: list[Window | None] = []
        for ask in asks[:MAX_ASKS]:
            try:
                span, link_params = link_page_params(principal, ask.types, ask.first, ask.after, self.max_page_size)
            except InvalidInput:
                spans.append(None)
                continue
            params.update(cypher.link_params(len(parts), link_params))
            parts.append(cypher.link_ask(ask.outgoing, ask.page, ask.count, link_params, ask.summaries))
            spans.append(span)
        spans += [None] * (len(asks) - len(spans))
        return parts, params, spans

    @staticmethod
    def _answers(results: list[cypher.LinkResult], spans: list[Window | None]) -> list[ConnectionAnswer | None]:
        answers: list[ConnectionAnswer | None] = []
        found = iter(results)
        for span in spans:
            if span is None:
                answers.append(None)
                continue
            result = next(found)
            page = None
            if result.links is not None:
                page = span.page(result.links, link_cursor, result.total or 0)
            answers.append(ConnectionAnswer(page, result.total))
        return answers

    async def note(
        self, principal: Principal, asks: Sequence[ConnectionAsk], id: str | None = None, slug: str | None = None
    ) -> tuple[Note, list[ConnectionAnswer | None]]:
        """`NoteService.get(id)` or `get_by_slug(slug)` (the same NOT_FOUND), with the asked connections."""
        parts, params, spans = self._plan(principal, asks)
        params["tenant"] = principal.tenant_id
        if slug is not None:
            params.update(slug=slug, ownerKeys=principal.visible_owner_keys(),
                          preferOwner=f"agent:{principal.agent_id}" if principal.agent_id else "shared")
        else:
            params["id"] = id
        found = await cypher.note_with_links(self.graph, parts, **params)
        if found is not None and slug is None and not principal.may_read(found[0].owner):
            found = None
        if found is None:
            if slug is not None:
                raise NotFound(f"no note with slug {slug!r}", slug=slug)
            raise NotFound(f"no note with id {id!r}", id=id)
        note, results = found
        return note, self._answers(results, spans)

    async def notes_page(
        self, principal: Principal, filters: NoteFilter, first: int | None, after: str | None,
        asks: Sequence[ConnectionAsk], last: int | None = None, before: str | None = None,
    ) -> tuple[Page[Note], dict[str, list[ConnectionAnswer | None]]]:
        """`NoteService.page` (the same page, total and errors), with the asked connections of every note."""
        span = window(first, after, last, before, self.max_page_size, timestamp_cursor)
        parts, params, spans = self._plan(principal, asks)
        params.update(note_page_params(principal, filters, span))
        rows, total = await cypher.notes_page_with_links(self.graph, parts, span.backward, **params)
        with_links = span.page(rows, lambda row: note_cursor(row[0]), total)
        page = Page(items=[(cursor, note) for cursor, (note, _) in with_links.items],
                    has_next_page=with_links.has_next_page, has_previous_page=with_links.has_previous_page,
                    total_count=total)
        return page, {note.id: self._answers(results, spans) for _, (note, results) in with_links.items}
