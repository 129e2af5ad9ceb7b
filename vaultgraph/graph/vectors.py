"""The one rule for a stored vector: which model made it, and which index it is in.

Every node that holds a vector (a note, a document, a chunk) records `embeddingModel` and `embeddingDimensions`
beside `embedding`, and carries the label `Embedded{dimensions}` that puts it in the vector index of its
dimension. Every statement that writes a vector composes `set_vector` (so the three writers, the note and document
indexer, its chunks and the enrichment pipeline, cannot record it differently), every vector read composes
`from_model` (so search never ranks a vector of another model against the query's), and `reembed` finds what
`is_stale` says was made by another model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.graph.migrations import embedded_label

EMBEDDED_LABEL_PREFIX = "Embedded"
_NAME = re.compile(r"[a-z][A-Za-z0-9_.]*\Z")  # the node and vector expressions spliced below are code constants


@dataclass(frozen=True, slots=True)
class VectorModel:
    """The embedding model a vector comes from: its name and its dimension."""

    name: str
    dimensions: int

    @property
    def label(self) -> str:
        return embedded_label(self.dimensions)

    def params(self) -> dict[str, Any]:
        """The parameters `set_vector`, `from_model` and `is_stale` read."""
        return {"model": self.name, "dimensions": int(self.dimensions), "label": self.label}


def _checked(*names: str) -> None:
    for name in names:
        if not _NAME.match(name):
            raise ValueError(f"not a Cypher variable or property: {name!r}")


def set_vector(node: str, vector: str) -> str:
    """A unit subquery that stores `vector` (an expression over `row`; null clears it) on `node` with the model
    of `$model`/`$dimensions` and the label of `$label`, dropping any other dimension's label."""
    _checked(node, vector)
    return f"""
CALL ({node}, row) {{
  WITH {node}, row, [label IN labels({node}) WHERE label STARTS WITH '{EMBEDDED_LABEL_PREFIX}'
                                              AND ({vector} IS NULL OR label <> $label)] AS stale
  REMOVE {node}:$(stale)
  SET {node}.embedding = {vector},
      {node}.embeddingModel = CASE WHEN {vector} IS NULL THEN null ELSE $model END,
      {node}.embeddingDimensions = CASE WHEN {vector} IS NULL THEN null ELSE $dimensions END
  WITH {node}, row WHERE {vector} IS NOT NULL
  SET {node}:$($label)
}}"""


def from_model(node: str) -> str:
    """True when `node`'s vector was made by `$model` (the index it was found in fixes the dimension)."""
    _checked(node)
    return f"coalesce({node}.embeddingModel = $model, false)"


def is_stale(node: str) -> str:
    """True when `node` holds a vector that another model (or another dimension) made."""
    _checked(node)
    return (f"({node}.embedding IS NOT NULL AND NOT coalesce({node}.embeddingModel = $model "
            f"AND {node}.embeddingDimensions = $dimensions, false))")


# Stale vectors are found through the (tenantId, embeddingModel) indexes of migration 211: a name before or after
# the current one is two range predicates (an index cannot answer `<>`) answered from the index entries, and a vector
# of another dimension carries that dimension's label, so it is a label scan of the few nodes that have it. Nothing
# reads every node's properties to find none stale.
_STALE_BRANCHES = (
    "MATCH (n:Item) WHERE {tenants} AND n.embeddingModel < $model RETURN n",
    "MATCH (n:Item) WHERE {tenants} AND n.embeddingModel > $model RETURN n",
    "MATCH (n:Chunk) WHERE {tenants} AND n.embeddingModel < $model RETURN n",
    "MATCH (n:Chunk) WHERE {tenants} AND n.embeddingModel > $model RETURN n",
    "MATCH (n:Topic) WHERE {tenants} AND n.embeddingModel < $model RETURN n",
    "MATCH (n:Topic) WHERE {tenants} AND n.embeddingModel > $model RETURN n",
    "MATCH (n:{label}) WHERE {tenants} RETURN n",  # one per other dimension's label
)
_EMBEDDED_LABEL = re.compile(r"Embedded[0-9]{1,5}\Z")

OTHER_DIMENSION_LABELS = f"""
CALL db.labels() YIELD label
WHERE label STARTS WITH '{EMBEDDED_LABEL_PREFIX}' AND label <> $label
RETURN label
"""


def _stale_nodes(other_labels: list[str], tenants: list[str] | None) -> str:
    # Some tenants: a seek on the indexes' leading tenantId; every tenant: a scan of their entries.
    where = "n.tenantId IN $tenants" if tenants is not None else "n.tenantId IS NOT NULL"
    labels = [label for label in other_labels if _EMBEDDED_LABEL.match(label)]
    *by_name, by_label = _STALE_BRANCHES
    branches = [b.format(tenants=where) for b in by_name] + [by_label.format(label=x, tenants=where) for x in labels]
    return "CALL () {\n  " + "\n  UNION ALL\n  ".join(branches) + "\n}\n"


# What re-embedding reads of a stale node: the text its vector reads is rebuilt from what the graph holds (a note's
# title and body, a document's title, path and summary, a chunk's or a topic's heading and text with its item's
# title), so no
# file is read and nothing else about the item changes. `skip` holds what this run could not replace.
_KIND = "CASE WHEN n:Chunk THEN 'chunk' WHEN n:Topic THEN 'topic' WHEN n:Note THEN 'note' ELSE 'document' END"
_STALE_ROWS = """
WITH n WHERE NOT n.id IN $skip
WITH n LIMIT $limit
OPTIONAL MATCH (item:Item {tenantId: n.tenantId, id: n.itemId}) WHERE n:Chunk OR n:Topic
RETURN n.tenantId AS tenant, n.id AS id, """ + _KIND + """ AS kind,
       coalesce(CASE WHEN n:Chunk OR n:Topic THEN n.contentHash ELSE n.embeddingHash END, '') AS was,
       coalesce(CASE WHEN n:Chunk OR n:Topic THEN item.title ELSE n.title END, '') AS title, n.body AS body,
       n.path AS path, n.summary AS summary, n.heading AS heading, n.text AS text
"""

_STALE_COUNTS = """
WITH n LIMIT $cap
RETURN """ + _KIND + """ AS kind,
       coalesce(n.embeddingModel, '?') + '/' + coalesce(toString(n.embeddingDimensions), '?') AS model,
       count(DISTINCT n) AS count
"""

# A re-embedded vector replaces the stale one only while the node is still stale and holds the text it was read
# with (its hash, row.was): an edit between the read and the write has re-indexed it, with the current model. A
# row without a hash (a document's own vector, which the enrichment pipeline keys by the file) keeps its own.
_REPLACE = """
CYPHER 25
UNWIND $rows AS row
MATCH (n:{label} {{tenantId: row.tenant, id: row.id}})
WHERE {stale} AND coalesce(n.{hash}, '') = row.was
SET n.{hash} = coalesce(row.hash, n.{hash})
WITH n, row
"""

# The property each kind keeps the hash of its embedded text under (the indexer's reuse key).
HASH_PROPERTY = {"note": "embeddingHash", "document": "embeddingHash", "chunk": "contentHash", "topic": "contentHash"}
_LABEL = {"note": "Note", "document": "Document", "chunk": "Chunk", "topic": "Topic"}
REPLACE = {kind: _REPLACE.format(label=_LABEL[kind], stale=is_stale("n"), hash=HASH_PROPERTY[kind])
           + set_vector("n", "row.embedding") + "\nRETURN n.id AS id" for kind in _LABEL}


async def _other_labels(tx: AsyncManagedTransaction, model: VectorModel) -> list[str]:
    result = await tx.run(OTHER_DIMENSION_LABELS, label=model.label)
    return [record["label"] async for record in result]


async def stale(tx: AsyncManagedTransaction, model: VectorModel, tenants: list[str] | None, skip: list[str],
                limit: int) -> list[dict[str, Any]]:
    """Up to `limit` nodes of these tenants (every tenant: None) whose vector another model made, with what they
    read."""
    statement = _stale_nodes(await _other_labels(tx, model), tenants) + _STALE_ROWS
    result = await tx.run(statement, tenants=tenants, skip=skip, limit=limit, **model.params())
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    async for record in result:  # a node of another name and dimension is found twice
        rows.setdefault((record["tenant"], record["id"]), record.data())
    return list(rows.values())


async def replace(tx: AsyncManagedTransaction, kind: str, model: VectorModel, rows: list[dict[str, Any]]) -> set[str]:
    """Rows {tenant, id, was, hash (or None), embedding}: the new vectors; returns the ids that took theirs."""
    result = await tx.run(REPLACE[kind], rows=rows, **model.params())
    return {record["id"] async for record in result}


async def stale_counts(tx: AsyncManagedTransaction, model: VectorModel, tenants: list[str] | None = None,
                       cap: int | None = None) -> dict[tuple[str, str], int]:
    """(kind, "model/dimensions") -> how many vectors of that kind another model made (every tenant: None);
    with `cap`, the counts of the first `cap` found (a hint that there is work, read at the cost of `cap`)."""
    statement = _stale_nodes(await _other_labels(tx, model), tenants) + _STALE_COUNTS
    result = await tx.run(statement, tenants=tenants, cap=cap if cap is not None else 2**62, **model.params())
    return {(r["kind"], r["model"]): int(r["count"]) async for r in result}
