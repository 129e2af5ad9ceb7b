"""Cypher for the weekly review: the week's daily notes and the documents whose enrichment finished that week."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document, Note
from vaultgraph.graph.records import document_from_node, note_from_node

# A daily note is one the capture path makes (kind 'daily', slug daily/YYYY-MM-DD) or an imported one of that kind;
# its day is `noteDate`. Oldest day first; `limit` caps what is read, the count says how many there are in all.
_DAILY_NOTES = """
MATCH (n:Note {tenantId: $tenant})
WHERE ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys) AND n.archivedAt IS NULL
  AND (n.kind = 'daily' OR n.slug STARTS WITH 'daily/')
  AND n.noteDate >= $start AND n.noteDate <= $end
"""

DAILY_NOTES = _DAILY_NOTES + "RETURN n ORDER BY n.noteDate, n.slug, n.id LIMIT $limit"
COUNT_DAILY_NOTES = _DAILY_NOTES + "RETURN count(n) AS total"

# Newly enriched: the enrichment reached DONE within [start, end) (the stage's own timestamp), earliest first.
_ENRICHED = """
MATCH (d:Document {tenantId: $tenant})
WHERE ($ownerKeys IS NULL OR d.ownerKey IN $ownerKeys) AND d.deletedAt IS NULL
  AND d.enrichmentStage = 'DONE'
  AND d.enrichmentUpdatedAt >= datetime($start) AND d.enrichmentUpdatedAt < datetime($end)
"""

ENRICHED_DOCUMENTS = _ENRICHED + "RETURN d ORDER BY d.enrichmentUpdatedAt, d.path, d.id LIMIT $limit"
COUNT_ENRICHED_DOCUMENTS = _ENRICHED + "RETURN count(d) AS total"


async def daily_notes(
    tx: AsyncManagedTransaction, tenant: str, owner_keys: list[str] | None, start: date, end: date, limit: int
) -> tuple[list[Note], int]:
    """Daily notes dated `start`..`end` (both included): at most `limit` of them, and how many there are."""
    params: dict[str, Any] = {"tenant": tenant, "ownerKeys": owner_keys, "start": start, "end": end}
    rows = await (await tx.run(DAILY_NOTES, **params, limit=limit)).values()
    total = await (await tx.run(COUNT_DAILY_NOTES, **params)).single()
    return [note_from_node(row[0]) for row in rows], int(total["total"]) if total else 0


async def enriched_documents(
    tx: AsyncManagedTransaction, tenant: str, owner_keys: list[str] | None, start: datetime, end: datetime,
    limit: int,
) -> tuple[list[Document], int]:
    """Documents whose enrichment reached DONE in [start, end): at most `limit`, and how many there are."""
    params: dict[str, Any] = {
        "tenant": tenant, "ownerKeys": owner_keys, "start": start.isoformat(), "end": end.isoformat()}
    rows = await (await tx.run(ENRICHED_DOCUMENTS, **params, limit=limit)).values()
    total = await (await tx.run(COUNT_ENRICHED_DOCUMENTS, **params)).single()
    return [document_from_node(row[0]) for row in rows], int(total["total"]) if total else 0
