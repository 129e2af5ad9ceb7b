"""Cypher for unlinked mentions: the notes whose searchText (title and body) the full-text index finds a note's names
in (candidates only; services/mentions.py reads each body to keep the plain-text mentions)."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note
from vaultgraph.graph.migrations import FULLTEXT_INDEX
from vaultgraph.graph.records import note_from_node, note_map, vanished

# Notes only (a chunk repeats its note's text; a document's text lives in its file), visible to the caller, active,
# not the note itself; most recently updated first, from the cursor on. The Lucene query names the tenant already;
# the tenant is checked again all the same.
MENTION_CANDIDATES = """
CALL db.index.fulltext.queryNodes($index, $lucene) YIELD node
WITH node AS n
WHERE n:Note AND n.tenantId = $tenant AND n.id <> $id AND n.deletedAt IS NULL AND n.archivedAt IS NULL
  AND ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys)
  AND ($afterTs IS NULL OR n.updatedAt < datetime($afterTs) OR (n.updatedAt = datetime($afterTs) AND n.id > $afterId))
WITH n ORDER BY n.updatedAt DESC, n.id LIMIT $limit
RETURN """ + note_map("n") + " AS n"


async def mention_candidates(tx: AsyncManagedTransaction, tenant: str, note_id: str, lucene: str,
                             owner_keys: list[str] | None, after: tuple[str | None, str | None],
                             limit: int) -> list[Note]:
    """Up to `limit` notes of the tenant whose body the index matches `lucene` in, after the cursor `after`
    ((updatedAt, id) or (None, None)), in the order of the notes list."""
    params: dict[str, Any] = {"index": FULLTEXT_INDEX, "lucene": lucene, "tenant": tenant, "id": note_id,
                              "ownerKeys": owner_keys, "afterTs": after[0], "afterId": after[1], "limit": limit}
    result = await tx.run(MENTION_CANDIDATES, **params)
    return [note_from_node(record["n"]) async for record in result if not vanished(record["n"])]
