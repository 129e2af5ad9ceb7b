"""Migrations against the real server: applied once, idempotent, and the indexes the design asks for exist."""

from __future__ import annotations

import pytest
from neo4j import AsyncManagedTransaction

from vaultgraph.graph.migrations import FULLTEXT_INDEX, MIGRATIONS, WORDS_INDEX, apply_migrations, vector_index_name
from vaultgraph.graph.search_text import SEARCH_TEXT_FIELD, set_search_text
from vaultgraph.graph.session import Graph
from vaultgraph.text.lucene import SEARCH_TENANT_FIELD, fulltext_query, tenant_token

pytestmark = pytest.mark.graph


async def _indexes(tx: AsyncManagedTransaction) -> dict[str, dict[str, object]]:
    result = await tx.run("SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options RETURN *")
    return {record["name"]: dict(record) async for record in result}


async def test_second_run_applies_nothing(graph: Graph) -> None:
    assert await apply_migrations(graph, 384) == []


async def test_every_version_is_recorded(graph: Graph) -> None:
    async def versions(tx: AsyncManagedTransaction) -> list[int]:
        result = await tx.run("MATCH (m:SchemaMigration) RETURN m.version AS v ORDER BY v")
        return [record["v"] async for record in result]

    # A superset is fine: a database shared with a newer checkout may hold later versions too.
    assert {m.version for m in MIGRATIONS} <= set(await graph.read(versions))


# An API key is found by its secret's hash (or revoked by id) before any tenant is known.
NOT_TENANT_LED = {"schema_migration_version", "api_key_hash", "api_key_id"}


async def test_indexes_lead_with_the_tenant(graph: Graph) -> None:
    indexes = await graph.read(_indexes)
    for name, index in indexes.items():
        if index["type"] == "RANGE" and name not in NOT_TENANT_LED:
            assert index["properties"][0] == "tenantId", name  # type: ignore[index]


async def test_fulltext_and_vector_indexes_exist(graph: Graph) -> None:
    indexes = await graph.read(_indexes)
    assert indexes[FULLTEXT_INDEX]["type"] == "FULLTEXT"
    vector = indexes[vector_index_name(384)]
    assert vector["type"] == "VECTOR"
    config = vector["options"]["indexConfig"]  # type: ignore[index]
    assert config["vector.dimensions"] == 384
    assert config["vector.similarity_function"].lower() == "cosine"


async def test_the_fulltext_index_covers_topics(graph: Graph) -> None:
    indexes = await graph.read(_indexes)
    assert set(indexes[FULLTEXT_INDEX]["labelsOrTypes"]) >= {"Document", "Note", "Chunk", "Topic"}  # type: ignore[arg-type]
    assert indexes["topic_item"]["properties"] == ["tenantId", "itemId"]


async def test_the_fulltext_index_reads_one_bag_of_words_per_node(graph: Graph) -> None:
    index = (await graph.read(_indexes))[FULLTEXT_INDEX]
    assert index["properties"] == [SEARCH_TEXT_FIELD, SEARCH_TENANT_FIELD]
    assert index["options"]["indexConfig"]["fulltext.analyzer"] == "english"  # type: ignore[index]


async def test_the_words_as_written_are_indexed_beside_their_stems_for_the_substring_fallback(graph: Graph) -> None:
    words = (await graph.read(_indexes))[WORDS_INDEX]
    stems = (await graph.read(_indexes))[FULLTEXT_INDEX]
    assert words["labelsOrTypes"] == stems["labelsOrTypes"]
    assert words["properties"] == [SEARCH_TENANT_FIELD, SEARCH_TEXT_FIELD]  # in stems' order, Neo4j took it for them
    assert words["options"]["indexConfig"]["fulltext.analyzer"] == "standard-no-stop-words"  # type: ignore[index]


async def test_a_new_dimension_gets_its_own_vector_index(graph: Graph) -> None:
    await apply_migrations(graph, 16)
    assert vector_index_name(16) in await graph.read(_indexes)


def test_versions_are_unique_and_increasing() -> None:
    versions = [m.version for m in MIGRATIONS]
    assert versions == sorted(set(versions)), versions


async def test_links_written_before_migration_255_get_their_tenant_and_name_and_an_index_finds_them(
    graph: Graph, tenant: str,
) -> None:
    """A save looks up the wikilinks naming a new note by (tenantId, linkName): the index leads with the tenant, and
    an edge from before the migration (key only) gets both, as the statements that write edges now set them."""
    index = (await graph.read(_indexes))["wikilink_name"]
    assert index["labelsOrTypes"] == ["WIKILINK"] and index["properties"] == ["tenantId", "linkName"]
    [migration] = [m for m in MIGRATIONS if m.version == 255]
    async with graph.driver.session(database=graph.database) as session:
        await (await session.run(
            "CREATE (:Item:Note {tenantId: $tenant, id: 'a'})-[:WIKILINK {key: 'trips/tides', origin: 'wikilink'}]->"
            "(:Ghost {tenantId: $tenant, ref: 'trips/tides', name: 'tides'})", tenant=tenant)).consume()
        for statement in migration.statements:
            await (await session.run(statement)).consume()
        record = await (await session.run(
            "MATCH (:Item {tenantId: $tenant, id: 'a'})-[r:WIKILINK]->() RETURN r.tenantId AS t, r.linkName AS name",
            tenant=tenant)).single()
    assert record is not None and (record["t"], record["name"]) == (tenant, "tides")


async def test_the_full_text_index_keeps_tenants_whose_ids_share_words_apart(graph: Graph, tenant: str) -> None:
    """`team-a` was analysed to the word `team` (`a` is a stop word), and its clause also matched every node of
    `team-b` and `team`. Each tenant is now one word of its own, written in Cypher as text/lucene.py spells it."""
    tenants = [f"{tenant}-a", f"{tenant}-b", tenant, f"{tenant.upper()}-A", f"{tenant}_a", f"{tenant}.a"]
    async with graph.driver.session(database=graph.database) as session:
        await (await session.run(
            "UNWIND $tenants AS t CREATE (n:Item:Note {tenantId: t, id: 'n', title: 'Harbour', body: 'tides'}) "
            f"SET {set_search_text('n')}", tenants=tenants)).consume()
        await (await session.run("CALL db.awaitIndexes(300)")).consume()
        spelled = await (await session.run(
            f"MATCH (n:Note {{id: 'n'}}) WHERE n.tenantId IN $tenants "
            f"RETURN n.tenantId AS t, n.{SEARCH_TENANT_FIELD} AS w", tenants=tenants)).data()
        assert {row["t"]: row["w"] for row in spelled} == {t: tenant_token(t) for t in tenants}
        for owner in tenants:
            query = fulltext_query(["harbour"], [SEARCH_TEXT_FIELD], owner)
            found = await (await session.run(
                f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $lucene) YIELD node RETURN node.tenantId AS t",
                lucene=query)).data()
            assert [row["t"] for row in found] == [owner]
