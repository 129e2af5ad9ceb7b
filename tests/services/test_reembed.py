"""A changed embedding model, or a changed dimension under the same model name: the stored vectors of the old one
are detected, ignored by search, and `vaultgraph reembed` makes them again until every note, document and chunk
records the new model and dimension (issue 21, item 4).

Everything is real: a server with its enrichment workers embeds with model A through the test embedding server
(tests/support/openai_server.py, driven by the `openai` client), then a server configured with model B searches,
and the command runs in-process through `cli.main()`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import pytest
import structlog
from neo4j import AsyncManagedTransaction

from tests.support.openai_server import Fault, OpenAICompatibleServer
from tests.support.server import RunningServer, run_shared_server
from tests.workers.conftest import scripted_chat
from vaultgraph import cli
from vaultgraph.config import Settings
from vaultgraph.graph.session import Graph
from vaultgraph.runtime import build_runtime

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = """mutation($input: NoteInput!) { saveNote(input: $input) { note { id indexed } } }"""
DOCUMENT = """mutation($input: DocumentInput!) { createDocument(input: $input) { id } }"""
STAGE = """query($id: ID!) { document(id: $id) { enrichment { stage error } } }"""
SEARCH = """query($q: String!) { search(query: $q, mode: VECTOR, limit: 5) { vectorScore item { id } } }"""
LONG_BODY = "\n\n".join(f"## Part {n}\n\n" + f"Tide tables and harbour pilots, section {n}. " * 40 for n in range(4))

# Every node of the tenant that holds a vector, with the model it records.
VECTORS = """
MATCH (n {tenantId: $tenant}) WHERE (n:Item OR n:Chunk OR n:Topic) AND n.embedding IS NOT NULL
RETURN CASE WHEN n:Chunk THEN 'chunk' WHEN n:Topic THEN 'topic' WHEN n:Note THEN 'note' ELSE 'document' END AS kind,
       n.embeddingModel AS model, n.embeddingDimensions AS dimensions, size(n.embedding) AS size
"""


@pytest.fixture(scope="module")
def embedder() -> Iterator[OpenAICompatibleServer]:
    with OpenAICompatibleServer() as server:
        server.on_chat(scripted_chat)  # summaries for the enrichment of the document
        yield server


@pytest.fixture(scope="module")
def redeployed() -> Iterator[OpenAICompatibleServer]:
    """The embedding server redeployed: the same model names, 64-dimensional vectors."""
    with OpenAICompatibleServer(embedding_dimensions=64) as server:
        yield server


def with_model(settings: Settings, embedder: OpenAICompatibleServer, model: str, dimensions: int = 384) -> Settings:
    return settings.model_copy(update={"openai_base_url": embedder.base_url, "openai_api_key": "sk-test",
                                       "chat_model": "test-chat", "embedding_model": model,
                                       "embedding_dimensions": dimensions, "model_max_retries": 0})


async def _vectors(graph: Graph, tenant: str) -> list[tuple[str, str, int]]:
    async def read(tx: AsyncManagedTransaction) -> list[tuple[str, str, int]]:
        result = await tx.run(VECTORS, tenant=tenant)
        rows = [record async for record in result]
        assert all(r["size"] == r["dimensions"] for r in rows)
        return sorted((r["kind"], r["model"], r["dimensions"]) for r in rows)

    return await graph.read(read)


async def _enriched(server: RunningServer, document_id: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        enrichment = (await server.data(STAGE, {"id": document_id}))["document"]["enrichment"]
        if enrichment["stage"] == "DONE":
            return
        assert enrichment["stage"] not in ("FAILED", "SKIPPED"), enrichment
        assert time.monotonic() < deadline, f"the document was not enriched in 60 s: {enrichment}"
        await asyncio.sleep(0.1)


async def _seed(settings: Settings, tenant: str) -> str:
    """A short note (its own vector), a long one (chunks too) and an enriched document, embedded as `settings`
    say; returns the short note's id."""
    async with run_shared_server(settings, tenant) as shared:
        server = shared.for_tenant(tenant)
        short = (await server.data(SAVE, {"input": {"title": "Sourdough",
                                                    "body": "Feed the starter flour and water."}}))["saveNote"]
        long = (await server.data(SAVE, {"input": {"title": "Harbour", "body": LONG_BODY}}))["saveNote"]
        assert short["note"]["indexed"] and long["note"]["indexed"]
        document = (await server.data(DOCUMENT, {"input": {"path": "ops/tides.md",
                                                           "content": "# Tides\n\nThe moon raises the sea."}}))
        await _enriched(server, document["createDocument"]["id"])
    return str(short["note"]["id"])


async def _seeded_with_model_a(settings: Settings, embedder: OpenAICompatibleServer, graph: Graph, tenant: str
                               ) -> tuple[Settings, str, list[tuple[str, str, int]]]:
    """The seed embedded with model A, every kind of vector present; returns model B's settings, the short note's
    id and the vectors as they stand."""
    short_id = await _seed(with_model(settings, embedder, "test-embed-a"), tenant)
    before = await _vectors(graph, tenant)
    assert {kind for kind, _, _ in before} == {"note", "document", "chunk", "topic"}, before
    assert {(model, dims) for _, model, dims in before} == {("test-embed-a", 384)}
    return with_model(settings, embedder, "test-embed-b"), short_id, before


async def test_a_changed_model_is_detected_ignored_by_search_and_reembed_converges(
    settings: Settings, embedder: OpenAICompatibleServer, graph: Graph, tenant: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model_b, short_id, before = await _seeded_with_model_a(settings, embedder, graph, tenant)

    # Model B configured: a process that starts warns (one sharded to this tenant, as the suite's servers are:
    # the shared Neo4j holds other tests' vectors of other models), and the vector channel ignores model A's.
    runtime = build_runtime(model_b.model_copy(update={"enrichment_tenants": [tenant]}), workers=False, watcher=False)
    with structlog.testing.capture_logs() as logs:
        async with runtime.running(require_neo4j=True):
            deadline = time.monotonic() + 30
            while not (warnings := [e for e in logs if e["event"].startswith("stored vectors from another")]):
                assert time.monotonic() < deadline, "no warning of the changed model within 30 s"
                await asyncio.sleep(0.05)
    [warning] = warnings
    assert warning["log_level"] == "warning" and warning["current"] == "test-embed-b/384"
    assert (warning["count"], warning["previous"]) == (len(before), ["test-embed-a/384"])
    capsys.readouterr()  # what the servers logged so far (before a command's own configuration sends it to stderr)
    assert await asyncio.to_thread(cli.main, ["reembed", "--tenant", tenant, "--dry-run", "--json"], model_b) == 0
    pending = json.loads(capsys.readouterr().out)
    assert pending["pending"] == len(before) and pending["model"] == "test-embed-b/384"

    # No workers in this server: its pool would re-embed the document in the background, racing the counts here.
    async with run_shared_server(model_b.model_copy(update={"enrichment_workers": False}), tenant) as shared:
        server = shared.for_tenant(tenant)
        assert (await server.data(SEARCH, {"q": "starter flour and water"}))["search"] == []

        # One batch, then the model fails: that batch stays written, and the next run carries on from there.
        embedder.inject(Fault(), times=1, route="embeddings")
        embedder.fail(times=1, status=400, route="embeddings")
        command = ["reembed", "--tenant", tenant, "--batch", "2", "--json"]
        assert await asyncio.to_thread(cli.main, command, model_b) == 4
        stopped = json.loads(capsys.readouterr().out)
        assert stopped["error"] and sum(stopped["reembedded"].values()) == 2 and stopped["left"] == len(before) - 2
        assert await asyncio.to_thread(cli.main, command, model_b) == 0
        out, err = capsys.readouterr()
        report = json.loads(out)
        assert sum(report["reembedded"].values()) == len(before) - 2 and report["left"] == 0
        assert f"{len(before) - 2}/{len(before) - 2}" in err  # the progress lines reached the end

        hits = (await server.data(SEARCH, {"q": "starter flour and water"}))["search"]
        assert hits and hits[0]["item"]["id"] == short_id and hits[0]["vectorScore"] is not None

    after = await _vectors(graph, tenant)
    assert [(kind, model, dims) for kind, model, dims in after] == [(k, "test-embed-b", 384) for k, _, _ in before]
    assert await asyncio.to_thread(cli.main, ["reembed", "--tenant", tenant, "--json"], model_b) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["reembedded"] == {} and again["left"] == 0


async def test_a_server_with_workers_re_embeds_every_kind_in_the_background_without_the_command(
    settings: Settings, embedder: OpenAICompatibleServer, graph: Graph, tenant: str,
) -> None:
    # An upgrade that changes the model (the offline default did, 2026-12-06): nobody runs `reembed`, and the
    # enrichment workers' re-embedding lane heals notes, chunks and topics as well as documents.
    model_b, short_id, before = await _seeded_with_model_a(settings, embedder, graph, tenant)
    async with run_shared_server(model_b, tenant) as shared:
        server = shared.for_tenant(tenant)
        deadline = time.monotonic() + 60
        while (after := await _vectors(graph, tenant)) != [(k, "test-embed-b", 384) for k, _, _ in before]:
            assert time.monotonic() < deadline, f"not every vector re-embedded in 60 s: {after}"
            await asyncio.sleep(0.2)
        hits = (await server.data(SEARCH, {"q": "starter flour and water"}))["search"]
        assert hits and hits[0]["item"]["id"] == short_id and hits[0]["vectorScore"] is not None


# Nodes of the tenant that still carry a vector label of this dimension (the label puts a node in that index).
LABELLED = "MATCH (n {tenantId: $tenant}) WHERE $label IN labels(n) RETURN count(n) AS n"


async def _labelled(graph: Graph, tenant: str, dimensions: int) -> int:
    async def read(tx: AsyncManagedTransaction) -> int:
        record = await (await tx.run(LABELLED, tenant=tenant, label=f"Embedded{dimensions}")).single()
        return int(record["n"]) if record else 0

    return await graph.read(read)


async def test_a_changed_dimension_under_the_same_model_name_is_stale_and_reembed_converges(
    settings: Settings, embedder: OpenAICompatibleServer, redeployed: OpenAICompatibleServer, graph: Graph,
    tenant: str, capsys: pytest.CaptureFixture[str],
) -> None:
    # The model name stays while its vectors shrink (a server redeployed under the same name, configured with
    # VAULTGRAPH_EMBEDDING_DIMENSIONS=64): a check of the name alone would see nothing to do, while every stored
    # vector sits in the 384-dimension index that queries of 64 dimensions never search.
    short_id = await _seed(with_model(settings, embedder, "test-embed-a"), tenant)
    before = await _vectors(graph, tenant)
    assert {kind for kind, _, _ in before} == {"note", "document", "chunk", "topic"}, before
    assert {(model, dims) for _, model, dims in before} == {("test-embed-a", 384)}

    narrow = with_model(settings, redeployed, "test-embed-a", dimensions=64)
    capsys.readouterr()
    assert await asyncio.to_thread(cli.main, ["reembed", "--tenant", tenant, "--dry-run", "--json"], narrow) == 0
    pending = json.loads(capsys.readouterr().out)
    assert pending["pending"] == len(before) and pending["model"] == "test-embed-a/64"
    assert {row["model"] for row in pending["byModel"]} == {"test-embed-a/384"}

    async with run_shared_server(narrow.model_copy(update={"enrichment_workers": False}), tenant) as shared:
        server = shared.for_tenant(tenant)
        assert (await server.data(SEARCH, {"q": "starter flour and water"}))["search"] == []

        assert await asyncio.to_thread(cli.main, ["reembed", "--tenant", tenant, "--json"], narrow) == 0
        report = json.loads(capsys.readouterr().out)
        assert sum(report["reembedded"].values()) == len(before) and report["left"] == 0
        assert report["model"] == "test-embed-a/64" and report["error"] is None
        assert {request.body["model"] for request in redeployed.requests("embeddings")} == {"test-embed-a"}

        hits = (await server.data(SEARCH, {"q": "starter flour and water"}))["search"]
        assert hits and hits[0]["item"]["id"] == short_id and hits[0]["vectorScore"] is not None

    after = await _vectors(graph, tenant)  # it also checks each vector's length is the dimension it records
    assert after == [(kind, "test-embed-a", 64) for kind, _, _ in before]
    assert (await _labelled(graph, tenant, 384), await _labelled(graph, tenant, 64)) == (0, len(before))
    assert await asyncio.to_thread(cli.main, ["reembed", "--tenant", tenant, "--json"], narrow) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["reembedded"] == {} and again["left"] == 0
