"""Documents per second through the whole enrichment pipeline, and the share of time in each phase.

    .venv/bin/python bench/enrichment_pipeline.py --documents 200                    # offline model (no chat)
    .venv/bin/python bench/enrichment_pipeline.py --documents 200 --latency 0.2      # test server, 200 ms a call

Neo4j: NEO4J_URI when set, else a local one started under `.vaultgraph-test/bench/` on port 7699 (stopped afterwards
unless --keep-neo4j); the workspace files go to a temporary directory. With --latency, chat and embeddings come
from the local OpenAI-compatible test server with that fixed delay per call, through the real `openai` client;
without it, the offline model embeds and there is no chat. Each run uses a fresh tenant; the workers serve only it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.openai_server import OpenAICompatibleServer, run_openai_server  # noqa: E402
from vaultgraph.config import Settings  # noqa: E402
from vaultgraph.domain import EnrichmentStage, Principal  # noqa: E402
from vaultgraph.events.bus import DocumentStageChanged, InProcessBus  # noqa: E402
from vaultgraph.graph.migrations import apply_migrations  # noqa: E402
from vaultgraph.graph.session import Graph  # noqa: E402
from vaultgraph.models import LocalEmbedder, LocalModelClient, ModelClient, ModelConfig, OpenAIModelClient  # noqa: E402
from vaultgraph.neo4j_local import server as local_neo4j  # noqa: E402
from vaultgraph.runtime import model_config  # noqa: E402
from vaultgraph.services.documents import DocumentDraft, DocumentService  # noqa: E402
from vaultgraph.workers.pool import build_worker_pool  # noqa: E402
from vaultgraph.workspace import Workspace  # noqa: E402

FINAL = {EnrichmentStage.DONE, EnrichmentStage.FAILED, EnrichmentStage.SKIPPED}
WORDS = ["index", "lease", "graph", "vector", "summary", "batch", "tenant", "queue", "worker", "claim", "retry",
         "backoff", "embedding", "link", "wikilink", "taxonomy", "category", "neo4j", "cypher", "subscription",
         "event", "progress", "document", "workspace"]


def body(n: int) -> str:
    words = " ".join(WORDS[(n * 7 + i) % len(WORDS)] for i in range(120))
    return f"# Document {n}\n\n{words}.\n\nSee [[doc-{(n + 1) % 50:04d}]] for more.\n"


@contextlib.contextmanager
def neo4j(keep: bool) -> Iterator[str]:
    if os.environ.get("NEO4J_URI"):
        yield os.environ["NEO4J_URI"]
        return
    settings = Settings(data_dir=REPO / ".vaultgraph-test" / "bench", neo4j_bolt_port=7699, neo4j_pagecache_mb=512)
    local = local_neo4j.LocalNeo4j.from_settings(settings)
    started = local_neo4j.start(local, settings.java_home, settings.neo4j_start_timeout)
    try:
        yield settings.local_bolt_uri
    finally:
        if started and not keep:
            local_neo4j.stop(local)


def chat_reply(body: dict[str, object]) -> str:
    text = str(body["messages"][-1]["content"])  # type: ignore[index]
    if "### Document 1" in text:
        count = text.count("### Document ")
        return json.dumps([{"idx": i, "summary": f"Summary {i}.", "category": "Technology"}
                           for i in range(1, count + 1)])
    return json.dumps([{"idx": i, "type": "RELATED"} for i in range(1, text.count("### Candidate ") + 1)])


async def run(args: argparse.Namespace, uri: str, model_server: OpenAICompatibleServer | None) -> None:
    settings = Settings(data_dir=Path(tempfile.mkdtemp(prefix="vaultgraph-bench-")),
                        enrichment_concurrency=args.concurrency, enrichment_sweep_seconds=3600)
    graph = Graph.connect(uri, "neo4j", os.environ.get("NEO4J_PASSWORD"))
    await apply_migrations(graph, 384)
    models: ModelClient
    if model_server is not None:
        models = OpenAIModelClient(ModelConfig(base_url=model_server.base_url, api_key="bench", chat_model="c",
                                               embedding_model="e", embedding_dimensions=384))
    else:
        models = LocalModelClient(LocalEmbedder(model_config(settings).local))  # the settings' offline model
        await models.warm_up()
    tenant = f"bench{uuid.uuid4().hex[:10]}"
    principal = Principal(tenant_id=tenant, sees_all_scopes=True)
    workspace = Workspace(settings.workspace_dir)
    documents = DocumentService(graph, workspace, 100)
    ids = {(await documents.create(principal, DocumentDraft(path=f"doc-{n:04d}.md", content=body(n)))).id
           for n in range(args.documents)}
    bus = InProcessBus()
    finished: set[str] = set()
    everything = bus.subscribe(capacity=1_000_000)
    pool = build_worker_pool(settings, graph, workspace, models, bus, tenants=frozenset({tenant}))
    started = time.perf_counter()
    await pool.start()
    async for event in everything:
        if isinstance(event, DocumentStageChanged) and event.stage in FINAL:
            finished.add(event.document_id)
            if finished >= ids:
                break
    elapsed = time.perf_counter() - started
    await pool.stop()
    timings = pool.pipeline.timings
    total = sum(timings.seconds.values()) or 1.0
    mode = f"test server, {args.latency * 1000:.0f} ms a call" if model_server else "offline model, no chat"
    print(f"{args.documents} documents in {elapsed:.2f} s: {args.documents / elapsed:.1f} documents/s "
          f"({mode}; {args.concurrency} concurrent batches of {settings.enrichment_batch_size})")
    for phase, seconds in timings.seconds.items():
        print(f"  {phase:<10} {seconds / total:6.1%}  ({seconds:.2f} s over {timings.documents[phase]} documents)")
    if model_server is not None:
        print(f"  chat calls {model_server.count('chat')}, embedding calls {model_server.count('embeddings')}")
    await models.aclose()
    await graph.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--latency", type=float, default=None, help="seconds per model call at the test server")
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--keep-neo4j", action="store_true")
    args = parser.parse_args()
    with neo4j(args.keep_neo4j) as uri:
        if args.latency is None:
            asyncio.run(run(args, uri, None))
            return
        with run_openai_server(embedding_dimensions=384) as server:
            server.on_chat(chat_reply)
            server.delay(args.latency, times=1_000_000)
            asyncio.run(run(args, uri, server))


if __name__ == "__main__":
    main()
