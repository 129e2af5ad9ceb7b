"""Cypher for API keys. A key is stored only as the SHA-256 of its secret; the secret itself never reaches Neo4j.

`:ApiKey` nodes carry `tenantId` like everything else, but they are not `:Item`s: no item query can match them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import ApiKey
from vaultgraph.graph.records import to_datetime

CREATE_KEY = """
CREATE (k:ApiKey {
  id: $id, keyHash: $keyHash, prefix: $prefix, name: $name, tenantId: $tenant, agentId: $agentId,
  teamIds: $teamIds, allScopes: $allScopes, createdAt: datetime(), expiresAt: $expiresAt
})
RETURN k
"""

# The hash is unique (constraint `api_key_hash`), so this is one index seek.
KEY_BY_HASH = "MATCH (k:ApiKey {keyHash: $keyHash}) RETURN k"

KEYS_OF_TENANT = "MATCH (k:ApiKey {tenantId: $tenant}) RETURN k ORDER BY k.createdAt, k.id"

# Idempotent: revoking twice keeps the first revocation time.
REVOKE_KEY = """
MATCH (k:ApiKey {id: $id})
SET k.revokedAt = coalesce(k.revokedAt, datetime())
RETURN k
"""

# Only moves forward, and only when the stored value is older than the granularity: concurrent touches from
# several requests or replicas write at most once per window.
TOUCH_KEY = """
MATCH (k:ApiKey {id: $id})
WHERE k.lastUsedAt IS NULL OR k.lastUsedAt < $notAfter
SET k.lastUsedAt = $now
"""


def key_from_node(node: Any) -> ApiKey:
    def when(name: str) -> datetime | None:
        value = node.get(name)
        return to_datetime(value) if value is not None else None

    return ApiKey(
        id=node["id"],
        prefix=node["prefix"],
        name=node.get("name"),
        tenant_id=node["tenantId"],
        agent_id=node.get("agentId"),
        team_ids=tuple(node.get("teamIds") or ()),
        all_scopes=bool(node.get("allScopes", False)),
        created_at=to_datetime(node["createdAt"]),
        expires_at=when("expiresAt"),
        revoked_at=when("revokedAt"),
        last_used_at=when("lastUsedAt"),
    )


async def create_key(tx: AsyncManagedTransaction, row: dict[str, Any]) -> ApiKey:
    record = await (await tx.run(CREATE_KEY, row)).single(strict=True)
    return key_from_node(record["k"])


async def key_by_hash(tx: AsyncManagedTransaction, key_hash: str) -> ApiKey | None:
    record = await (await tx.run(KEY_BY_HASH, keyHash=key_hash)).single()
    return key_from_node(record["k"]) if record else None


async def keys_of_tenant(tx: AsyncManagedTransaction, tenant: str) -> list[ApiKey]:
    result = await tx.run(KEYS_OF_TENANT, tenant=tenant)
    return [key_from_node(record["k"]) async for record in result]


async def revoke_key(tx: AsyncManagedTransaction, key_id: str) -> ApiKey | None:
    record = await (await tx.run(REVOKE_KEY, id=key_id)).single()
    return key_from_node(record["k"]) if record else None


async def touch_key(tx: AsyncManagedTransaction, key_id: str, now: datetime, not_after: datetime) -> None:
    await (await tx.run(TOUCH_KEY, id=key_id, now=now, notAfter=not_after)).consume()
