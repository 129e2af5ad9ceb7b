"""The fuzzy pass of the save pipeline, and the review list of unresolved refs.

For each ghost ref of a saved note (at most MAX_REFS_PER_SAVE, each asked about once): hybrid-search the author's
display text (`[[Octipus Architecture]]` is a better query than `octipus-architecture`) over notes the linking
note may link to, floor FUZZY_FLOOR, at most MAX_CANDIDATES titled notes other than itself; the chat model says
which one *is* the linked note, or none; the edge binds with the candidate's score as confidence. With no chat
model it is a logged no-op, and nothing here can fail a save.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import structlog

from vaultgraph.domain import Item, Note, Principal
from vaultgraph.errors import InvalidInput
from vaultgraph.graph import guesses as cypher
from vaultgraph.graph.items import items_by_ids
from vaultgraph.graph.session import Graph
from vaultgraph.models.client import ModelClient
from vaultgraph.services.fuzzy_prompt import InvalidMatch, MatchCandidate, match_prompt, parse_match
from vaultgraph.services.indexing import Indexer
from vaultgraph.services.search import SearchService, item_text
from vaultgraph.services.search_request import SearchMode, SearchRequest
from vaultgraph.services.wikilink_sync import target_owners

log = structlog.get_logger(__name__)

FUZZY_FLOOR = 0.35
MAX_CANDIDATES = 3
MAX_REFS_PER_SAVE = 5
MAX_GHOSTS = 50
SOURCES_PER_GHOST = 10
MATCH_TEMPERATURE = 0.0
MATCH_MAX_TOKENS = 50


@dataclass(frozen=True, slots=True)
class Candidate:
    item: Item
    score: float


@dataclass(frozen=True, slots=True)
class Ghost:
    """An unresolved ref, who links to it, and the notes it might mean (for a person to review)."""

    ref: str
    text: str
    links: int
    sources: list[Item]
    candidates: list[Candidate]


class FuzzyResolver:
    def __init__(self, graph: Graph, search: SearchService, models: ModelClient) -> None:
        self.graph = graph
        self.search = search
        self.models = models

    async def candidates(self, principal: Principal, text: str, owners: list[str] | None = None,
                         exclude: tuple[str, ...] = ()) -> list[Candidate]:
        """Up to MAX_CANDIDATES titled notes scoring at least FUZZY_FLOOR for `text`, in the given owners."""
        # Not reranked: the chat model picks among the candidates, whose fused scores the floor already chose, and
        # a save (this runs after one) must not wait on a rerank endpoint too.
        request = SearchRequest(query=text[:2000], mode=SearchMode.HYBRID, types=("Note",), limit=MAX_CANDIDATES * 3,
                                min_score=FUZZY_FLOOR, exclude_ids=exclude, rerank=False)
        result = await self.search.search(principal, request)
        found = [Candidate(hit.item, hit.score) for hit in result.hits
                 if hit.item.title.strip() and (owners is None or hit.item.owner.key in owners)]
        return found[:MAX_CANDIDATES]

    async def resolve_note(self, principal: Principal, note: Note) -> int:
        """Guess bindings for the note's untried ghost refs; the number of edges bound. Never raises."""
        if not self.models.chat_available:
            log.info("fuzzy link pass skipped: no chat model", note_id=note.id)
            return 0
        try:
            return await self._resolve(principal, note)
        except Exception as exc:  # a link that cannot be guessed must never fail a note save
            log.warning("fuzzy link pass failed", note_id=note.id, error=str(exc)[:300],
                        exc_info=not hasattr(exc, "code"))
            return 0

    async def _resolve(self, principal: Principal, note: Note) -> int:
        edges = await self.graph.read(cypher.untried_ghost_edges, note.tenant_id, note.id, MAX_REFS_PER_SAVE)
        bound = 0
        for edge in edges:
            candidates = await self.candidates(principal, edge.text, target_owners(note), (note.id,))
            choice = await self._ask(edge, candidates) if candidates else None
            if choice is None:
                await self.graph.write(cypher.mark_checked, note.tenant_id, edge.link_id)
                continue
            bound += await self.graph.write(cypher.bind_guess, note.tenant_id, edge.link_id, choice.item.id,
                                            round(choice.score, 4))
        return bound

    async def _ask(self, edge: cypher.GhostEdge, candidates: list[Candidate]) -> Candidate | None:
        prompt = [MatchCandidate(c.item.title, item_text(c.item)) for c in candidates]
        system, user = match_prompt(edge.text, edge.context, prompt)
        answer = await self.models.chat_json(system, user, temperature=MATCH_TEMPERATURE, max_tokens=MATCH_MAX_TOKENS)
        try:
            index = parse_match(answer, len(candidates))
        except InvalidMatch as exc:
            log.warning("fuzzy link answer ignored", link_id=edge.link_id, reason=str(exc))
            return None
        return candidates[index] if index is not None else None

    async def ghosts(self, principal: Principal, first: int = 20) -> list[Ghost]:
        """Unresolved refs the principal can see, most linked first, each with its best candidates."""
        if not 1 <= first <= MAX_GHOSTS:
            raise InvalidInput("first", f"between 1 and {MAX_GHOSTS}")
        refs = await self.graph.read(cypher.ghosts, principal.tenant_id, principal.visible_owner_keys(), first,
                                     SOURCES_PER_GHOST)
        ids = sorted({source for ref in refs for source in ref.source_ids})
        items = await self.graph.read(items_by_ids, principal.tenant_id, ids)
        ghosts = []
        for ref in refs:
            sources = [items[i] for i in ref.source_ids if i in items]
            candidates = await self.candidates(principal, ref.text, exclude=tuple(ref.source_ids))
            ghosts.append(Ghost(ref.ref, ref.text, ref.links, sources, candidates))
        return ghosts


def save_hook(
    indexer: Indexer, resolver: FuzzyResolver
) -> Callable[[Principal, Sequence[Note]], Awaitable[list[bool]]]:
    """NoteService's indexer hook: index the saved notes together, then run the fuzzy pass on each; returns whether
    each note is indexed."""

    async def hook(principal: Principal, notes: Sequence[Note]) -> list[bool]:
        indexed = await indexer.index_notes(principal, notes)
        for note in notes:
            await resolver.resolve_note(principal, note)
        return indexed

    return hook
