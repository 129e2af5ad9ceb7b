"""Cypher for notes. The save runs as one transaction (see services/notes.py); each function takes that tx."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note
from vaultgraph.graph.records import note_from_node, note_map

# Every statement returning a note returns its projection (never the embedding) under the name `n`.
_NOTE = note_map("n") + " AS n"

NOTE_BY_ID = "MATCH (n:Item:Note {tenantId: $tenant, id: $id}) RETURN " + _NOTE

NOTE_BY_SLUG = """
MATCH (n:Note {tenantId: $tenant, slug: $slug})
WHERE $ownerKeys IS NULL OR n.ownerKey IN $ownerKeys
WITH n ORDER BY CASE n.ownerKey WHEN $preferOwner THEN 0 WHEN 'shared' THEN 1 ELSE 2 END LIMIT 1
RETURN """ + _NOTE

SLUG_HOLDER = """
MATCH (n:Note {tenantId: $tenant, ownerKey: $ownerKey, slug: $slug}) WHERE n.id <> $id
RETURN n.id AS id, n.title AS title
"""

CREATE_NOTE = """
CREATE (n:Item:Note {id: $id, tenantId: $tenant, scope: $scope, agentId: $agentId, teamId: $teamId,
                     ownerKey: $ownerKey, createdByAgentId: $createdBy, indexed: false,
                     createdAt: datetime(), updatedAt: datetime()})
SET n += $props
RETURN """ + _NOTE

UPDATE_NOTE = """
MATCH (n:Item:Note {tenantId: $tenant, id: $id})
SET n += $props, n.updatedAt = datetime()
RETURN """ + _NOTE

SET_ARCHIVED = """
MATCH (n:Item:Note {tenantId: $tenant, id: $id})
SET n.archivedAt = CASE WHEN $archived THEN datetime() ELSE null END, n.updatedAt = datetime()
RETURN """ + _NOTE

SET_INDEXED = "MATCH (n:Item:Note {tenantId: $tenant, id: $id}) SET n.indexed = $indexed"

# Keyset pagination on (updatedAt desc, id): the newest first, stable while notes are saved.
# The list filters, shared by the page and its total so the two never disagree.
_NOTE_FILTERS = """
MATCH (n:Note {tenantId: $tenant})
WHERE ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys)
  AND ($includeArchived OR n.archivedAt IS NULL)
  AND ($scope IS NULL OR n.scope = $scope)
  AND ($kind IS NULL OR n.kind = $kind)
  AND ($tag IS NULL OR $tag IN n.tags)
  AND ($pinned IS NULL OR n.pinned = $pinned)
"""

NOTES_PAGE = _NOTE_FILTERS + """\
  AND ($afterTs IS NULL OR n.updatedAt < datetime($afterTs) OR (n.updatedAt = datetime($afterTs) AND n.id > $afterId))
WITH n ORDER BY n.updatedAt DESC, n.id LIMIT $limit
RETURN """ + _NOTE

COUNT_NOTES = _NOTE_FILTERS + "RETURN count(n) AS total\n"

TAG_COUNTS = """
MATCH (n:Note {tenantId: $tenant})
WHERE n.archivedAt IS NULL AND ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys)
UNWIND n.tags AS tag
RETURN tag, count(*) AS count ORDER BY count DESC, tag
"""


async def note_by_id(tx: AsyncManagedTransaction, tenant: str, id: str) -> Note | None:
    record = await (await tx.run(NOTE_BY_ID, tenant=tenant, id=id)).single()
    return note_from_node(record["n"]) if record else None


async def note_by_slug(
    tx: AsyncManagedTransaction, tenant: str, slug: str, owner_keys: list[str] | None, prefer_owner: str
) -> Note | None:
    record = await (
        await tx.run(NOTE_BY_SLUG, tenant=tenant, slug=slug, ownerKeys=owner_keys, preferOwner=prefer_owner)
    ).single()
    return note_from_node(record["n"]) if record else None


async def slug_holder(
    tx: AsyncManagedTransaction, tenant: str, owner_key: str, slug: str, id: str
) -> dict[str, Any] | None:
    record = await (await tx.run(SLUG_HOLDER, tenant=tenant, ownerKey=owner_key, slug=slug, id=id)).single()
    return dict(record) if record else None


async def create_note(tx: AsyncManagedTransaction, **params: Any) -> Note:
    record = await (await tx.run(CREATE_NOTE, **params)).single(strict=True)
    return note_from_node(record["n"])


async def update_note(tx: AsyncManagedTransaction, tenant: str, id: str, props: dict[str, Any]) -> Note:
    record = await (await tx.run(UPDATE_NOTE, tenant=tenant, id=id, props=props)).single(strict=True)
    return note_from_node(record["n"])


async def set_archived(tx: AsyncManagedTransaction, tenant: str, id: str, archived: bool) -> Note | None:
    record = await (await tx.run(SET_ARCHIVED, tenant=tenant, id=id, archived=archived)).single()
    return note_from_node(record["n"]) if record else None


async def set_indexed(tx: AsyncManagedTransaction, tenant: str, id: str, indexed: bool) -> None:
    await (await tx.run(SET_INDEXED, tenant=tenant, id=id, indexed=indexed)).consume()


async def notes_page(tx: AsyncManagedTransaction, **params: Any) -> list[Note]:
    result = await tx.run(NOTES_PAGE, **params)
    return [note_from_node(record["n"]) async for record in result]


async def notes_page_and_total(tx: AsyncManagedTransaction, **params: Any) -> tuple[list[Note], int]:
    """A page and the total of its filters in one transaction: one round of BEGIN/COMMIT, not two."""
    return await notes_page(tx, **params), await count_notes(tx, **params)


async def count_notes(tx: AsyncManagedTransaction, **params: Any) -> int:
    params = {k: v for k, v in params.items() if k not in ("afterTs", "afterId", "limit")}
    record = await (await tx.run(COUNT_NOTES, **params)).single(strict=True)
    return int(record["total"])


async def tag_counts(tx: AsyncManagedTransaction, tenant: str, owner_keys: list[str] | None) -> list[tuple[str, int]]:
    result = await tx.run(TAG_COUNTS, tenant=tenant, ownerKeys=owner_keys)
    return [(record["tag"], record["count"]) async for record in result]
