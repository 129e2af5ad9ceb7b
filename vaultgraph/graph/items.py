"""Cypher for any item (document or note) by id."""

from __future__ import annotations

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Item
from vaultgraph.graph.records import item_from_node, item_map, vanished

_ITEM = item_map("n") + " AS n"
ITEM_BY_ID = "MATCH (n:Item {tenantId: $tenant, id: $id}) WHERE n.deletedAt IS NULL RETURN " + _ITEM
_ITEMS = "MATCH (n:Item {tenantId: $tenant}) WHERE n.id IN $ids AND n.deletedAt IS NULL RETURN "
ITEMS_BY_IDS = _ITEMS + _ITEM  # a row per item, as graph/whole_reads.py splices it into larger statements
# The same items in one record: the async driver's cost per streamed record was twice the statement's own for a
# search's 100 hits (bench/README.md, search at depth).
ITEMS_BY_IDS_COLLECTED = _ITEMS + "collect(" + item_map("n") + ") AS items"


async def item_by_id(tx: AsyncManagedTransaction, tenant: str, id: str) -> Item | None:
    record = await (await tx.run(ITEM_BY_ID, tenant=tenant, id=id)).single()
    return item_from_node(record["n"]) if record and not vanished(record["n"]) else None


async def items_by_ids(tx: AsyncManagedTransaction, tenant: str, ids: list[str]) -> dict[str, Item]:
    record = await (await tx.run(ITEMS_BY_IDS_COLLECTED, tenant=tenant, ids=ids)).single(strict=True)
    items = [item_from_node(node) for node in record["items"] if not vanished(node)]
    return {item.id: item for item in items}
