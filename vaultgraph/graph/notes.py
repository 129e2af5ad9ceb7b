"""Cypher for notes. The save runs as one transaction (see services/note_writes.py); each function takes that tx."""

from __future__ import annotations

from typing import Any, TypeVar

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note
from vaultgraph.graph.links import merge_ghost
from vaultgraph.graph.records import note_from_node, note_map, vanished
from vaultgraph.graph.search_text import set_search_text

# Every statement returning a note returns its projection (never the embedding) under the name `n`.
_NOTE = note_map("n") + " AS n"

NOTE_BY_ID = "MATCH (n:Item:Note {tenantId: $tenant, id: $id}) RETURN " + _NOTE

NOTE_BY_SLUG = """
MATCH (n:Note {tenantId: $tenant, slug: $slug})
WHERE $ownerKeys IS NULL OR n.ownerKey IN $ownerKeys
WITH n ORDER BY CASE n.ownerKey WHEN $preferOwner THEN 0 WHEN 'shared' THEN 1 ELSE 2 END LIMIT 1
RETURN """ + _NOTE

# The save, for a batch of drafts (one save is a batch of one): what the drafts' ids and slugs hold now, then the
# new notes and the updates, each one `UNWIND` statement (services/note_writes.py decides in Python who gets what).
# A locking read: the save decides from what it reads (the body's SHA for `ifBodySha256`, the slug), so two saves
# of one note must not both read the old version and both write (a lost capture). Setting a property takes the
# node's write lock, held to commit; the second save waits and reads the first one's note. (Ids come sorted, so
# two batches lock in one order.)
NOTES_BY_IDS = """
UNWIND $ids AS id MATCH (n:Item:Note {tenantId: $tenant, id: id})
SET n.lockedBySave = true REMOVE n.lockedBySave
RETURN """ + _NOTE

SLUG_HOLDERS = """
UNWIND $keys AS key
MATCH (n:Note {tenantId: $tenant, ownerKey: key.ownerKey, slug: key.slug})
RETURN n.ownerKey AS ownerKey, n.slug AS slug, n.id AS id, n.title AS title
"""

# Rows come back in the order they went in; `i` says which. With `$pending` the notes are created as
# graph/note_index.py MARK_PENDING leaves a note (`indexed` is false on a new note anyway): one statement fewer.
_ROWS = """
UNWIND range(0, size($rows) - 1) AS i
WITH i, $rows[i] AS row
"""
_CREATE_NOTE = """CREATE (n:Item:Note {id: row.id, tenantId: $tenant, scope: row.scope, agentId: row.agentId,
                     teamId: row.teamId, ownerKey: row.ownerKey, createdByAgentId: $createdBy, indexed: false,
                     createdAt: datetime(), updatedAt: datetime()})
SET n += row.props
SET """ + set_search_text("n") + """
FOREACH (_ IN CASE WHEN $pending THEN [1] ELSE [] END | SET n:IndexPending)
"""
CREATE_NOTES = _ROWS + _CREATE_NOTE + "RETURN i, " + _NOTE

# SLUG_HOLDERS and CREATE_NOTES in one statement, for rows whose (ownerKey, slug) differ: a row whose slug a note
# holds comes back with that note's id and title and no note; the others, with the note created.
CREATE_UNHELD_NOTES = _ROWS + """\
OPTIONAL MATCH (h:Note {tenantId: $tenant, ownerKey: row.ownerKey, slug: row.props.slug})
OPTIONAL CALL (row, h) {
WITH * WHERE h IS NULL
""" + _CREATE_NOTE + """RETURN n
}
RETURN i, h.id AS holderId, h.title AS holderTitle, """ + _NOTE

UPDATE_NOTES = """
UNWIND range(0, size($rows) - 1) AS i
WITH i, $rows[i] AS row
MATCH (n:Item:Note {tenantId: $tenant, id: row.id})
SET n += row.props, n.updatedAt = datetime()
SET """ + set_search_text("n") + """
RETURN i, """ + _NOTE

# After a rename: the wikilinks bound to the note (a fuzzy guess names nothing and stays), with where they are
# written, so the service can tell which keys no longer name it…
INBOUND_WIKILINKS = """
MATCH (n:Item:Note {tenantId: $tenant, id: $id})<-[r:WIKILINK {origin: 'wikilink'}]-(s:Item {tenantId: $tenant})
WHERE r.guessed IS NULL
RETURN r.id AS linkId, r.key AS key, s.id AS sourceId, s:Note AS sourceIsNote, coalesce(s.slug, s.path) AS sourcePath
"""

# …and those of them left (not rewritten) become edges to the ghost of their key, as a hard delete does
# (graph/links.py UNBIND_INBOUND), so they bind again when an item takes that name.
GHOST_INBOUND = """
UNWIND $linkIds AS linkId
MATCH (n:Item:Note {tenantId: $tenant, id: $id})<-[r:WIKILINK]-(s:Item {tenantId: $tenant})
WHERE r.id = linkId
""" + merge_ghost("g", "r.key") + """CREATE (s)-[b:WIKILINK]->(g)
SET b = properties(r)
DELETE r
"""

SET_INDEXED = """
UNWIND $rows AS row
MATCH (n:Item:Note {tenantId: $tenant, id: row.id}) SET n.indexed = row.indexed
"""

# A vault import's lookup of many paths at once: for each slug, the note `note_by_slug` would give.
NOTES_BY_SLUGS = """
UNWIND $slugs AS slug
CALL (slug) {
  MATCH (n:Note {tenantId: $tenant, slug: slug})
  WHERE $ownerKeys IS NULL OR n.ownerKey IN $ownerKeys
  WITH n ORDER BY CASE n.ownerKey WHEN $preferOwner THEN 0 WHEN 'shared' THEN 1 ELSE 2 END LIMIT 1
  RETURN n
}
RETURN """ + _NOTE

# Keyset pagination on (updatedAt desc, id): the newest first, stable while notes are saved.
# The list filters, shared by the page and its total so the two never disagree (and by property queries,
# graph/note_query.py).
# `updatedAt IS NOT NULL` (always true: every save sets it) lets the planner seek the (tenantId, updatedAt) index
# instead of scanning every tenant's notes: at 100k notes PROFILE showed 120k label-scan rows become 100k index
# rows, and the count 203 -> 56 ms, the page 480 -> 277 ms p50.
NOTE_LIST_FILTERS = """
MATCH (n:Note {tenantId: $tenant})
WHERE n.updatedAt IS NOT NULL AND ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys)
  AND ($includeArchived OR n.archivedAt IS NULL)
  AND ($scope IS NULL OR n.scope = $scope)
  AND ($kind IS NULL OR n.kind = $kind)
  AND ($tag IS NULL OR $tag IN n.tags)
  AND ($pinned IS NULL OR n.pinned = $pinned)
"""



def _notes_page(backward: bool) -> str:
    """The page between the cursors, read from `after` onward, or (backward) from `before` back."""
    order = "n.updatedAt, n.id DESC" if backward else "n.updatedAt DESC, n.id"
    return NOTE_LIST_FILTERS + f"""\
  AND ($afterTs IS NULL OR n.updatedAt < datetime($afterTs) OR (n.updatedAt = datetime($afterTs) AND n.id > $afterId))
  AND ($beforeTs IS NULL OR n.updatedAt > datetime($beforeTs)
       OR (n.updatedAt = datetime($beforeTs) AND n.id < $beforeId))
WITH n ORDER BY {order} LIMIT $limit
RETURN """ + _NOTE


NOTES_PAGE = _notes_page(backward=False)
NOTES_PAGE_BACKWARD = _notes_page(backward=True)
PAGE_PARAMS = frozenset({"afterTs", "afterId", "beforeTs", "beforeId", "limit"})

COUNT_NOTES = NOTE_LIST_FILTERS + "RETURN count(n) AS total\n"

TAG_COUNTS = """
MATCH (n:Note {tenantId: $tenant})
WHERE n.archivedAt IS NULL AND ($ownerKeys IS NULL OR n.ownerKey IN $ownerKeys)
UNWIND n.tags AS tag
RETURN tag, count(*) AS count ORDER BY count DESC, tag
"""


async def note_by_id(tx: AsyncManagedTransaction, tenant: str, id: str) -> Note | None:
    record = await (await tx.run(NOTE_BY_ID, tenant=tenant, id=id)).single()
    return note_from_node(record["n"]) if record and not vanished(record["n"]) else None


async def note_by_slug(
    tx: AsyncManagedTransaction, tenant: str, slug: str, owner_keys: list[str] | None, prefer_owner: str
) -> Note | None:
    record = await (
        await tx.run(NOTE_BY_SLUG, tenant=tenant, slug=slug, ownerKeys=owner_keys, preferOwner=prefer_owner)
    ).single()
    return note_from_node(record["n"]) if record and not vanished(record["n"]) else None


async def notes_by_ids(tx: AsyncManagedTransaction, tenant: str, ids: list[str]) -> dict[str, Note]:
    result = await tx.run(NOTES_BY_IDS, tenant=tenant, ids=ids)
    notes = [note_from_node(record["n"]) async for record in result if not vanished(record["n"])]
    return {note.id: note for note in notes}


async def slug_holders(
    tx: AsyncManagedTransaction, tenant: str, keys: list[tuple[str, str]]
) -> dict[tuple[str, str], tuple[str, str]]:
    """(ownerKey, slug) → (id, title) of the note holding it, for those held."""
    result = await tx.run(SLUG_HOLDERS, tenant=tenant, keys=[{"ownerKey": o, "slug": s} for o, s in keys])
    return {(record["ownerKey"], record["slug"]): (record["id"], record["title"]) async for record in result}


async def create_notes(
    tx: AsyncManagedTransaction, tenant: str, created_by: str | None, rows: list[dict[str, Any]],
    pending: bool = False,
) -> list[Note]:
    """Rows {id, scope, agentId, teamId, ownerKey, props}; the notes in the same order. `pending`: queued for the
    workers' indexing (`:IndexPending`)."""
    result = await tx.run(CREATE_NOTES, tenant=tenant, createdBy=created_by, rows=rows, pending=pending)
    return _in_order([(record["i"], note_from_node(record["n"])) async for record in result], len(rows))


async def create_unheld_notes(
    tx: AsyncManagedTransaction, tenant: str, created_by: str | None, rows: list[dict[str, Any]],
    pending: bool = False,
) -> list[Note | tuple[str, str]]:
    """`create_notes` of the rows whose slug no note holds (rows of distinct (ownerKey, slug)); for each row, in
    order, its note, or the (id, title) of the note holding its slug."""
    result = await tx.run(CREATE_UNHELD_NOTES, tenant=tenant, createdBy=created_by, rows=rows, pending=pending)
    answers: list[tuple[int, Note | tuple[str, str]]] = [
        (record["i"], (record["holderId"], record["holderTitle"]) if record["holderId"] is not None
         else note_from_node(record["n"])) async for record in result]
    return _in_order(answers, len(rows))


async def update_notes(tx: AsyncManagedTransaction, tenant: str, rows: list[dict[str, Any]]) -> list[Note]:
    """Rows {id, props}; the notes in the same order."""
    result = await tx.run(UPDATE_NOTES, tenant=tenant, rows=rows)
    return _in_order([(record["i"], note_from_node(record["n"])) async for record in result], len(rows))


Row = TypeVar("Row")


def _in_order(numbered: list[tuple[int, Row]], expected: int) -> list[Row]:
    if len(numbered) != expected:
        raise RuntimeError(f"expected {expected} rows back, got {len(numbered)}")
    return [row for _, row in sorted(numbered, key=lambda pair: pair[0])]


async def notes_by_slugs(
    tx: AsyncManagedTransaction, tenant: str, slugs: list[str], owner_keys: list[str] | None, prefer_owner: str
) -> dict[str, Note]:
    result = await tx.run(NOTES_BY_SLUGS, tenant=tenant, slugs=slugs, ownerKeys=owner_keys, preferOwner=prefer_owner)
    notes = [note_from_node(record["n"]) async for record in result if not vanished(record["n"])]
    return {note.slug: note for note in notes}


async def inbound_wikilinks(tx: AsyncManagedTransaction, tenant: str, id: str) -> list[dict[str, Any]]:
    """Rows {linkId, key, sourceId, sourceIsNote, sourcePath} of the wikilinks bound to the note `id`."""
    result = await tx.run(INBOUND_WIKILINKS, tenant=tenant, id=id)
    return [dict(record) async for record in result]


async def ghost_inbound(tx: AsyncManagedTransaction, tenant: str, id: str, link_ids: list[str]) -> None:
    await (await tx.run(GHOST_INBOUND, tenant=tenant, id=id, linkIds=link_ids)).consume()


async def set_indexed(tx: AsyncManagedTransaction, tenant: str, indexed: dict[str, bool]) -> None:
    rows = [{"id": id, "indexed": value} for id, value in indexed.items()]
    await (await tx.run(SET_INDEXED, tenant=tenant, rows=rows)).consume()


async def notes_page(tx: AsyncManagedTransaction, backward: bool = False, **params: Any) -> list[Note]:
    """The page's rows in reading order: backward, the nearest to `before` first."""
    result = await tx.run(NOTES_PAGE_BACKWARD if backward else NOTES_PAGE, **params)
    return [note_from_node(record["n"]) async for record in result if not vanished(record["n"])]


async def notes_page_and_total(
    tx: AsyncManagedTransaction, backward: bool = False, **params: Any
) -> tuple[list[Note], int]:
    """A page and the total of its filters in one transaction: one round of BEGIN/COMMIT, not two."""
    return await notes_page(tx, backward, **params), await count_notes(tx, **params)


async def count_notes(tx: AsyncManagedTransaction, **params: Any) -> int:
    params = {k: v for k, v in params.items() if k not in PAGE_PARAMS}
    record = await (await tx.run(COUNT_NOTES, **params)).single(strict=True)
    return int(record["total"])


async def tag_counts(tx: AsyncManagedTransaction, tenant: str, owner_keys: list[str] | None) -> list[tuple[str, int]]:
    result = await tx.run(TAG_COUNTS, tenant=tenant, ownerKeys=owner_keys)
    return [(record["tag"], record["count"]) async for record in result]
