"""How often enrichment picks the right category, on the hand-labelled sets in bench/data/: category_set.json (63
documents) and category_heldout.json (40, written after the first was measured, to check its figures hold).

    .venv/bin/python bench/category_accuracy.py
    NEO4J_URI=bolt://127.0.0.1:7690 .venv/bin/python bench/category_accuracy.py --misses   # and list each miss
    .venv/bin/python bench/category_accuracy.py --data bench/data/category_set.json       # one set

Every document goes through the real pipeline (document service, worker pool, Neo4j), once per way:
- offline: no chat model, the offline embedder (VAULTGRAPH_LOCAL_EMBEDDING_MODEL); the category is the zero-shot pick of
  vaultgraph/workers/offline_category.py from the document's own vector;
- offline, old rule: the rule the pipeline used before it (the best cosine of the document's vector to one
  "id: description" text per category, Others below 0.2), applied to the same documents' vectors, recomputed from
  the summary and title the offline run stored;
- test model server: chat through the real `openai` client to tests/support/openai_server.py. That server is a
  deterministic stand-in, not a model: its chat answers are scripted (bench/enrichment_pipeline.py's `chat_reply`,
  which names Technology for every document), so this row measures the code path, not a model's judgement.

Neo4j: NEO4J_URI when set, else the bench's local one (bench/enrichment_pipeline.py). Each way uses a fresh tenant.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.enrichment_pipeline import FINAL, chat_reply, neo4j  # noqa: E402
from tests.support.openai_server import run_openai_server  # noqa: E402
from vaultgraph.config import Settings  # noqa: E402
from vaultgraph.domain import Document, Principal  # noqa: E402
from vaultgraph.events.bus import DocumentStageChanged, InProcessBus  # noqa: E402
from vaultgraph.graph.migrations import apply_migrations  # noqa: E402
from vaultgraph.graph.session import Graph  # noqa: E402
from vaultgraph.models import LocalEmbedder, LocalModelClient, ModelClient, ModelConfig, OpenAIModelClient  # noqa: E402
from vaultgraph.runtime import model_config  # noqa: E402
from vaultgraph.services.documents import DocumentDraft, DocumentService  # noqa: E402
from vaultgraph.services.taxonomy import DEFAULT_TAXONOMY, FALLBACK  # noqa: E402
from vaultgraph.text.slugify import slugify  # noqa: E402
from vaultgraph.workers.pool import build_worker_pool  # noqa: E402
from vaultgraph.workers.prompts import embedding_text  # noqa: E402
from vaultgraph.workspace import Workspace  # noqa: E402

SETS = [REPO / "bench" / "data" / "category_set.json", REPO / "bench" / "data" / "category_heldout.json"]
OLD_MIN_COSINE = 0.2  # the old rule's floor (CATEGORY_MIN_COSINE in workers/pipeline.py before this bench)


@dataclass(frozen=True)
class Labelled:
    category: str
    title: str
    text: str

    @property
    def path(self) -> str:
        return f"notes/{slugify(self.title)}.md"


def load(path: Path) -> list[Labelled]:
    return [Labelled(**row) for row in json.loads(path.read_text())["documents"]]


async def enrich(uri: str, models: ModelClient, labelled: list[Labelled]) -> list[Document]:
    """The documents as the pipeline left them, in the set's order."""
    settings = Settings(data_dir=Path(tempfile.mkdtemp(prefix="vaultgraph-categories-")),
                        enrichment_sweep_seconds=3600)
    graph = Graph.connect(uri, "neo4j", os.environ.get("NEO4J_PASSWORD"))
    try:
        await apply_migrations(graph, models.embedding_dimensions)
        principal = Principal(tenant_id=f"benchcat{uuid.uuid4().hex[:10]}", sees_all_scopes=True)
        workspace = Workspace(settings.workspace_dir)
        documents = DocumentService(graph, workspace, 100)
        ids = [(await documents.create(principal, DocumentDraft(path=item.path, content=f"# {item.title}\n\n"
                                                                 f"{item.text}\n"))).id for item in labelled]
        bus = InProcessBus()
        events = bus.subscribe(capacity=100_000)
        pool = build_worker_pool(settings, graph, workspace, models, bus, tenants=frozenset({principal.tenant_id}))
        await pool.start()
        finished: set[str] = set()
        async for event in events:
            if isinstance(event, DocumentStageChanged) and event.stage in FINAL:
                finished.add(event.document_id)
                if finished >= set(ids):
                    break
        await pool.stop()
        return [await documents.get(principal, id) for id in ids]
    finally:
        await graph.close()


async def old_rule(models: ModelClient, enriched: list[Document]) -> list[str]:
    choosable = DEFAULT_TAXONOMY.choosable()
    targets = np.asarray(await models.embed([f"{c.id}: {c.description}" for c in choosable]), dtype=np.float32)
    vectors = np.asarray(await models.embed([embedding_text(d.title, d.path, d.summary) for d in enriched]),
                         dtype=np.float32)
    targets /= np.linalg.norm(targets, axis=1, keepdims=True)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    picks = []
    for scores in vectors @ targets.T:
        best = int(np.argmax(scores))
        picks.append(choosable[best].id if scores[best] >= OLD_MIN_COSINE else FALLBACK)
    return picks


def report(way: str, labelled: list[Labelled], picks: list[str | None], misses: bool) -> None:
    right = sum(item.category == pick for item, pick in zip(labelled, picks, strict=True))
    others = Counter(picks)[FALLBACK]
    wanted_others = sum(item.category == FALLBACK for item in labelled)
    print(f"{way:<34} {right:>3}/{len(labelled)} = {right / len(labelled):6.1%}   "
          f"Others picked {others} times ({wanted_others} labelled Others)")
    if misses:
        for item, pick in zip(labelled, picks, strict=True):
            if item.category != pick:
                print(f"    {item.title!r}: {item.category} -> {pick}")


async def run(uri: str, sets: list[Path], misses: bool) -> None:
    for path in sets:
        labelled = load(path)
        spread = Counter(item.category for item in labelled)
        print(f"{path.name}: {len(labelled)} labelled documents over {len(spread)} categories "
              f"({min(spread.values())}-{max(spread.values())} each)")
        await run_set(uri, labelled, misses)


async def run_set(uri: str, labelled: list[Labelled], misses: bool) -> None:
    offline = LocalModelClient(LocalEmbedder(model_config(Settings()).local))  # the settings' offline model
    await offline.warm_up()
    enriched = await enrich(uri, offline, labelled)
    report("offline (embedding zero-shot)", labelled, [d.category for d in enriched], misses)
    report("offline, old rule (cosine >= 0.2)", labelled, await old_rule(offline, enriched), misses)
    await offline.aclose()
    with run_openai_server(embedding_dimensions=384) as server:
        server.on_chat(chat_reply)
        remote = OpenAIModelClient(ModelConfig(base_url=server.base_url, api_key="bench", chat_model="c",
                                               embedding_model="e", embedding_dimensions=384))
        enriched = await enrich(uri, remote, labelled)
        report("test model server (scripted chat)", labelled, [d.category for d in enriched], misses)
        await remote.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, action="append", help="a labelled set (repeatable; default: both)")
    parser.add_argument("--misses", action="store_true", help="list every document whose pick was wrong")
    parser.add_argument("--keep-neo4j", action="store_true")
    args = parser.parse_args()
    with neo4j(args.keep_neo4j) as uri:
        asyncio.run(run(uri, args.data or SETS, args.misses))


if __name__ == "__main__":
    main()
