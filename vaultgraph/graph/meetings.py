"""Cypher for a meeting's attendees: its ATTENDED edges and the person notes an email names. The edges themselves
are written and bound by the link machinery (graph/links.py `CREATE_RESOLVED`/`CREATE_GHOSTED`, graph/wikilinks.py
`MOVE_EDGES`), as every other edge."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.graph.links import drop_if_orphan
from vaultgraph.graph.note_query import SCALAR_PREFIX

ATTENDED_EDGES = """
MATCH (:Item:Note {tenantId: $tenant, id: $id})-[r:ATTENDED]->(t)
RETURN r.id AS linkId, r.key AS key, t:Ghost AS ghost
"""

# Attendees no longer listed go; a ghost left without edges goes too.
REMOVE_ATTENDED = """
MATCH (:Item:Note {tenantId: $tenant, id: $id})-[r:ATTENDED]->(t)
WHERE NOT r.key IN $keep
DELETE r
WITH DISTINCT t WHERE t:Ghost
""" + drop_if_orphan("t")

# A person note whose front-matter `email` is one of these (lower-cased), among the owners the meeting may link to.
PERSONS_BY_EMAIL = """
UNWIND $emails AS email
MATCH (n:Note {tenantId: $tenant, kind: 'person'})
WHERE n.ownerKey IN $owners AND toLower(toString(n[$emailKey])) = email
RETURN email, n.id AS id, n.ownerKey AS ownerKey
"""


async def attended_edges(tx: AsyncManagedTransaction, tenant: str, id: str) -> list[dict[str, Any]]:
    """Rows {linkId, key, ghost} of the meeting note's ATTENDED edges."""
    result = await tx.run(ATTENDED_EDGES, tenant=tenant, id=id)
    return [dict(record) async for record in result]


async def remove_attended(tx: AsyncManagedTransaction, tenant: str, id: str, keep: list[str]) -> None:
    await (await tx.run(REMOVE_ATTENDED, tenant=tenant, id=id, keep=keep)).consume()


async def persons_by_email(
    tx: AsyncManagedTransaction, tenant: str, emails: list[str], owners: list[str]
) -> list[dict[str, Any]]:
    """Rows {email, id, ownerKey}: every person note carrying one of `emails`."""
    result = await tx.run(PERSONS_BY_EMAIL, tenant=tenant, emails=emails, owners=owners,
                          emailKey=SCALAR_PREFIX + "email")
    return [dict(record) async for record in result]
