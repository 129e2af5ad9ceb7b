"""The keyword channel's index layout, measured on SciFact in Neo4j's full-text index itself (issue 24's levers).

The keyword channel reads only text, so this needs no model and no pipeline: it writes the corpus into a scratch
tenant as bare nodes (a note's title and body, its chunks cut by the server's own chunker and policy), builds one
full-text index per layout with the server's analyzer, asks every claim through each with the server's own query
builder (`text/lucene.py`), rolls chunk rows up to their note as the service does (best row), and prints nDCG@10 on
the even claims (the tuning half, A) and the odd ones (held out, B) and recall@100, per layout.

    NEO4J_URI=bolt://127.0.0.1:7690 .venv/bin/python bench/keyword_layouts.py

The scratch nodes (`:KwProbe`, `:KwProbeChunk`) and their indexes are dropped at the end (`--keep` leaves them).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.search_quality import DATASET, load_dataset, ndcg_at_10, recall_at_100  # noqa: E402
from vaultgraph.config import Settings  # noqa: E402
from vaultgraph.graph.session import Graph  # noqa: E402
from vaultgraph.services.fusion import roll_up  # noqa: E402
from vaultgraph.services.indexing import MIN_NOTE_CHUNKS  # noqa: E402
from vaultgraph.text.chunking import ChunkingPolicy, chunk_text  # noqa: E402
from vaultgraph.text.lucene import fulltext_query, query_terms, tenant_token  # noqa: E402

TENANT = "kw-probe"
ANALYZER = "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}"
INDEXES = {
    # Today's item_text: notes and their chunks in one index, each property its own BM25 field.
    "kw_fields": "FOR (n:KwProbe|KwProbeChunk) ON EACH [n.title, n.body, n.text, n.searchTenant]",
    # Notes alone, title and body as fields.
    "kw_notes": "FOR (n:KwProbe) ON EACH [n.title, n.body, n.searchTenant]",
    # Notes alone, title and body as one bag of words (what bm25s reads).
    "kw_flat": "FOR (n:KwProbe) ON EACH [n.flat, n.searchTenant]",
    # Notes' one bag of words beside their chunks (each chunk with its note's title).
    "kw_flat_chunks": "FOR (n:KwProbe|KwProbeChunk) ON EACH [n.flat, n.searchTenant]",
    # Notes' one bag of words in a field of their own beside their chunks' bare text in theirs.
    "kw_split": "FOR (n:KwProbe|KwProbeChunk) ON EACH [n.itemText, n.text, n.searchTenant]",
    # Notes' one bag of words beside their chunks' bare text.
    "kw_flat_bare_chunks": "FOR (n:KwProbe|KwProbeChunk) ON EACH [n.flatBare, n.searchTenant]",
}


@dataclass(frozen=True)
class Layout:
    name: str
    index: str
    fields: tuple[str, ...]
    boosts: dict[str, float] | None = None


LAYOUTS = [
    Layout("today: notes + chunks, fields title, body, text", "kw_fields", ("title", "body", "text")),
    Layout("notes + chunks, title ×2", "kw_fields", ("title", "body", "text"), {"title": 2.0}),
    Layout("notes + chunks, title ×0.5", "kw_fields", ("title", "body", "text"), {"title": 0.5}),
    Layout("notes alone, fields title, body", "kw_notes", ("title", "body")),
    Layout("notes alone, body only", "kw_notes", ("body",)),
    Layout("notes alone, one field title + body", "kw_flat", ("flat",)),
    Layout("one field title + body, and chunks with their title", "kw_flat_chunks", ("flat",)),
    Layout("one field title + body, and chunks' bare text", "kw_flat_bare_chunks", ("flatBare",)),
    Layout("title + body in one field, chunks' text in another", "kw_split", ("itemText", "text")),
]

QUERY = """
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $limit}) YIELD node, score
RETURN coalesce(node.itemId, node.id) AS id, score
"""


async def load(driver, corpus: dict[str, dict[str, str]]) -> None:  # type: ignore[no-untyped-def]
    policy = ChunkingPolicy()
    notes, chunks = [], []
    for doc_id, doc in corpus.items():
        title, body = (doc["title"] or doc_id)[:500], doc["text"]
        # A note's one bag of words under three names: an index reads properties by name, and the three layouts
        # that use it differ in what their chunks hold under the same name (title + text, bare text, none).
        flat = f"{title}\n\n{body}"
        notes.append({"id": doc_id, "title": title, "body": body, "flat": flat, "flatBare": flat, "itemText": flat})
        pieces = chunk_text(body, policy)
        if len(pieces) >= MIN_NOTE_CHUNKS:
            chunks.extend({"id": f"{doc_id}#{p.ordinal}", "itemId": doc_id, "text": p.text,
                           "flat": f"{title}\n{p.text}", "flatBare": p.text} for p in pieces)
    async with driver.session() as session:
        await session.run("MATCH (n:KwProbe|KwProbeChunk {tenantId: $t}) DETACH DELETE n", t=TENANT)
        for start in range(0, len(notes), 1000):
            await session.run("UNWIND $rows AS r CREATE (n:KwProbe) SET n = r, n.tenantId = $t, n.searchTenant = $w",
                              rows=notes[start:start + 1000], t=TENANT, w=tenant_token(TENANT))
        for start in range(0, len(chunks), 1000):
            await session.run("UNWIND $rows AS r CREATE (n:KwProbeChunk) "
                              "SET n = r, n.tenantId = $t, n.searchTenant = $w",
                              rows=chunks[start:start + 1000], t=TENANT, w=tenant_token(TENANT))
        for name, spec in INDEXES.items():
            await session.run(f"DROP INDEX {name} IF EXISTS")
            await session.run(f"CREATE FULLTEXT INDEX {name} IF NOT EXISTS {spec} {ANALYZER}")
        await session.run("CALL db.awaitIndexes(600)")
    print(f"loaded {len(notes)} notes and {len(chunks)} chunks", flush=True)


async def ranked(session, layout: Layout, claim: str, limit: int) -> list[str]:  # type: ignore[no-untyped-def]
    lucene = fulltext_query(query_terms(claim), layout.fields, TENANT, layout.boosts)
    if lucene is None:
        return []
    result = await session.run(QUERY, index=layout.index, lucene=lucene, limit=limit * 3)
    rows = [(record["id"], record["score"], None, None) async for record in result]
    return [hit.item_id for hit in roll_up(rows)][:limit]


async def run(args: argparse.Namespace) -> None:
    data = load_dataset(args.data)
    claims = [(qid, text) for qid, text in data.queries.items() if qid in data.qrels]
    settings = Settings()
    if settings.neo4j_uri is None:
        raise SystemExit("set NEO4J_URI to a running Neo4j (e.g. `vaultgraph neo4j start`'s)")
    graph = Graph.connect(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    driver = graph.driver
    try:
        await load(driver, data.corpus)
        print(f"{'layout':<55} {'nDCG@10 A':>9} {'nDCG@10 B':>9} {'all':>6} {'R@100 B':>8} {'ms':>5}")
        async with driver.session() as session:
            for layout in LAYOUTS:
                halves: dict[int, list[float]] = {0: [], 1: []}
                recalls, times = [], []
                for position, (qid, text) in enumerate(claims):
                    started = time.perf_counter()
                    docs = await ranked(session, layout, text, 100)
                    times.append((time.perf_counter() - started) * 1000)
                    halves[position % 2].append(ndcg_at_10(docs, data.qrels[qid]))
                    if position % 2:
                        recalls.append(recall_at_100(docs, data.qrels[qid]))
                whole = statistics.mean(halves[0] + halves[1])
                print(f"{layout.name:<55} {statistics.mean(halves[0]):>9.3f} {statistics.mean(halves[1]):>9.3f} "
                      f"{whole:>6.3f} {statistics.mean(recalls):>8.3f} {statistics.median(times):>5.1f}", flush=True)
        if not args.keep:
            async with driver.session() as session:
                for name in INDEXES:
                    await session.run(f"DROP INDEX {name} IF EXISTS")
                await session.run("MATCH (n:KwProbe|KwProbeChunk {tenantId: $t}) DETACH DELETE n", t=TENANT)
    finally:
        await graph.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATASET)
    parser.add_argument("--keep", action="store_true", help="leave the scratch nodes and indexes in Neo4j")
    asyncio.run(run(parser.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
