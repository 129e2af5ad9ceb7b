"""Records become domain values here, and only here."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from vaultgraph.domain import Document, Enrichment, EnrichmentStage, Owner, Scope


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
