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
from vaultgraph.services.links import link_page, link_page_params
from vaultgraph.services.notes import NoteFilter
from vaultgraph.services.pagination import encode_cursor, page_size, timestamp_cursor

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
    ) -> tuple[list[cypher.LinkAsk], dict[str, Any], list[int | None]]:
        """The statement's parts for the valid asks, their parameters, and per ask its page size (None: left out)."""
        parts: list[cypher.LinkAsk] = []
        params: dict[str, Any] = {}
        limits: list[int | None] = []
        for ask in asks[:MAX_ASKS]:
            try:
                limit, link_params = link_page_params(principal, ask.types, ask.first, ask.after, self.max_page_size)
            except InvalidInput:
                limits.append(None)
                continue
            params.update(cypher.link_params(len(parts), link_params))
            parts.append(cypher.LinkAsk(ask.outgoing, ask.page, ask.count))
            limits.append(limit)
        limits += [None] * (len(asks) - len(limits))
        return parts, params, limits

    @staticmethod
    def _answers(results: list[cypher.LinkResult], limits: list[int | None]) -> list[ConnectionAnswer | None]:
        answers: list[ConnectionAnswer | None] = []
        found = iter(results)
        for limit in limits:
            if limit is None:
                answers.append(None)
                continue
            result = next(found)
            page = None
            if result.links is not None:
                page = link_page(result.links, limit, result.total or 0)
            answers.append(ConnectionAnswer(page, result.total))
        return answers

    async def note(
        self, principal: Principal, asks: Sequence[ConnectionAsk], id: str | None = None, slug: str | None = None
    ) -> tuple[Note, list[ConnectionAnswer | None]]:
        """`NoteService.get(id)` or `get_by_slug(slug)` (the same NOT_FOUND), with the asked connections."""
        parts, params, limits = self._plan(principal, asks)
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
        return note, self._answers(results, limits)

    async def notes_page(
        self, principal: Principal, filters: NoteFilter, first: int | None, after: str | None,
        asks: Sequence[ConnectionAsk],
    ) -> tuple[Page[Note], dict[str, list[ConnectionAnswer | None]]]:
        """`NoteService.page` (the same page, total and errors), with the asked connections of every note."""
        limit = page_size(first, self.max_page_size)
        after_ts, after_id = timestamp_cursor(after)
        parts, params, limits = self._plan(principal, asks)
        params.update({
            "tenant": principal.tenant_id, "ownerKeys": principal.visible_owner_keys(),
            "includeArchived": filters.include_archived, "scope": filters.scope.value if filters.scope else None,
            "kind": filters.kind, "tag": filters.tag, "pinned": filters.pinned,
            "afterTs": after_ts, "afterId": after_id, "limit": limit + 1,
        })
        rows, total = await cypher.notes_page_with_links(self.graph, parts, **params)
        page = Page(items=[(encode_cursor(note.updated_at.isoformat(), note.id), note) for note, _ in rows[:limit]],
                    has_next_page=len(rows) > limit, total_count=total)
        return page, {note.id: self._answers(results, limits) for note, results in rows[:limit]}
