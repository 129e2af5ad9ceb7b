"""Topics in the pipeline: with a chat model, the model says where they start (one call per document, typed and
validated); a reply that is no use, a model that fails or a text too long for the prompt falls back to the text's
headings or its length; without a chat model, headings or length alone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.openai_server import OpenAICompatibleServer
from tests.workers.conftest import Harness, is_topics_call, scripted_chat, user_message
from vaultgraph.domain import Topic
from vaultgraph.graph import topics as topic_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.models import LocalModelClient, OpenAIModelClient
from vaultgraph.services.indexing import Indexer
from vaultgraph.text.topics import TopicDraft
from vaultgraph.workers.prompts import TOPIC_INPUT_CHARS
from vaultgraph.workers.topics import embedding_input

pytestmark = [pytest.mark.graph, pytest.mark.workers]

TEXT = ("# Runbook\n\nFirst steps when the pager fires at night.\n\nCheck the dashboards for the billing service."
        "\n\n## Escalation\n\nCall the secondary after fifteen minutes.\n")


def _draft(topic: Topic) -> TopicDraft:
    return TopicDraft(topic.position, topic.name, topic.path, topic.depth, topic.content, topic.labels, None)


async def topics(graph: Graph, tenant: str, document_id: str) -> list[Topic]:
    return (await graph.read(topic_cypher.topics_of, tenant, [document_id]))[document_id]


async def enrich(harness: Harness, models: Any, text: str) -> str:
    document = await harness.create_one("ops/runbook.md", text)
    await harness.started(models)
    await harness.recorder.wait_final([document.id])
    assert harness.recorder.stages(document.id)[-1] == "DONE"
    return document.id


async def test_the_chat_model_says_where_topics_start(
    harness: Harness, graph: Graph, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer
) -> None:
    document = await enrich(harness, remote_models, TEXT)
    found = await topics(graph, harness.principal.tenant_id, document)
    # The scripted model starts a topic at every paragraph, where the headings give two.
    assert [(t.name, t.depth, t.labels) for t in found] == [
        ("Runbook", 1, ("runbook",)), ("First steps when", 1, ("first",)), ("Check the dashboards", 1, ("check",)),
        ("Escalation", 2, ("escalation",)), ("Call the secondary", 1, ("call",))]
    assert found[0].content == "# Runbook" and found[3].path == ("Runbook", "Check the dashboards", "Escalation")
    [call] = [r.body for r in model_server.requests("chat") if is_topics_call(r.body)]
    assert "3| First steps when the pager fires at night." in user_message(call)
    assert call["temperature"] == 0.1


@pytest.mark.parametrize("reply", ["not json at all", '[{"idx": 1, "summary": "wrong shape"}]',
                                   '[{"line": 99, "name": "past the end"}]'])
async def test_a_reply_that_is_no_use_falls_back_to_the_headings(
    harness: Harness, graph: Graph, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer,
    reply: str,
) -> None:
    model_server.on_chat(lambda body: reply if is_topics_call(body) else scripted_chat(body))
    document = await enrich(harness, remote_models, TEXT)
    found = await topics(graph, harness.principal.tenant_id, document)
    assert [t.name for t in found] == ["Runbook"]  # Escalation is short: folded into its parent, heading kept
    assert "## Escalation" in found[0].content


async def test_a_text_too_long_for_the_prompt_is_split_by_its_headings_without_asking(
    harness: Harness, graph: Graph, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer
) -> None:
    text = "\n\n".join(f"# Part {n}\n\n" + f"Words of part {n}. " * 200 for n in range(1 + TOPIC_INPUT_CHARS // 3000))
    document = await enrich(harness, remote_models, text)
    found = await topics(graph, harness.principal.tenant_id, document)
    assert [t.name for t in found][:2] == ["Part 0", "Part 1"]
    assert not [r for r in model_server.requests("chat") if is_topics_call(r.body)]


async def test_without_a_chat_model_the_headings_give_the_topics_embedded_like_chunks(
    harness: Harness, graph: Graph, offline_models: LocalModelClient
) -> None:
    document = await enrich(harness, offline_models, TEXT.replace("Call the secondary", "Call the secondary " * 20))
    found = await topics(graph, harness.principal.tenant_id, document)
    assert [(t.name, t.position, t.parent_id) for t in found] == [
        ("Runbook", 0, None), ("Escalation", 1, found[0].id)]

    async def vectors(tx: Any) -> list[tuple[str, int]]:
        result = await tx.run("MATCH (:Document {tenantId: $tenant, id: $id})-[:HAS_TOPIC]->(t:Topic) "
                              "RETURN t.embeddingModel AS model, size(t.embedding) AS size",
                              tenant=harness.principal.tenant_id, id=document)
        return [(r["model"], r["size"]) async for r in result]

    assert await graph.read(vectors) == [(offline_models.embedding_model_name, 384)] * 2


async def test_an_unchanged_document_without_topics_is_enriched_again_to_get_them(
    harness: Harness, graph: Graph, offline_models: LocalModelClient
) -> None:
    tenant = harness.principal.tenant_id
    document = await enrich(harness, offline_models, TEXT)

    async def enriched_before_topics(tx: Any) -> None:  # as a document enriched by an earlier version is
        await tx.run("MATCH (t:Topic {tenantId: $t, itemId: $id}) DETACH DELETE t", t=tenant, id=document)

    async def requeue(tx: Any) -> None:
        await tx.run("MATCH (d:Document {tenantId: $t, id: $id}) SET d.enrichmentStage = 'QUEUED'", t=tenant,
                     id=document)

    await graph.write(enriched_before_topics)
    runs = []
    for _ in range(2):
        seen = len(harness.recorder.stages(document))
        await graph.write(requeue)
        await harness.enrichment.enqueue(await harness.documents.get(harness.principal, document))
        await harness.recorder.wait_for(lambda: harness.recorder.stages(document)[seen:][-1:] == ["DONE"])  # noqa: B023
        runs.append(harness.recorder.stages(document)[seen:])
    assert "EMBED" in runs[0] and runs[1][-2:] == ["PREPARE", "DONE"]  # the first went on; the second: unchanged
    assert [t.name for t in await topics(graph, tenant, document)] == ["Runbook"]


async def test_a_topic_whose_text_is_unchanged_keeps_its_vector_on_reenrichment(
    harness: Harness, graph: Graph, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer
) -> None:
    model_server.on_chat(lambda body: "no topics" if is_topics_call(body) else scripted_chat(body))
    long = "Words enough for a section that stands as a topic of its own in the runbook. " * 3
    text = f"# Pager\n\n{long}\n\n# Escalation\n\n{long}\n"
    document = await enrich(harness, remote_models, text)
    before = {t.name: t for t in await topics(graph, harness.principal.tenant_id, document)}
    assert set(before) == {"Pager", "Escalation"}
    seen = model_server.count("embeddings")
    stored = await harness.documents.get(harness.principal, document)
    path = harness.workspace.file_for(harness.principal.tenant_id, stored.owner, stored.path)
    path.write_text(text.replace(f"# Escalation\n\n{long}", f"# Escalation\n\nCall the secondary. {long}"))

    async def requeue(tx: Any) -> None:
        await tx.run("MATCH (d:Document {tenantId: $t, id: $id}) SET d.enrichmentStage = 'QUEUED'",
                     t=harness.principal.tenant_id, id=document)

    runs = len(harness.recorder.stages(document))
    await graph.write(requeue)
    await harness.enrichment.enqueue(stored)
    await harness.recorder.wait_for(lambda: harness.recorder.stages(document)[runs:][-1:] == ["DONE"])
    embedded = [text for r in model_server.requests("embeddings")[seen:] for text in r.body["input"]]
    assert embedding_input(stored.title, _draft(before["Pager"])) not in embedded  # reused
    after = {t.name: t for t in await topics(graph, harness.principal.tenant_id, document)}
    assert after["Escalation"].content.startswith("Call the secondary.")
    assert embedding_input(stored.title, _draft(after["Escalation"])) in embedded  # changed: embedded again


async def test_a_topic_that_is_one_search_chunk_shares_its_vector(
    harness: Harness, graph: Graph, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer
) -> None:
    model_server.on_chat(lambda body: "no topics" if is_topics_call(body) else scripted_chat(body))
    text = "# Pager\n\n" + "What to do when the pager fires at night, step by step. " * 5
    document = await harness.create_one("ops/pager.md", text)
    await harness.started(remote_models, chunk_indexer=Indexer(graph, remote_models))
    await harness.recorder.wait_final([document.id])
    [topic] = await topics(graph, harness.principal.tenant_id, document.id)
    embedded = [t for r in model_server.requests("embeddings") for t in r.body["input"]]
    assert embedding_input(document.title, _draft(topic)) not in embedded  # the chunk's vector serves

    async def vectors(tx: Any) -> list[list[float]]:
        result = await tx.run("MATCH (n {tenantId: $t}) WHERE (n:Chunk OR n:Topic) AND n.itemId = $id "
                              "RETURN n.embedding AS v", t=harness.principal.tenant_id, id=document.id)
        return [list(r["v"]) async for r in result]

    chunk_vector, topic_vector = await graph.read(vectors)
    assert chunk_vector == topic_vector
