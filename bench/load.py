"""The bulk path: a generated vault written with batched `UNWIND` statements, every index live.

vaultgraph has no bulk import of its own yet (every note goes through the save pipeline, one transaction each),
so this loader writes what the pipeline would have written — the same labels, properties, edge properties and
vector label, so the services, the floor and the peer all read one and the same graph — in large batches.
The schema comes from vaultgraph's own migrations, applied first, so the full-text, vector and lookup indexes are
maintained while the data goes in, and the load is timed until they are all online.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from bench.generate import DIMENSIONS, Dataset
from vaultgraph.graph.migrations import apply_migrations, embedded_label
from vaultgraph.graph.note_query import property_fields
from vaultgraph.graph.search_text import set_search_text
from vaultgraph.graph.session import Graph
from vaultgraph.models.local_embedding import LOCAL_MODEL_NAME

NOTE_BATCH = 500
LINK_BATCH = 5000
# The synthetic vectors stand for the server's own model's (the offline default the bench server runs), so its
# vector channel ranks them: search uses only vectors its model made (vaultgraph/graph/vectors.py).
EMBEDDING_MODEL = LOCAL_MODEL_NAME
BASE_EPOCH_MS = 1_767_225_600_000  # 2026-01-01; note i was last updated i seconds before it

# The label is `embedded_label(DIMENSIONS)`, built from an int.
CREATE_NOTES = f"""
UNWIND $rows AS row
CREATE (n:Item:Note:{embedded_label(DIMENSIONS)} {{tenantId: $tenant, id: row.id}})
SET n += row.props, n.createdAt = datetime({{epochMillis: row.ts}}), n.updatedAt = datetime({{epochMillis: row.ts}})
SET {set_search_text("n")}
"""

CREATE_LINKS = """
UNWIND $rows AS row
MATCH (s:Item {tenantId: $tenant, id: row.source})
MATCH (t:Item {tenantId: $tenant, id: row.target})
CREATE (s)-[r:WIKILINK]->(t)
SET r = row.props, r.createdAt = datetime({epochMillis: row.ts})
"""

AWAIT_INDEXES = "CALL db.awaitIndexes(600)"


@dataclass(frozen=True, slots=True)
class LoadReport:
    notes: int
    links: int
    seconds: float

    @property
    def notes_per_second(self) -> float:
        return self.notes / self.seconds if self.seconds else 0.0


def bench_properties(i: int) -> dict[str, Any]:
    """Front-matter properties of note i, spread on the node as a save spreads them, for the property query."""
    return {"status": ("open", "done", "later")[i % 3], "priority": i % 10}


def note_rows(dataset: Dataset, start: int, stop: int) -> list[dict[str, Any]]:
    """Rows for notes[start:stop]; built a batch at a time, as 100k vectors as Python floats would not fit well."""
    rows = []
    for i in range(start, min(stop, len(dataset.notes))):
        note = dataset.notes[i]
        body_sha = hashlib.sha256(note.body.encode()).hexdigest()
        properties = bench_properties(i)
        rows.append({"id": note.id, "ts": BASE_EPOCH_MS - i * 1000, "props": {
            "scope": "shared", "ownerKey": "shared", "indexed": True, "pinned": False,
            "slug": note.slug, "slugName": note.slug.rsplit("/", 1)[-1], "title": note.title,
            "titleLower": note.title.casefold(), "body": note.body, "bodySha256": body_sha,
            "frontmatter": json.dumps(properties),
            "tags": list(note.tags), "kind": note.kind, "embedding": dataset.vectors[i].tolist(),
            "embeddingModel": EMBEDDING_MODEL, "embeddingDimensions": DIMENSIONS, "embeddingHash": body_sha,
            **property_fields(properties),
        }})
    return rows


def link_rows(dataset: Dataset, start: int, stop: int) -> list[dict[str, Any]]:
    """Rows for links[start:stop]; a link's ordinal among its note's links makes its id and its createdAt."""
    notes = dataset.notes
    rows: list[dict[str, Any]] = []
    for k in range(start, min(stop, len(dataset.links))):
        link = dataset.links[k]
        ordinal = k - dataset.first_link[link.source]
        source = notes[link.source].id
        rows.append({
            "source": source, "target": notes[link.target].id, "ts": BASE_EPOCH_MS - link.source * 1000 + ordinal,
            "props": {"id": f"lnk_{source[5:]}_{ordinal}", "ref": link.ref, "target": link.target_text,
                      "label": link.label, "context": link.context, "embed": False, "count": 1, "origin": "wikilink"},
        })
    return rows


async def _run(tx: AsyncManagedTransaction, statement: str, tenant: str, rows: Sequence[dict[str, Any]]) -> None:
    await (await tx.run(statement, tenant=tenant, rows=list(rows))).consume()


async def prepare_schema(graph: Graph) -> None:
    """vaultgraph's migrations, as the server applies them at start."""
    await apply_migrations(graph, DIMENSIONS)


async def bulk_load(graph: Graph, dataset: Dataset) -> LoadReport:
    """Write the vault in batches (notes first, then links) and wait for every index to catch up."""
    started = time.perf_counter()
    pending = iter(range(0, len(dataset.notes), NOTE_BATCH))

    async def writer() -> None:
        for start in pending:
            await graph.write(_run, CREATE_NOTES, dataset.tenant, note_rows(dataset, start, start + NOTE_BATCH))

    # Two writers: one packs its batch while Neo4j commits the other's. Links go one batch at a time, as
    # concurrent edge writes to the same hubs would only wait on each other's locks.
    await asyncio.gather(writer(), writer())
    for start in range(0, len(dataset.links), LINK_BATCH):
        await graph.write(_run, CREATE_LINKS, dataset.tenant, link_rows(dataset, start, start + LINK_BATCH))
    async with graph.driver.session(database=graph.database) as session:
        await (await session.run(AWAIT_INDEXES)).consume()
    return LoadReport(notes=len(dataset.notes), links=len(dataset.links), seconds=time.perf_counter() - started)
