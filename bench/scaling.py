"""Enrichment throughput with 1 and 2 `vaultgraph worker` processes, and the speed-up, measured in one run.

    .venv/bin/python bench/scaling.py                          # 200 documents, 200 ms per model call
    .venv/bin/python bench/scaling.py --documents 400 --latency 0.5

Everything is real and on loopback: Neo4j (NEO4J_URI when set, else the local one under `.vaultgraph-test/bench/`
on port 7699), Debian's redis-server on a free port, the local OpenAI-compatible test server answering every chat
and embedding call after a fixed delay, and the workers as separate processes of the installed CLI. For each
worker count: a fresh tenant, its documents written first (QUEUED, nobody told), the workers started and ready
(idle: their start-up sweep found nothing), then one burst of `DocumentQueued` events through Redis starts the
clock, which stops when the last document's DONE arrives back through Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.enrichment_pipeline import FINAL, body, chat_reply, neo4j  # noqa: E402
from tests.support.cluster import base_env, start_worker, wait_ready  # noqa: E402
from tests.support.harness import Child  # noqa: E402
from tests.support.openai_server import OpenAICompatibleServer, run_openai_server  # noqa: E402
from tests.support.redis import running_redis  # noqa: E402
from vaultgraph.domain import Document, Principal  # noqa: E402
from vaultgraph.events.bus import DocumentStageChanged  # noqa: E402
from vaultgraph.events.redis import RedisBus  # noqa: E402
from vaultgraph.graph import enrichment_progress as progress_cypher  # noqa: E402
from vaultgraph.graph.migrations import apply_migrations  # noqa: E402
from vaultgraph.graph.session import Graph  # noqa: E402
from vaultgraph.services.documents import DocumentDraft, DocumentService  # noqa: E402
from vaultgraph.services.enrichment import EnrichmentService  # noqa: E402
from vaultgraph.workspace import Workspace  # noqa: E402


async def measure(workers: int, args: argparse.Namespace, uri: str, redis_url: str,
                  model: OpenAICompatibleServer, data_dir: Path) -> float:
    """Seconds for `args.documents` documents through `workers` worker processes."""
    tenant = f"scale{uuid.uuid4().hex[:10]}"
    graph = Graph.connect(uri, "neo4j", os.environ.get("NEO4J_PASSWORD"))
    await apply_migrations(graph, 384)
    documents = DocumentService(graph, Workspace(data_dir / "workspace"), 100)  # no hook: nobody is told yet
    principal = Principal(tenant_id=tenant, sees_all_scopes=True)
    created: list[Document] = [
        await documents.create(principal, DocumentDraft(path=f"doc-{n:04d}.md", content=body(n)))
        for n in range(args.documents)
    ]
    env = base_env(neo4j_uri=uri, redis_url=redis_url, data_dir=data_dir, tenant=tenant,
                   model_base_url=model.base_url, VAULTGRAPH_ENRICHMENT_SWEEP_SECONDS="3600",
                   VAULTGRAPH_ENRICHMENT_CONCURRENCY=str(args.concurrency), VAULTGRAPH_WORKSPACE_WATCH="false",
                   VAULTGRAPH_LOG_LEVEL="INFO")
    logs = Path(tempfile.mkdtemp(prefix="vaultgraph-bench-logs-"))
    processes: list[Child] = [start_worker(f"worker-{n}", env, logs) for n in range(1, workers + 1)]
    bus = RedisBus(redis_url, 1_000_000, tenants=[tenant])
    try:
        for process in processes:
            await asyncio.to_thread(wait_ready, process)
        await bus.start()
        enrichment = EnrichmentService(graph, bus)
        chat_before = model.count("chat")
        async with bus.subscribe(lambda e: isinstance(e, DocumentStageChanged) and e.stage in FINAL,
                                 label="bench") as finished:
            started = time.perf_counter()
            for document in created:
                await enrichment.enqueue(document)
            pending = {document.id for document in created}
            async for event in finished:
                assert isinstance(event, DocumentStageChanged)
                pending.discard(event.document_id)
                if not pending:
                    break
            elapsed = time.perf_counter() - started
        counts = await graph.read(progress_cypher.stage_counts, tenant, None)
        print(f"  {workers} worker process{'es' if workers > 1 else ''}: {args.documents} documents in "
              f"{elapsed:.1f} s = {args.documents / elapsed:.2f} documents/s "
              f"(stages {counts}; {model.count('chat') - chat_before} chat calls)", flush=True)
        return elapsed
    finally:
        await bus.aclose()
        for process in processes:
            await asyncio.to_thread(process.stop)
        await graph.close()


async def run(args: argparse.Namespace, uri: str, redis_url: str, model: OpenAICompatibleServer) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="vaultgraph-bench-scaling-"))
    print(f"enrichment throughput: {args.documents} documents, {args.latency * 1000:.0f} ms per model call, "
          f"{args.concurrency} concurrent batches of 5 per worker", flush=True)
    one = await measure(1, args, uri, redis_url, model, data_dir)
    two = await measure(2, args, uri, redis_url, model, data_dir)
    print(f"  speed-up with 2 workers: {one / two:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per model call at the test server")
    parser.add_argument("--concurrency", type=int, default=3, help="concurrent batches per worker process")
    parser.add_argument("--keep-neo4j", action="store_true")
    args = parser.parse_args()
    with neo4j(args.keep_neo4j) as uri, running_redis() as redis, run_openai_server(embedding_dimensions=384) as model:
        model.on_chat(chat_reply)
        model.set_latency(args.latency)
        asyncio.run(run(args, uri, redis.url, model))


if __name__ == "__main__":
    main()
