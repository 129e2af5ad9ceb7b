"""Fixtures of the worker tests: the real OpenAI-compatible test server, model clients wired to it or to the
offline model, and a harness that builds worker pools around one in-process bus with a recording subscriber."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from vaultgraph.config import Settings
from vaultgraph.domain import Document, EnrichmentStage, Principal
from vaultgraph.events.bus import DocumentStageChanged, Event, InProcessBus, Subscription
from vaultgraph.graph.session import Graph
from vaultgraph.models import LocalEmbedder, LocalModelClient, ModelClient, ModelConfig, OpenAIModelClient
from vaultgraph.services.documents import DocumentDraft, DocumentService
from vaultgraph.services.enrichment import EnrichmentService
from vaultgraph.workers.pipeline import ChunkIndexer, Pipeline, PipelineConfig
from vaultgraph.workers.pool import PoolConfig, WorkerPool, new_worker_id
from vaultgraph.workspace import Workspace

FINAL = {EnrichmentStage.DONE, EnrichmentStage.FAILED, EnrichmentStage.SKIPPED}
PIPELINE_STAGES = ["PREPARE", "SUMMARIZE", "EMBED", "CLASSIFY", "WIKILINKS", "DONE"]
CREATED_STAGES = ["QUEUED", *PIPELINE_STAGES]  # what a subscriber sees of a document created after it subscribed
_DOCUMENT = re.compile(r"^### Document (\d+)\nTitle: (.*)$", re.MULTILINE)
_CANDIDATE = re.compile(r"^### Candidate (\d+)", re.MULTILINE)


def user_message(body: dict[str, Any]) -> str:
    """The last message of a chat call; empty for other calls (an embeddings body has no messages)."""
    messages = body.get("messages") or [{}]
    return str(messages[-1].get("content", ""))


def is_summary_call(body: dict[str, Any]) -> bool:
    return "### Document 1" in user_message(body)


def summary_titles(body: dict[str, Any]) -> list[str]:
    """Titles of the documents one summary call asked about, in prompt order."""
    return [match.group(2) for match in _DOCUMENT.finditer(user_message(body))]


def good_summaries(body: dict[str, Any], category: str = "Technology") -> str:
    return json.dumps([{"idx": int(m.group(1)), "summary": f"Summary of {m.group(2)}.", "category": category}
                       for m in _DOCUMENT.finditer(user_message(body))])


def classify_reply(body: dict[str, Any], kind: str = "RELATED") -> str:
    return json.dumps([{"idx": int(m.group(1)), "type": kind} for m in _CANDIDATE.finditer(user_message(body))])


_NUMBERED = re.compile(r"^(\d+)\| (.*)$", re.MULTILINE)


def is_topics_call(body: dict[str, Any]) -> bool:
    return user_message(body).startswith("TOPICS OF\n")


def topics_reply(body: dict[str, Any]) -> str:
    """A topic at every paragraph (a line after a blank one, or the first), named by its first three words,
    labelled with its first word; a heading line gives its level as the depth."""
    lines = [(int(m.group(1)), m.group(2)) for m in _NUMBERED.finditer(user_message(body))]
    topics, blank = [], True
    for number, line in lines:
        if line.strip() and blank:
            level = len(line) - len(line.lstrip("#"))
            words = line.lstrip("# ").split()
            topics.append({"line": number, "name": " ".join(words[:3]), "depth": max(1, min(level, 6)),
                           "labels": [words[0].lower()]})
        blank = not line.strip()
    return json.dumps({"topics": topics})  # wrapped, as models in JSON mode often answer


def scripted_chat(body: dict[str, Any]) -> str:
    """A well-behaved model: summaries for summary calls, topics for topic calls, RELATED for every link
    candidate."""
    if is_topics_call(body):
        return topics_reply(body)
    return good_summaries(body) if is_summary_call(body) else classify_reply(body)


@pytest.fixture(scope="session")
def model_server_session() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server(embedding_dimensions=384) as server:
        yield server


@pytest.fixture
def model_server(model_server_session: OpenAICompatibleServer) -> OpenAICompatibleServer:
    model_server_session.reset()
    model_server_session.on_chat(scripted_chat)
    return model_server_session


@pytest.fixture(scope="session")
def local_embedder() -> LocalEmbedder:
    embedder = LocalEmbedder()
    embedder.load()
    return embedder


@pytest.fixture
async def remote_models(model_server: OpenAICompatibleServer) -> AsyncIterator[OpenAIModelClient]:
    """Chat and embeddings through the real `openai` client against the test server."""
    client = OpenAIModelClient(ModelConfig(
        base_url=model_server.base_url, api_key="sk-test-not-a-secret", chat_model="test-chat",
        embedding_model="test-embed", embedding_dimensions=384, timeout_seconds=5.0, max_retries=2,
    ))
    yield client
    await client.aclose()


@pytest.fixture
def offline_models(local_embedder: LocalEmbedder) -> LocalModelClient:
    return LocalModelClient(local_embedder)


class Recorder:
    """A recording subscriber: every event published on the bus, in order."""

    def __init__(self, subscription: Subscription) -> None:
        self.subscription = subscription
        self.events: list[Event] = []
        self._changed = asyncio.Event()
        self.task = asyncio.create_task(self._collect())

    async def _collect(self) -> None:
        async for event in self.subscription:
            self.events.append(event)
            self._changed.set()

    def stage_events(self, document_id: str | None = None) -> list[DocumentStageChanged]:
        return [e for e in self.events if isinstance(e, DocumentStageChanged)
                and (document_id is None or e.document_id == document_id)]

    def stages(self, document_id: str) -> list[str]:
        return [e.stage.value for e in self.stage_events(document_id)]

    def last(self, document_id: str) -> DocumentStageChanged | None:
        events = self.stage_events(document_id)
        return events[-1] if events else None

    async def wait_for(self, condition: Callable[[], bool], within: float = 60.0) -> None:
        async with asyncio.timeout(within):
            while not condition():
                self._changed.clear()
                await self._changed.wait()

    async def wait_final(self, ids: list[str], within: float = 60.0) -> None:
        def finished() -> bool:
            return all((last := self.last(i)) is not None and last.stage in FINAL for i in ids)

        await self.wait_for(finished, within)

    async def close(self) -> None:
        await self.subscription.close()
        await self.task


@dataclass
class Harness:
    graph: Graph
    settings: Settings
    principal: Principal
    bus: InProcessBus = field(default_factory=InProcessBus)
    pools: list[WorkerPool] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.workspace = Workspace(self.settings.workspace_dir)
        self.enrichment = EnrichmentService(self.graph, self.bus)
        self.documents = DocumentService(self.graph, self.workspace, 100, on_created=self.enrichment.enqueue)
        self.recorder = Recorder(self.bus.subscribe(capacity=100_000, label="test recorder"))

    def pool(self, models: ModelClient, *, tenants: set[str] | None = None, max_bytes: int = 4 * 1024 * 1024,
             chunk_indexer: ChunkIndexer | None = None, **overrides: Any) -> WorkerPool:
        """A pool serving only this test's tenant (the session's Neo4j holds other tests' documents too)."""
        values: dict[str, Any] = {"attempt_timeouts": (30.0, 30.0), "retry_backoff": (0.0, 0.1),
                                  "lease_seconds": 10.0, "sweep_seconds": 5.0}
        values.update(overrides)
        config = PoolConfig(tenants=frozenset(tenants or {self.principal.tenant_id}), **values)
        pipeline = Pipeline(self.graph, self.workspace, models, self.bus,
                            PipelineConfig(new_worker_id(), config.lease_seconds, max_bytes), chunk_indexer)
        pool = WorkerPool(self.graph, self.bus, pipeline, config)
        self.pools.append(pool)
        return pool

    async def started(self, models: ModelClient, **kwargs: Any) -> WorkerPool:
        pool = self.pool(models, **kwargs)
        await pool.start()
        return pool

    async def create(self, count: int, content: Callable[[int], str] | None = None,
                     principal: Principal | None = None, start: int = 0, **draft: Any) -> list[Document]:
        """`count` documents `docs/note-NNN.md` through the document service (which queues them)."""
        made = []
        for index in range(start, start + count):
            text = content(index) if content else f"# Note {index}\n\nThe body of note number {index} in the vault."
            made.append(await self.create_one(f"docs/note-{index:03d}.md", text, principal, **draft))
        return made

    async def create_one(self, path: str, content: str, principal: Principal | None = None,
                         **draft: Any) -> Document:
        return await self.documents.create(principal or self.principal,
                                           DocumentDraft(path=path, content=content, **draft))

    async def close(self) -> None:
        for pool in self.pools:
            await pool.stop()
        await self.recorder.close()


@pytest.fixture
async def harness(graph: Graph, settings: Settings, principal: Principal) -> AsyncIterator[Harness]:
    harness = Harness(graph, settings, principal)
    yield harness
    await harness.close()
