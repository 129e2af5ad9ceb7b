"""Versioned schema migrations, applied at start. Each step is idempotent (IF NOT EXISTS), and the applied
versions are recorded on `:SchemaMigration` nodes so a step runs once per database."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog
from neo4j import AsyncManagedTransaction

from vaultgraph.graph.note_query import property_fields
from vaultgraph.graph.search_text import SEARCH_TEXT_FIELD, SOURCES, set_search_text, tenant_token_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.text.lucene import SEARCH_TENANT_FIELD
from vaultgraph.text.resolve import document_name

log = structlog.get_logger(__name__)

FULLTEXT_INDEX = "item_text"
# The same field's words as written (lowercased, not stemmed): what the substring fallback looks inside
# (graph/search.py FALLBACK_HITS). The English index's terms are stems, which a part of a word can miss ("aching"
# is in "caching", not in its stem "cach").
WORDS_INDEX = "item_words"


def vector_index_name(dimensions: int) -> str:
    """One vector index per embedding dimension in use, so changing the model needs no migration."""
    return f"item_embedding_{dimensions}"


def embedded_label(dimensions: int) -> str:
    """Neo4j allows one vector index per label and property, so each dimension has its own label."""
    return f"Embedded{int(dimensions)}"


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]
    # A data step Cypher cannot do alone (it needs Python, e.g. slugify): one batch per call, run until it
    # reports 0 rows changed.
    backfill: Callable[[AsyncManagedTransaction], Awaitable[int]] | None = None


_FULLTEXT_LABELS = "Document|Note|Chunk|Topic"


def _fulltext_index(labels: str, *fields: str, name: str = FULLTEXT_INDEX, analyzer: str = "english") -> str:
    """A full-text index on these labels' properties: the English one as each migration reshaped it, and the
    index of words as written beside it."""
    on = ", ".join(f"n.{field}" for field in fields)
    return (f"CREATE FULLTEXT INDEX {name} IF NOT EXISTS FOR (n:{labels}) ON EACH [{on}] "
            f"OPTIONS {{indexConfig: {{`fulltext.analyzer`: '{analyzer}'}}}}")


_DOCUMENTS_WITHOUT_LINK_NAME = """
MATCH (d:Document) WHERE d.linkName IS NULL AND d.path IS NOT NULL
RETURN elementId(d) AS id, d.path AS path LIMIT 5000
"""
_SET_LINK_NAMES = """
UNWIND $rows AS row
MATCH (d:Document) WHERE elementId(d) = row.id
SET d.linkName = row.name
"""


async def _backfill_link_names(tx: AsyncManagedTransaction) -> int:
    result = await tx.run(_DOCUMENTS_WITHOUT_LINK_NAME)
    rows = [{"id": record["id"], "name": document_name(record["path"])} async for record in result]
    if rows:
        await (await tx.run(_SET_LINK_NAMES, rows=rows)).consume()
    return len(rows)


# Notes saved before property queries: their front matter spread onto the node (graph/note_query.py). The
# marker lets the batches move on; a note saved since has its properties already and is just marked.
_NOTES_WITH_UNSPREAD_PROPERTIES = """
MATCH (n:Note) WHERE n.frontmatter IS NOT NULL AND n.frontmatter <> '{}' AND n.propertiesSpread IS NULL
RETURN elementId(n) AS id, n.frontmatter AS frontmatter LIMIT 5000
"""
_SPREAD_PROPERTIES = """
UNWIND $rows AS row
MATCH (n:Note) WHERE elementId(n) = row.id
SET n += row.props, n.propertiesSpread = true
"""


async def _backfill_note_properties(tx: AsyncManagedTransaction) -> int:
    result = await tx.run(_NOTES_WITH_UNSPREAD_PROPERTIES)
    rows = []
    async for record in result:
        try:
            metadata = json.loads(record["frontmatter"])
        except ValueError:
            metadata = {}
        rows.append({"id": record["id"], "props": property_fields(metadata if isinstance(metadata, dict) else {})})
    if rows:
        await (await tx.run(_SPREAD_PROPERTIES, rows=rows)).consume()
    return len(rows)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "identity and ownership constraints; tenant-led lookup indexes; full-text index",
        (
            "CREATE CONSTRAINT schema_migration_version IF NOT EXISTS "
            "FOR (m:SchemaMigration) REQUIRE m.version IS UNIQUE",
            "CREATE CONSTRAINT item_id IF NOT EXISTS FOR (n:Item) REQUIRE (n.tenantId, n.id) IS UNIQUE",
            "CREATE CONSTRAINT document_path IF NOT EXISTS "
            "FOR (d:Document) REQUIRE (d.tenantId, d.ownerKey, d.path) IS UNIQUE",
            "CREATE CONSTRAINT note_slug IF NOT EXISTS FOR (n:Note) REQUIRE (n.tenantId, n.ownerKey, n.slug) IS UNIQUE",
            "CREATE CONSTRAINT ghost_ref IF NOT EXISTS FOR (g:Ghost) REQUIRE (g.tenantId, g.ref) IS UNIQUE",
            "CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE (c.tenantId, c.id) IS UNIQUE",
            "CREATE INDEX document_list IF NOT EXISTS FOR (d:Document) ON (d.tenantId, d.path)",
            "CREATE INDEX document_stage IF NOT EXISTS FOR (d:Document) ON (d.tenantId, d.enrichmentStage)",
            "CREATE INDEX note_updated IF NOT EXISTS FOR (n:Note) ON (n.tenantId, n.updatedAt)",
            "CREATE INDEX note_slug_lookup IF NOT EXISTS FOR (n:Note) ON (n.tenantId, n.slug)",
            "CREATE INDEX document_path_lower IF NOT EXISTS FOR (d:Document) ON (d.tenantId, d.pathLower)",
            "CREATE INDEX document_basename IF NOT EXISTS FOR (d:Document) ON (d.tenantId, d.basenameLower)",
            "CREATE INDEX item_created IF NOT EXISTS FOR (n:Item) ON (n.tenantId, n.createdAt)",
            "CREATE INDEX chunk_item IF NOT EXISTS FOR (c:Chunk) ON (c.tenantId, c.itemId)",
            f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS FOR (n:Document|Note|Chunk) "
            "ON EACH [n.title, n.path, n.summary, n.body, n.text]",
        ),
    ),
    Migration(
        2,
        "notes resolve by last slug segment too (Obsidian's shortest-path rule)",
        ("CREATE INDEX note_slug_name IF NOT EXISTS FOR (n:Note) ON (n.tenantId, n.slugName)",),
    ),
    Migration(
        3,
        "API keys: found by the SHA-256 of their secret (before any tenant is known) or by id, listed per tenant",
        (
            "CREATE CONSTRAINT api_key_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.keyHash IS UNIQUE",
            "CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE",
            "CREATE INDEX api_key_tenant IF NOT EXISTS FOR (k:ApiKey) ON (k.tenantId, k.createdAt)",
        ),
    ),
    Migration(
        4,
        "full-text index with the English analyzer (stemming) and tenantId as a field, so a Lucene query "
        "filters by tenant inside the index",
        (
            f"DROP INDEX {FULLTEXT_INDEX} IF EXISTS",
            _fulltext_index("Document|Note|Chunk", *SOURCES, "tenantId"),
        ),
    ),
    Migration(
        5,
        "final enrichment stages still owed an announcement (a worker died between commit and publish)",
        ("CREATE INDEX document_unannounced IF NOT EXISTS FOR (d:Document) ON (d.tenantId, d.unannouncedUntil)",),
    ),
    # Numbered after issue 18, not 6: other branches of the same round add migrations, and a number two branches
    # share would let a database that applied one skip the other.
    Migration(
        18,
        "links keep the authored target in `ref` and the resolution key in `key` (old edges held the key in `ref`"
        " and the authored text in `target`); ghosts and documents are looked up by the key's last segment",
        (
            "MATCH ()-[r]->() WHERE r.key IS NULL AND r.ref IS NOT NULL "
            "CALL (r) { SET r.key = r.ref, r.ref = coalesce(r.target, r.ref) REMOVE r.target } "
            "IN TRANSACTIONS OF 10000 ROWS",
            "MATCH (g:Ghost) WHERE g.name IS NULL "
            "CALL (g) { SET g.name = last(split(g.ref, '/')) } IN TRANSACTIONS OF 10000 ROWS",
            "CREATE INDEX ghost_name IF NOT EXISTS FOR (g:Ghost) ON (g.tenantId, g.name)",
            "CREATE INDEX document_link_name IF NOT EXISTS FOR (d:Document) ON (d.tenantId, d.linkName)",
        ),
        backfill=_backfill_link_names,
    ),
    Migration(
        19,  # numbered by the issue it comes from (18.9), not in sequence: migrations are added in parallel
        "one workspace scan lease per tenant, shared by every process (graph/workspace_sync.py)",
        ("CREATE CONSTRAINT scan_lease_tenant IF NOT EXISTS FOR (l:ScanLease) REQUIRE l.tenantId IS UNIQUE",),
    ),
    Migration(
        20,  # issue 18's second (18 and 19 were taken): concurrent saves bind as serial ones do
        "one lock node per (tenant, link name): saves that resolve or bind the same name take turns",
        ("CREATE CONSTRAINT name_lock IF NOT EXISTS FOR (l:NameLock) REQUIRE (l.tenantId, l.name) IS UNIQUE",),
    ),
    Migration(
        211,  # issue 21, item 4 (numbered by the issue and item: other items add migrations in parallel)
        "every stored vector records the model and dimension that made it (embeddingModel, embeddingDimensions; "
        "documents kept the model in an `embeddedHash` prefix); indexes find the vectors of another model",
        (
            # `embeddedHash` was "<model>/<dimensions>/<content hash>", and a model name may hold a `/`.
            "MATCH (n:Item) WHERE n.embedding IS NOT NULL AND n.embeddingDimensions IS NULL "
            "CALL (n) { WITH n, split(coalesce(n.embeddedHash, ''), '/') AS parts "
            "SET n.embeddingDimensions = size(n.embedding), n.embeddingModel = coalesce(n.embeddingModel, "
            "CASE WHEN size(parts) >= 3 THEN left(n.embeddedHash, size(n.embeddedHash) - size(parts[-1]) "
            "- size(parts[-2]) - 2) ELSE '?' END) } IN TRANSACTIONS OF 10000 ROWS",
            "MATCH (n:Chunk) WHERE n.embedding IS NOT NULL AND n.embeddingDimensions IS NULL "
            "CALL (n) { SET n.embeddingDimensions = size(n.embedding), "
            "n.embeddingModel = coalesce(n.embeddingModel, '?') } IN TRANSACTIONS OF 10000 ROWS",
            "MATCH (n:Document) WHERE n.embeddedHash IS NOT NULL "
            "CALL (n) { REMOVE n.embeddedHash } IN TRANSACTIONS OF 10000 ROWS",
            "CREATE INDEX item_embedding_model IF NOT EXISTS FOR (n:Item) ON (n.tenantId, n.embeddingModel)",
            "CREATE INDEX chunk_embedding_model IF NOT EXISTS FOR (n:Chunk) ON (n.tenantId, n.embeddingModel)",
        ),
    ),
    Migration(
        232,  # issue 23, item 2 (other items of the same issue add migrations in parallel)
        "a document's topics (:Topic): identity, lookup by document, the full-text index covers them (their "
        "vectors are in the vector index of their dimension, like chunks'), and their model is found when it changes",
        (
            "CREATE CONSTRAINT topic_id IF NOT EXISTS FOR (t:Topic) REQUIRE (t.tenantId, t.id) IS UNIQUE",
            "CREATE INDEX topic_item IF NOT EXISTS FOR (t:Topic) ON (t.tenantId, t.itemId)",
            "CREATE INDEX topic_embedding_model IF NOT EXISTS FOR (t:Topic) ON (t.tenantId, t.embeddingModel)",
            f"DROP INDEX {FULLTEXT_INDEX} IF EXISTS",
            _fulltext_index(_FULLTEXT_LABELS, *SOURCES, "tenantId"),
        ),
    ),
    Migration(
        235,  # issue 23, item 5 (other items of the same issue may add migrations in parallel)
        "notes carry their front-matter properties as node properties (fm.<name>, fml.<name>) for property "
        "queries (a query reads the tenant's notes through the (tenantId, updatedAt) index, as every list does)",
        (),
        backfill=_backfill_note_properties,
    ),
    Migration(
        241,  # issue 24, item 1
        "the full-text index reads one field per node, searchText (a node's title, path, summary, body and text in "
        "one bag of words, graph/search_text.py), instead of scoring each of them as a field and summing",
        (
            f"DROP INDEX {FULLTEXT_INDEX} IF EXISTS",
            f"MATCH (n:{_FULLTEXT_LABELS}) "
            f"CALL (n) {{ SET {set_search_text('n')} }} IN TRANSACTIONS OF 10000 ROWS",
            _fulltext_index(_FULLTEXT_LABELS, SEARCH_TEXT_FIELD, "tenantId"),
        ),
    ),
    Migration(
        255,  # issue 25, item 5
        "every link carries its tenant and the last segment of its key (tenantId, linkName), and wikilinks are "
        "found by that name through an index, not by a walk over the tenant's edges (graph/links.py NAMED_EDGE)",
        (
            "MATCH (s:Item)-[r]->() WHERE r.key IS NOT NULL AND r.linkName IS NULL "
            "CALL (s, r) { SET r.tenantId = s.tenantId, r.linkName = last(split(r.key, '/')) } "
            "IN TRANSACTIONS OF 10000 ROWS",
            "CREATE INDEX wikilink_name IF NOT EXISTS FOR ()-[r:WIKILINK]-() ON (r.tenantId, r.linkName)",
        ),
    ),
    Migration(
        256,  # issue 25, item 6 (found there: a tenant's keyword search slowed by another tenant's import)
        "the full-text index restricts a query to its tenant by searchTenant, the tenant id as one index word "
        "(text/lucene.py tenant_token), not by the analysed tenantId, whose words other tenants' ids share",
        (
            f"DROP INDEX {FULLTEXT_INDEX} IF EXISTS",
            f"MATCH (n:{_FULLTEXT_LABELS}) "
            f"CALL (n) {{ SET n.{SEARCH_TENANT_FIELD} = {tenant_token_cypher('n.tenantId')} }} "
            "IN TRANSACTIONS OF 10000 ROWS",
            _fulltext_index(_FULLTEXT_LABELS, SEARCH_TEXT_FIELD, SEARCH_TENANT_FIELD),
        ),
    ),
    Migration(
        257,  # issue 25, item 6
        "the substring fallback finds its candidates in an index of the words as written (item_words), not by a "
        "scan of the tenant's text: a search for words the vault does not hold no longer reads every note",
        (
            # The tenant's word first: Neo4j takes a full-text index on the same labels and properties in the same
            # order for the English one and would create nothing (IF NOT EXISTS).
            _fulltext_index(_FULLTEXT_LABELS, SEARCH_TENANT_FIELD, SEARCH_TEXT_FIELD, name=WORDS_INDEX,
                            analyzer="standard-no-stop-words"),
        ),
    ),
)

APPLIED_VERSIONS = "MATCH (m:SchemaMigration) RETURN m.version AS version"
RECORD_VERSION = """
MERGE (m:SchemaMigration {version: $version})
ON CREATE SET m.description = $description, m.appliedAt = datetime()
"""


async def _applied(tx: AsyncManagedTransaction) -> set[int]:
    result = await tx.run(APPLIED_VERSIONS)
    return {record["version"] async for record in result}


async def _record(tx: AsyncManagedTransaction, version: int, description: str) -> None:
    await tx.run(RECORD_VERSION, version=version, description=description)


def _vector_index_statement(dimensions: int) -> str:
    # Cypher 25 lets the index carry tenantId and scope, so SEARCH ... WHERE filters inside the index.
    return (
        f"CYPHER 25 CREATE VECTOR INDEX {vector_index_name(dimensions)} IF NOT EXISTS "
        f"FOR (n:{embedded_label(dimensions)}) ON (n.embedding) WITH [n.tenantId, n.scope] "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dimensions)}, "
        "`vector.similarity_function`: 'cosine'}}"
    )


async def apply_migrations(graph: Graph, embedding_dimensions: int) -> list[int]:
    """Apply every migration not yet recorded, then make sure the vector index for this dimension exists."""
    applied = await graph.read(_applied)
    ran: list[int] = []
    async with graph.driver.session(database=graph.database) as session:
        for migration in MIGRATIONS:
            if migration.version in applied:
                continue
            for statement in migration.statements:
                # Schema statements cannot share a transaction with writes, so each runs on its own.
                await (await session.run(statement)).consume()
            if migration.backfill is not None:
                while await session.execute_write(migration.backfill):
                    pass
            await session.execute_write(_record, migration.version, migration.description)
            log.info("migration applied", version=migration.version, description=migration.description)
            ran.append(migration.version)
        await (await session.run(_vector_index_statement(embedding_dimensions))).consume()
        await (await session.run("CALL db.awaitIndexes(300)")).consume()
    return ran
