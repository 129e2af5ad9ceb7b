"""Cypher for any item (document or note) by id."""

from __future__ import annotations

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Item
from vaultgraph.graph.records import item_from_node, item_map, vanished

_ITEM = item_map("n") + " AS n"
ITEM_BY_ID = "MATCH (n:Item {tenantId: $tenant, id: $id}) WHERE n.deletedAt IS NULL RETURN " + _ITEM
ITEMS_BY_IDS = "MATCH (n:Item {tenantId: $tenant}) WHERE n.id IN $ids AND n.deletedAt IS NULL RETURN " + _ITEM


async def item_by_id(tx: AsyncManagedTransaction, tenant: str, id: str) -> Item | None:
    record = await (await tx.run(ITEM_BY_ID, tenant=tenant, id=id)).single()
    return item_from_node(record["n"]) if record and not vanished(record["n"]) else None


async def items_by_ids(tx: AsyncManagedTransaction, tenant: str, ids: list[str]) -> dict[str, Item]:
    result = await tx.run(ITEMS_BY_IDS, tenant=tenant, ids=ids)
    items = [item_from_node(record["n"]) async for record in result if not vanished(record["n"])]
    return {item.id: item for item in items}
