"""Records become domain values here, and only here."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from vaultgraph.domain import Document, Enrichment, EnrichmentStage, Item, Link, LinkOrigin, Note, Owner, Scope


def to_datetime(value: Any) -> datetime:
    """Neo4j returns its own DateTime; the domain speaks Python's."""
    return value.to_native() if hasattr(value, "to_native") else value  # type: ignore[no-any-return]


def owner_from_node(node: Any) -> Owner:
    return Owner(Scope(node["scope"]), node.get("agentId"), node.get("teamId"))


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
        size_bytes=node.get("sizeBytes", 0),
        summary=node.get("summary"),
        category=node.get("category"),
        metadata=json.loads(node.get("metadata") or "{}"),
        enrichment=Enrichment(
            EnrichmentStage(node.get("enrichmentStage", "QUEUED")),
            node.get("enrichmentError"),
            to_datetime(updated) if updated is not None else None,
        ),
        created_at=to_datetime(node["createdAt"]),
        updated_at=to_datetime(node["updatedAt"]),
    )


def note_from_node(node: Any) -> Note:
    archived = node.get("archivedAt")
    note_date = node.get("noteDate")
    return Note(
        id=node["id"],
        tenant_id=node["tenantId"],
        owner=owner_from_node(node),
        slug=node["slug"],
        title=node["title"],
        body=node.get("body", ""),
        body_sha256=node.get("bodySha256", ""),
        frontmatter=json.loads(node.get("frontmatter") or "{}"),
        tags=tuple(node.get("tags") or ()),
        kind=node.get("kind", "note"),
        note_date=note_date.to_native() if note_date is not None else None,
        pinned=bool(node.get("pinned", False)),
        archived_at=to_datetime(archived) if archived is not None else None,
        created_by_agent_id=node.get("createdByAgentId"),
        indexed=bool(node.get("indexed", False)),
        created_at=to_datetime(node["createdAt"]),
        updated_at=to_datetime(node["updatedAt"]),
        vault_path=node.get("vaultPath"),
    )


def item_from_node(node: Any) -> Item:
    return note_from_node(node) if "Note" in node.labels else document_from_node(node)


def link_from_record(
    rel: Any, source: Any | None = None, target: Any | None = None, source_id: str | None = None
) -> Link:
    """`rel` is the relationship; `source`/`target` the endpoint nodes when the query returned them, else
    `source_id` when the caller knows it (a relationship's own endpoint nodes carry no properties)."""
    is_item = target is not None and "Item" in target.labels
    return Link(
        id=rel["id"],
        type=rel.type,
        source_id=source["id"] if source is not None else str(source_id),
        target_id=target["id"] if target is not None and is_item else None,
        ref=rel["ref"],
        label=rel.get("label"),
        heading=rel.get("heading"),
        context=rel.get("context"),
        origin=LinkOrigin(rel.get("origin", "user")),
        confidence=rel.get("confidence"),
        created_at=to_datetime(rel["createdAt"]),
        source=item_from_node(source) if source is not None else None,
        target=item_from_node(target) if is_item else None,
    )
