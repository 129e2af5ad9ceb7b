"""What the MCP tools return: plain JSON-able dicts, small and self-describing, built from domain objects."""

from __future__ import annotations

from typing import Any

from vaultgraph.domain import Document, Item, Link, Note, Reached
from vaultgraph.services.context_pack import ContextPack
from vaultgraph.services.search import SearchHit

MAX_READ_CHARS = 20000  # what read_item returns of a long text; the rest is announced, never silently dropped


def item_view(item: Item) -> dict[str, Any]:
    base: dict[str, Any] = {"id": item.id, "type": type(item).__name__, "title": item.title,
                            "scope": item.owner.scope.name}
    if isinstance(item, Note):
        base.update(slug=item.slug, kind=item.kind, tags=list(item.tags), createdByAgentId=item.created_by_agent_id)
    else:
        base.update(path=item.path, docType=item.doc_type)
    return base


def hit_view(hit: SearchHit) -> dict[str, Any]:
    """A ranked hit; `rerankScore` too when a reranker ordered it (the results then come in its order), and `topic`
    when a topic of the document matched (its id, name and path)."""
    view = {**item_view(hit.item), "score": round(hit.score, 4), "snippet": hit.snippet().text}
    if hit.topic is not None:
        view["topic"] = {"id": hit.topic.id, "name": hit.topic.name, "path": list(hit.topic.path)}
    if hit.rerank is not None:
        view["rerankScore"] = round(hit.rerank.score, 4)
    return view


def linked_view(hit: SearchHit) -> dict[str, Any]:
    """A graph-mode item: what it is, and the link (from → to) that brought it in beside the ranked hits."""
    via = hit.via[-1]
    return {**item_view(hit.item), "score": round(hit.score, 4), "linkId": via.link_id, "linkType": via.type,
            "fromId": via.source.id, "toId": via.target.id}


def text_view(item: Item, text: str) -> dict[str, Any]:
    view = item_view(item)
    if isinstance(item, Document):
        view["summary"] = item.summary
    view["text"] = text[:MAX_READ_CHARS]
    view["truncated"] = len(text) > MAX_READ_CHARS
    return view


def link_view(link: Link, source: Item | None) -> dict[str, Any]:
    return {"id": link.id, "type": link.type, "from": item_view(source) if source else {"id": link.source_id},
            "toId": link.target_id, "ref": link.ref, "key": link.key, "origin": link.origin.name,
            "context": link.context, "createdByAgentId": link.created_by_agent_id}


def reached_view(reached: Reached) -> dict[str, Any]:
    return {**item_view(reached.item), "depth": reached.depth, "fromId": reached.from_id,
            "linkId": reached.via_link_id, "linkType": reached.via_type, "direction": reached.via_direction.value}


def pack_view(pack: ContextPack, used_tokens: int) -> dict[str, Any]:
    return {
        "text": pack.text, "usedTokens": used_tokens, "budgetTokens": pack.budget_tokens, "tokenizer": pack.tokenizer,
        "items": [{**item_view(i.item), "role": i.role.value, "reason": i.reason, "tokens": i.tokens,
                   "truncated": i.truncated} for i in pack.items],
        "omitted": [{**item_view(o.item), "role": o.role.value, "reason": o.reason} for o in pack.omitted],
    }
