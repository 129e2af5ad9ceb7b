"""Link suggestions: embeddings proposing edges instead of pretending to be the graph.

For a note: the notes most similar to it (its own stored vector against the vector index, its chunks' hits rolled
up to their notes) that it is not linked to either way and that are above the note's similarity floor (as for the
vector channel of search), each with the cosine similarity and the passage of the other note that matched best.
Computed on every call and never stored; `accept` is what writes a real edge, with `origin: user`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from vaultgraph.domain import Item, Link, Note, Principal
from vaultgraph.errors import Conflict, InvalidInput, NotFound
from vaultgraph.graph import chunks as chunk_cypher
from vaultgraph.graph import items as item_cypher
from vaultgraph.graph import links as link_cypher
from vaultgraph.graph import search as cypher
from vaultgraph.graph.search import HitFilter
from vaultgraph.graph.session import Graph
from vaultgraph.services.indexing import current_model, note_embedding_text
from vaultgraph.services.links import link_type
from vaultgraph.services.search import SearchService, deepen, item_text
from vaultgraph.services.wikilink_sync import canonical_ref, item_key
from vaultgraph.text.lucene import query_terms
from vaultgraph.text.snippets import make_snippet

MAX_SUGGESTIONS = 50
DEFAULT_ACCEPT_TYPE = "RELATED"


@dataclass(frozen=True, slots=True)
class LinkSuggestion:
    target: Item
    similarity: float  # cosine between the note and the target (or the target's best chunk)
    passage: str  # the target's text that matched best, the note's title words marked


class SuggestionService:
    def __init__(self, graph: Graph, search: SearchService) -> None:
        self.graph = graph
        self.search = search

    async def _note(self, principal: Principal, note_id: str) -> Note:
        item = await self.graph.read(item_cypher.item_by_id, principal.tenant_id, note_id)
        keys = principal.visible_owner_keys()
        if not isinstance(item, Note) or (keys is not None and item.owner.key not in keys):
            raise NotFound(f"no note with id {note_id!r}", id=note_id)
        return item

    async def suggest(self, principal: Principal, note_id: str, limit: int = 10) -> list[LinkSuggestion]:
        if not 1 <= limit <= MAX_SUGGESTIONS:
            raise InvalidInput("limit", f"between 1 and {MAX_SUGGESTIONS}")
        note = await self._note(principal, note_id)
        model = current_model(self.search.embeddings.models)
        vector = await self.graph.read(chunk_cypher.item_embedding, principal.tenant_id, note.id, model)
        if vector is None:  # not indexed (model down at save) or by another model: embed it now, through the cache
            vector = await self.search.embeddings.embed(note_embedding_text(note))
        linked = await self.graph.read(cypher.linked_ids, principal.tenant_id, note.id)
        where = HitFilter(tenant=principal.tenant_id, owner_keys=principal.visible_owner_keys(), labels=["Note"],
                          exclude=[note.id, *sorted(linked)])
        hits = await deepen(lambda n: self.graph.read(cypher.vector_hits, vector, model, n, where), limit)
        # A suggestion must be worth a look: more like the note than unrelated text is, by the same floor as the
        # vector channel of search (no cosine constant: each model has its own range).
        floor = await self.search.similarity_floor(vector, principal.tenant_id)
        hits = [hit for hit in hits if floor is None or hit.raw > floor]
        items = await self.graph.read(item_cypher.items_by_ids, principal.tenant_id, [h.item_id for h in hits])
        terms = query_terms(note.title)
        return [
            LinkSuggestion(items[h.item_id], h.raw, make_snippet(h.passage or item_text(items[h.item_id]), terms).text)
            for h in hits if h.item_id in items
        ]

    async def accept(self, principal: Principal, note_id: str, target_id: str,
                     type: str = DEFAULT_ACCEPT_TYPE) -> Link:
        """Write the suggested edge as the user's own (`origin: user`); CONFLICT when that link exists."""
        kind = link_type(type)
        note = await self._note(principal, note_id)
        if not principal.may_write(note.owner):
            raise NotFound(f"no note with id {note_id!r}", id=note_id)
        target = await self.graph.read(item_cypher.item_by_id, principal.tenant_id, target_id)
        keys = principal.visible_owner_keys()
        if target is None or (keys is not None and target.owner.key not in keys):
            raise NotFound(f"no item with id {target_id!r}", id=target_id, field="targetId")
        if target.id == note.id:
            raise InvalidInput("targetId", "a note is not linked to itself")
        ref, key = canonical_ref(target), item_key(target)
        for existing, owner in await self.graph.read(link_cypher.links_with_key, principal.tenant_id, note.id, key,
                                                     kind):
            if owner is None or principal.sees_owner_key(owner):
                raise Conflict(f"{note.id} already has a {kind} link to {ref!r} ({existing})", id=existing)
        props = {"id": f"lnk_{uuid.uuid4().hex}", "ref": ref, "key": key, "origin": "user",
                 "confidence": None, "createdByAgentId": principal.agent_id}
        row = {"sourceId": note.id, "type": kind, "key": key, "targetId": target.id, "props": props}
        await self.graph.write(link_cypher.run_counted, link_cypher.WriteCount(), link_cypher.CREATE_RESOLVED,
                               tenant=principal.tenant_id, rows=[row])
        link = await self.graph.read(link_cypher.link_by_id, principal.tenant_id, props["id"])
        assert link is not None  # written just above
        return link
