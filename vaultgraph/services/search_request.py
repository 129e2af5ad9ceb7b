"""What a search may ask for: the request, its bounds and checks, and the filter it becomes: the `HitFilter` the
channels' queries apply in Neo4j, and `passes`, the same filter applied to an item graph mode reaches by a link.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from vaultgraph.domain import Document, Item, Note, Principal, Scope
from vaultgraph.errors import InvalidInput
from vaultgraph.graph.search import HitFilter
from vaultgraph.services.fusion import FusionMethod
from vaultgraph.workspace.formats import DOC_TYPES_BY_SUFFIX, FALLBACK_DOC_TYPE

MAX_QUERY_CHARS = 2000
MAX_LIMIT = 100
MAX_FILTER_VALUES = 50
ITEM_LABELS = {"document": "Document", "note": "Note"}
# Types a filter may name before any item has them: the note kinds of the design and the document types given by
# a file suffix. Any other name must be the kind or document type of an item the caller can see.
STANDARD_TYPES = frozenset({"note", "daily", "moc", "literature", "meeting", FALLBACK_DOC_TYPE,
                            *DOC_TYPES_BY_SUFFIX.values()})


class SearchMode(enum.Enum):
    KEYWORD = "KEYWORD"
    VECTOR = "VECTOR"
    HYBRID = "HYBRID"
    GRAPH = "GRAPH"


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    mode: SearchMode = SearchMode.HYBRID
    scope: Scope | None = None
    types: Sequence[str] | None = None
    tags: Sequence[str] | None = None
    limit: int = 10
    min_score: float | None = None
    fusion: FusionMethod | None = None
    exclude_ids: Sequence[str] = ()
    categories: Sequence[str] | None = None  # EverOS's category filter: documents of any of these categories
    rerank: bool = True  # the configured reranker's second stage; internal callers that only threshold scores skip it


def clean_list(values: Sequence[str] | None, name: str) -> list[str] | None:
    if not values:
        return None
    if len(values) > MAX_FILTER_VALUES:
        raise InvalidInput(name, f"at most {MAX_FILTER_VALUES} values")
    cleaned = [value.strip() for value in values if value.strip()]
    return cleaned or None


def validate(request: SearchRequest) -> None:
    if not request.query.strip():
        raise InvalidInput("query", "must not be empty")
    if len(request.query) > MAX_QUERY_CHARS:
        raise InvalidInput("query", f"at most {MAX_QUERY_CHARS} characters")
    if not 1 <= request.limit <= MAX_LIMIT:
        raise InvalidInput("limit", f"between 1 and {MAX_LIMIT}")
    if request.min_score is not None and not 0.0 <= request.min_score <= 1.0:
        raise InvalidInput("minScore", "between 0 and 1")


def hit_filter(principal: Principal, request: SearchRequest, categories: list[str] | None = None) -> HitFilter:
    """The request's filters; `categories` as the taxonomy spells them (SearchService.check_categories)."""
    types = clean_list(request.types, "types") or []
    labels = [ITEM_LABELS[t.casefold()] for t in types if t.casefold() in ITEM_LABELS]
    kinds = [t for t in types if t.casefold() not in ITEM_LABELS]
    tags = [tag.lstrip("#") for tag in clean_list(request.tags, "tags") or []]
    return HitFilter(
        tenant=principal.tenant_id, owner_keys=principal.visible_owner_keys(),
        scope=request.scope.value if request.scope else None, labels=labels or None, kinds=kinds or None,
        tags=tags or None, exclude=list(request.exclude_ids), categories=categories,
    )


def passes(item: Item, where: HitFilter) -> bool:
    """The request's scope, type, tag and category filters, applied to an item reached by a link."""
    if where.exclude and item.id in where.exclude:
        return False
    if where.scope is not None and item.owner.scope.value != where.scope:
        return False
    if where.labels is not None or where.kinds is not None:
        label = "Note" if isinstance(item, Note) else "Document"
        kind = item.kind if isinstance(item, Note) else item.doc_type
        if label not in (where.labels or []) and kind not in (where.kinds or []):
            return False
    if where.tags is not None:
        tags = item.tags if isinstance(item, Note) else ()
        if not set(tags) & set(where.tags):
            return False
    if where.categories is not None:
        category = item.category if isinstance(item, Document) else None
        if category not in where.categories:
            return False
    return True
