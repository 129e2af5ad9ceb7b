"""Records become domain values here, and only here.

Statements return map projections, never whole nodes: a node carries its 384-float embedding (and more), which
the driver would decode float by float only for it to be dropped. `note_map("n")`, `document_map("d")`,
`item_map("n")` and `link_map("r")` are the projection fragments every statement splices into its RETURN, so the
properties a record needs are named once, next to the function that reads them. The mapping functions still take
a whole node too (a `neo4j.graph.Node` reads like a map), for statements that have not moved to a projection.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from vaultgraph.domain import (
    Document,
    Enrichment,
    EnrichmentStage,
    Item,
    Link,
    LinkOrigin,
    Note,
    Owner,
    Scope,
    Topic,
)

_OWNER_FIELDS = ("id", "tenantId", "scope", "agentId", "teamId")
NOTE_FIELDS = (*_OWNER_FIELDS, "slug", "title", "body", "bodySha256", "frontmatter", "tags", "kind", "noteDate",
               "pinned", "archivedAt", "createdByAgentId", "indexed", "createdAt", "updatedAt", "vaultPath",
               "linkTeams")
DOCUMENT_FIELDS = (*_OWNER_FIELDS, "path", "title", "docType", "contentHash", "sizeBytes", "summary", "category",
                   "metadata", "enrichmentStage", "enrichmentError", "enrichmentUpdatedAt", "createdAt",
                   "updatedAt")
ITEM_FIELDS = tuple(dict.fromkeys((*NOTE_FIELDS, *DOCUMENT_FIELDS)))
LINK_FIELDS = ("id", "ref", "key", "label", "heading", "context", "origin", "confidence", "createdByAgentId",
               "createdAt")
# Instants travel as microseconds since the epoch: the driver hydrates a DateTime in pure Python (time zone
# arithmetic included), which cost more than all the other fields of a record together; an int costs nothing.
DATETIME_FIELDS = frozenset({"createdAt", "updatedAt", "archivedAt", "enrichmentUpdatedAt"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _entry(var: str, name: str) -> str:
    if name in DATETIME_FIELDS:
        return f"{name}: {var}.{name}.epochSeconds * 1000000 + {var}.{name}.microsecond"
    return f".{name}"


def projection(var: str, fields: Iterable[str], **computed: str) -> str:
    """`var {.a, .b, key: expression}`: a Cypher map projection of these properties (absent ones come as null)."""
    entries = [_entry(var, name) for name in fields] + [f"{key}: {expr}" for key, expr in computed.items()]
    return f"{var} {{{', '.join(entries)}}}"


def note_map(var: str) -> str:
    return projection(var, NOTE_FIELDS)


def document_map(var: str) -> str:
    return projection(var, DOCUMENT_FIELDS)


def item_map(var: str) -> str:
    """A note or a document (`isNote` tells which); on a ghost every field is null and `isItem` false."""
    return projection(var, ITEM_FIELDS, isNote=f"{var}:Note", isItem=f"{var}:Item")


# An item without its text and what is parsed from text (a note's body, its hash and front matter; a document's
# summary and metadata), for the many items of a link page or a traversal when the request asks none of those
# (schema/prefetch.py `summary_enough` decides; the mapping below gives them their empty values, and such an item
# answers only that request's fields). It names a note's fields or a document's, not both: of a traversal's 200
# notes, the whole projections came to about 340 KB (as JSON), the body half of it and the nulls of the document
# fields most of the rest; these (with the rows' own fields) to about 110 (bench/README.md).
SUMMARY_LEFT_OUT = frozenset({"body", "bodySha256", "frontmatter", "summary", "metadata"})
NOTE_SUMMARY_FIELDS = tuple(name for name in NOTE_FIELDS if name not in SUMMARY_LEFT_OUT)
DOCUMENT_SUMMARY_FIELDS = tuple(name for name in DOCUMENT_FIELDS if name not in SUMMARY_LEFT_OUT)
ITEM_SUMMARY_FIELDS = tuple(dict.fromkeys((*NOTE_SUMMARY_FIELDS, *DOCUMENT_SUMMARY_FIELDS)))


def item_summary_map(var: str) -> str:
    """`item_map` without SUMMARY_LEFT_OUT, and with only the fields of the item's own kind."""
    return (f"CASE WHEN {var}:Note THEN {projection(var, NOTE_SUMMARY_FIELDS, isNote='true', isItem='true')}\n"
            f"  WHEN {var}:Item THEN {projection(var, DOCUMENT_SUMMARY_FIELDS, isNote='false', isItem='true')}\n"
            "  ELSE {isNote: false, isItem: false} END")


# A topic keeps its name in `title` and its content in `text`, the properties the full-text index reads of every
# node it covers (graph/topics.py).
TOPIC_FIELDS = ("id", "tenantId", "itemId", "position", "title", "topicPath", "depth", "text", "labels", "parentId")


def topic_map(var: str, document: str) -> str:
    """A topic, with the owner key of its document (read there: a document that moves takes its topics along)."""
    return projection(var, TOPIC_FIELDS, ownerKey=f"{document}.ownerKey")


def topic_from_record(record: Mapping[str, Any]) -> Topic:
    return Topic(id=record["id"], tenant_id=record["tenantId"], document_id=record["itemId"],
                 owner_key=record["ownerKey"], position=int(record["position"]), name=record["title"],
                 path=tuple(record["topicPath"] or ()), depth=int(record["depth"] or 0), content=record["text"] or "",
                 labels=tuple(record["labels"] or ()), parent_id=record["parentId"])


def link_map(var: str) -> str:
    """A link with its own endpoints' ids (`targetId` null for a ghost), so no reader has to say which end of the
    relationship it matched from: a backlink and the same link read as outgoing map to the same Link."""
    return projection(var, LINK_FIELDS, type=f"type({var})", sourceId=f"startNode({var}).id",
                      targetId=f"CASE WHEN endNode({var}):Item THEN endNode({var}).id END")


# Below 2**32 seconds (the year 2106) a float of seconds is within half a microsecond of the true value, and
# `fromtimestamp` rounds it to the nearest microsecond: exactly the integer it came from.
_FLOAT_EXACT = 2**32 * 1_000_000


def to_datetime(value: Any) -> datetime:
    """Neo4j returns its own DateTime (or a projection's microseconds since the epoch); the domain speaks Python's."""
    if isinstance(value, int):
        if type(value) is int and 0 <= value < _FLOAT_EXACT:  # twice the sum's speed, two per item read
            return datetime.fromtimestamp(value / 1_000_000, UTC)
        return _EPOCH + timedelta(microseconds=value)
    return value.to_native() if hasattr(value, "to_native") else value  # type: ignore[no-any-return]


def _has_label(node: Any, label: str, flag: str) -> bool:
    labels = getattr(node, "labels", None)  # a whole node; a projection says it in a flag
    return label in labels if labels is not None else bool(node.get(flag))


def vanished(node: Any) -> bool:
    """A node that a concurrent transaction deleted after this statement's MATCH found it: under Neo4j's
    read-committed isolation its projection then reads with its properties null, or only some of them when the
    delete lands while the node is being read (seen: an id with a null scope). Read it as not there: the id, and
    the scope every item has, without which it could not be read anyway."""
    return node.get("id") is None or node.get("scope") is None


def owner_from_node(node: Any) -> Owner:
    scope, agent_id, team_id = node["scope"], node.get("agentId"), node.get("teamId")
    try:
        return _owner(scope, agent_id, team_id)
    except TypeError:  # a value that does not hash (a list stored where an id belongs): made, not shared
        return _owner.__wrapped__(scope, agent_id, team_id)


@functools.lru_cache(maxsize=4096, typed=True)
def _owner(scope: str, agent_id: str | None, team_id: str | None) -> Owner:
    """One Owner per place (an Owner is immutable): a page of items mostly shares one or two, and making each anew,
    its Scope looked up by value, was a seventh of turning a record into a note."""
    return Owner(Scope(scope), agent_id, team_id)


def document_from_node(node: Any) -> Document:
    updated = node.get("enrichmentUpdatedAt")
    return Document(
        id=node["id"],
        tenant_id=node["tenantId"],
        owner=owner_from_node(node),
        path=node["path"],
        title=node["title"],
        doc_type=node["docType"],
        content_hash=node.get("contentHash"),
        size_bytes=node.get("sizeBytes") or 0,
        summary=node.get("summary"),
        category=node.get("category"),
        metadata=_json_object(node.get("metadata")),
        enrichment=Enrichment(
            EnrichmentStage(node.get("enrichmentStage") or "QUEUED"),
            node.get("enrichmentError"),
            to_datetime(updated) if updated is not None else None,
        ),
        created_at=to_datetime(node["createdAt"]),
        updated_at=to_datetime(node["updatedAt"]),
    )


def _json_object(text: str | None) -> dict[str, Any]:
    return json.loads(text) if text else {}


def note_from_node(node: Any) -> Note:
    archived = node.get("archivedAt")
    note_date = node.get("noteDate")
    return Note(
        id=node["id"],
        tenant_id=node["tenantId"],
        owner=owner_from_node(node),
        slug=node["slug"],
        title=node["title"],
        body=node.get("body") or "",
        body_sha256=node.get("bodySha256") or "",
        frontmatter=_json_object(node.get("frontmatter")),
        tags=tuple(node.get("tags") or ()),
        kind=node.get("kind") or "note",
        note_date=note_date.to_native() if note_date is not None else None,
        pinned=bool(node.get("pinned", False)),
        archived_at=to_datetime(archived) if archived is not None else None,
        created_by_agent_id=node.get("createdByAgentId"),
        indexed=bool(node.get("indexed", False)),
        created_at=to_datetime(node["createdAt"]),
        updated_at=to_datetime(node["updatedAt"]),
        vault_path=node.get("vaultPath"),
        link_teams=tuple(node.get("linkTeams") or ()),
    )


def item_from_node(node: Any) -> Item:
    return note_from_node(node) if _has_label(node, "Note", "isNote") else document_from_node(node)


# A link's origin by its stored value (None: a link stored before origins were), without Enum's call per link.
_ORIGINS: dict[str | None, LinkOrigin] = {None: LinkOrigin.USER, **{origin.value: origin for origin in LinkOrigin}}


def _origin(value: Any) -> LinkOrigin:
    known = _ORIGINS.get(value) if value is None or type(value) is str else None
    return known if known is not None else LinkOrigin(value or "user")


def link_from_record(rel: Any, *endpoints: Any, items: Mapping[str, Item] | None = None) -> Link:
    """`rel` is a `link_map` (it names both ends itself); `endpoints` are endpoint nodes (or their `item_map`) the
    statement returned, whichever end each is, and `items` endpoints the caller holds already. An endpoint nobody
    brought stays None (the API loads it by id)."""
    known: dict[str, Item] = dict(items or {})
    for node in endpoints:
        if node is not None and _has_label(node, "Item", "isItem"):
            known[node["id"]] = item_from_node(node)
    source_id: str = rel["sourceId"]
    target_id: str | None = rel.get("targetId")
    return Link(
        id=rel["id"],
        type=rel["type"],
        source_id=source_id,
        target_id=target_id,
        ref=rel["ref"],
        key=rel.get("key") or rel["ref"],  # an edge the key migration has not reached yet: its ref was the key
        label=rel.get("label"),
        heading=rel.get("heading"),
        context=rel.get("context"),
        origin=_origin(rel.get("origin")),
        confidence=rel.get("confidence"),
        created_at=to_datetime(rel["createdAt"]),
        created_by_agent_id=rel.get("createdByAgentId"),
        source=known.get(source_id),
        target=known.get(target_id) if target_id is not None else None,
    )
