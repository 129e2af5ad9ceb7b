"""How a hub's link page and total are read (graph/links.py), from Neo4j's own PROFILE: rows and operators, never
time. A page reads the `createdAt` of all the hub's edges, but the id and the other end of the rows it keeps only;
an unfiltered total is the hub's degree, read without an edge. Going back on either would only be slower, so nothing
else would fail."""

from __future__ import annotations

from typing import Any

import pytest

from vaultgraph.graph import links as link_cypher
from vaultgraph.graph.session import Graph

pytestmark = pytest.mark.graph

SOURCES = 60
LIMIT = 11

BUILD = """
CREATE (hub:Item:Note {tenantId: $tenant, id: 'hub', scope: 'shared', ownerKey: 'shared', title: 'hub'})
WITH hub
UNWIND range(0, $sources - 1) AS i
CREATE (s:Item:Note {tenantId: $tenant, id: 'src' + toString(i), scope: 'shared', ownerKey: 'shared',
                     title: 'source ' + toString(i)})
CREATE (s)-[r:WIKILINK {id: 'lnk' + toString(1000 + i), ref: 'hub', key: 'hub', origin: 'wikilink'}]->(hub)
SET r.createdAt = datetime('2026-12-01T00:00:00Z') + duration({minutes: i / 2}),
    s.deletedAt = CASE WHEN i = 0 THEN datetime() END
"""


def _operators(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [plan, *(op for child in plan.get("children", []) for op in _operators(child))]


async def _profile(graph: Graph, statement: str, **params: Any) -> tuple[list[Any], list[dict[str, Any]]]:
    result = await graph.driver.execute_query("PROFILE " + statement, params, database_=graph.database,
                                              routing_="r")
    return result.records, _operators(result.summary.profile)


async def test_a_hub_page_reads_the_other_end_of_the_rows_it_keeps_only(graph: Graph, tenant: str) -> None:
    await graph.driver.execute_query(BUILD, tenant=tenant, sources=SOURCES, database_=graph.database)
    params = {"tenant": tenant, "ids": ["hub"], "types": None, "ownerKeys": None, "afterTs": None, "afterId": None,
              "beforeTs": None, "beforeId": None, "limit": LIMIT}
    records, plan = await _profile(graph, link_cypher.BACKLINK_PAGES, **params)

    # The oldest first, ties by id, the deleted source's link (the oldest) left out.
    assert [record["r"]["id"] for record in records] == [f"lnk{1001 + i}" for i in range(LIMIT)]
    [ends] = [op for op in plan if op["operatorType"].startswith("Filter") and
              "deletedAt" in op["args"].get("Details", "")]
    [keys] = [op for op in plan if op["operatorType"].startswith("Sort")]
    # The sort (by createdAt, of every edge) streams into the ends' test only the rows the page takes: the deleted
    # source's, the page's, and one more that closes the last tie (ties are then broken by id, of these alone).
    assert keys["rows"] == LIMIT + 2
    assert ends["rows"] == LIMIT + 1
    assert [op["rows"] for op in plan if "`r.id`" in op["args"].get("Details", "")] == [LIMIT, LIMIT + 1]

    records, plan = await _profile(graph, link_cypher.BACKLINK_DEGREES, tenant=tenant, ids=["hub", "none"])
    assert {record["id"]: record["total"] for record in records} == {"hub": SOURCES, "none": 0}
    assert not [op for op in plan if "Expand" in op["operatorType"]]
