"""Neo4j connection forms for a cluster: the routing scheme `neo4j://` against the real server, and causal
consistency through the Graph's bookmark manager (a replica reads its own writes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from neo4j import AsyncManagedTransaction

from vaultgraph.graph.session import Graph

if TYPE_CHECKING:  # a module-level name starting with Test would be collected as a test class
    from tests.support.neo4j import TestNeo4j

pytestmark = [pytest.mark.scaling, pytest.mark.graph]

WRITE_PROBE = "CREATE (p:ScalingProbe {tenantId: $tenant, value: $value})"
READ_PROBES = "MATCH (p:ScalingProbe {tenantId: $tenant}) RETURN p.value AS value ORDER BY value"
DELETE_PROBES = "MATCH (p:ScalingProbe {tenantId: $tenant}) DELETE p"


async def write_probe(tx: AsyncManagedTransaction, tenant: str, value: int) -> None:
    await (await tx.run(WRITE_PROBE, tenant=tenant, value=value)).consume()


async def read_probes(tx: AsyncManagedTransaction, tenant: str) -> list[int]:
    return [record["value"] async for record in await tx.run(READ_PROBES, tenant=tenant)]


async def delete_probes(tx: AsyncManagedTransaction, tenant: str) -> None:
    await (await tx.run(DELETE_PROBES, tenant=tenant)).consume()


def routing_uri(uri: str) -> str:
    scheme, _, rest = uri.partition("://")
    return f"neo4j://{rest}" if scheme == "bolt" else uri


async def test_the_routing_scheme_reads_and_writes_and_every_write_leaves_a_bookmark(
    neo4j_server: TestNeo4j, tenant: str
) -> None:
    graph = Graph.connect(routing_uri(neo4j_server.uri), "neo4j", None)
    try:
        assert (await graph.verify()).startswith("Neo4j/")
        assert not await graph.bookmarks.get_bookmarks()
        for value in range(5):
            await graph.write(write_probe, tenant, value)
            after_write = await graph.bookmarks.get_bookmarks()
            assert len(after_write) == 1  # the latest write's bookmark: the next read waits for it
            # A read (sent to a reader on a cluster) right after the write sees it.
            assert await graph.read(read_probes, tenant) == list(range(value + 1))
        first = await graph.bookmarks.get_bookmarks()
        await graph.write(write_probe, tenant, 99)
        assert await graph.bookmarks.get_bookmarks() != first  # each write moves the bookmark on
    finally:
        await graph.write(delete_probes, tenant)
        await graph.close()
