"""The whole pipeline against the real Neo4j and the real `openai` client talking to the local test server."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from tests.support.openai_server import OpenAICompatibleServer, hashed_embedding
from tests.workers.conftest import (
    CREATED_STAGES,
    PIPELINE_STAGES,
    Harness,
    classify_reply,
    good_summaries,
    is_summary_call,
    summary_titles,
)
from vaultgraph.domain import EnrichmentStage
from vaultgraph.graph import enrichment_claims as claim_cypher
from vaultgraph.graph import enrichment_stages as stage_cypher
from vaultgraph.graph.migrations import embedded_label
from vaultgraph.graph.session import Graph
from vaultgraph.models import LocalModelClient, OpenAIModelClient
from vaultgraph.workers.classify import NO_CHAT_DETAIL
from vaultgraph.workers.jobs import Job, Outcome
from vaultgraph.workers.prompts import embedding_text

pytestmark = [pytest.mark.graph, pytest.mark.workers]

SAME_SUMMARY = "Rotating the TLS certificates of the edge proxies."


async def node(graph: Graph, tenant: str, document_id: str) -> dict[str, Any]:
    async def read(tx: Any) -> dict[str, Any]:
        record = await (await tx.run(
            "MATCH (d:Document {tenantId: $tenant, id: $id}) RETURN properties(d) AS p, labels(d) AS labels",
            tenant=tenant, id=document_id)).single(strict=True)
        return {**record["p"], "labels": record["labels"]}

    return await graph.read(read)


async def edges(graph: Graph, tenant: str, document_id: str) -> list[dict[str, Any]]:
    async def read(tx: Any) -> list[dict[str, Any]]:
        result = await tx.run(
            "MATCH (:Item {tenantId: $tenant, id: $id})-[r]->(t) WHERE t:Item OR t:Ghost "  # links, not HAS_TOPIC
            "RETURN type(r) AS type, properties(r) AS p, t.id AS target ORDER BY target",
            tenant=tenant, id=document_id)
        return [{**r["p"], "type": r["type"], "targetId": r["target"]} async for r in result]

    return await graph.read(read)


async def test_a_batch_runs_every_phase_with_events_in_order(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer, graph: Graph
) -> None:
    def content(index: int) -> str:
        link = "\n\nSee [[note-000]] and [[missing-page]]." if index == 11 else ""
        return f"# Note {index}\n\nOperational runbook number {index} for the billing service.{link}"

    docs = await harness.create(12, content)  # queued before the workers start: the start-up sweep finds them
    await harness.started(remote_models)
    ids = [d.id for d in docs]
    await harness.recorder.wait_final(ids)

    for doc in docs:
        assert harness.recorder.stages(doc.id) == CREATED_STAGES
        assert [e.attempt for e in harness.recorder.stage_events(doc.id)] == [0] + [1] * 6
        stored = await node(graph, harness.principal.tenant_id, doc.id)
        assert stored["enrichmentStage"] == "DONE"
        assert stored["summary"] == f"Summary of {doc.title}."
        assert stored["category"] == "Technology"
        assert embedded_label(384) in stored["labels"]
        assert len(stored["embedding"]) == 384
        assert "claimedBy" not in stored and "leaseUntil" not in stored
    summary_calls = [r.body for r in model_server.requests("chat") if is_summary_call(r.body)]
    assert sorted(len(summary_titles(b)) for b in summary_calls) == [2, 5, 5]  # five documents to a call
    assert {b["temperature"] for b in summary_calls} == {0.2}
    assert sorted(t for b in summary_calls for t in summary_titles(b)) == sorted(d.title for d in docs)
    linked = {e["ref"]: e for e in await edges(graph, harness.principal.tenant_id, ids[11]) if e["type"] == "WIKILINK"}
    assert linked["note-000"]["targetId"] == ids[0]
    assert linked["missing-page"]["targetId"] is None  # a ghost until that page exists


async def test_similar_documents_get_an_agent_link_with_the_similarity_as_confidence(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer, graph: Graph
) -> None:
    classify_bodies: list[dict[str, Any]] = []

    def chat(body: dict[str, Any]) -> str:
        if is_summary_call(body):
            # The test server's vectors are bags of words: equal summaries give cosine 1.
            return json.dumps([{"idx": i + 1, "summary": SAME_SUMMARY}
                               for i in range(len(summary_titles(body)))])
        classify_bodies.append(body)
        return classify_reply(body, "EXTENDS")

    model_server.on_chat(chat)
    await harness.started(remote_models)
    first = await harness.create_one("certs.md", "# Certificates\n\nHow we rotate certificates.")
    await harness.recorder.wait_final([first.id])
    second = await harness.create_one("later.md", "# Later\n\nMore on rotation.")
    await harness.recorder.wait_final([second.id])
    [link] = [e for e in await edges(graph, harness.principal.tenant_id, second.id) if e["type"] == "EXTENDS"]
    assert link["targetId"] == first.id
    assert link["origin"] == "agent"
    assert link["classifiedBy"] == stage_cypher.CLASSIFIED_BY
    vectors = [np.asarray(hashed_embedding(embedding_text(d.title, d.path, SAME_SUMMARY), 384))
               for d in (first, second)]
    assert link["confidence"] == pytest.approx(float(vectors[0] @ vectors[1]), abs=1e-3)
    assert link["confidence"] >= 0.7
    assert {b["temperature"] for b in classify_bodies} == {0.1}
    assert not await edges(graph, harness.principal.tenant_id, first.id)  # nothing similar existed before it


async def test_offline_documents_get_extractive_summaries_real_vectors_and_a_skipped_classification(
    harness: Harness, offline_models: LocalModelClient, graph: Graph
) -> None:
    await harness.started(offline_models)
    texts = {
        "kitchen.md": "# Sourdough\n\nFeed the starter twice a day with flour and water. Bake at 250 degrees.",
        "ops.md": "# Disk alerts\n\nWhen the database volume fills up, page the on-call engineer. Grow the volume.",
    }
    docs = [await harness.create_one(path, text) for path, text in texts.items()]
    await harness.recorder.wait_final([d.id for d in docs])
    tenant = harness.principal.tenant_id
    for doc in docs:
        assert harness.recorder.stages(doc.id) == CREATED_STAGES
        done = harness.recorder.last(doc.id)
        assert done is not None and done.detail == NO_CHAT_DETAIL
        stored = await node(graph, tenant, doc.id)
        assert stored["summary"] == texts[doc.path].split("\n\n", 1)[1]
        assert stored["enrichmentDetail"] == NO_CHAT_DETAIL
        assert len(stored["embedding"]) == 384
    assert (await node(graph, tenant, docs[0].id))["category"] == "Food"
    # The vector index finds a paraphrase that shares almost no words with the document.
    [query] = await offline_models.embed(["how do I keep my bread yeast culture alive"])
    found = await graph.read(stage_cypher.similar_documents, tenant, "none", query, ["shared"], 0.0, 2,
                             offline_models.embedding_model_name)
    assert found[0].document_id == docs[0].id
    assert found[0].cosine > found[1].cosine


async def test_a_malformed_batch_answer_is_retried_then_each_document_is_asked_alone(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer
) -> None:
    def chat(body: dict[str, Any]) -> str:
        if is_summary_call(body) and len(summary_titles(body)) > 1:
            return 'Here you go: [{"idx": 1, "summary": '  # cut off: not JSON
        return good_summaries(body)

    model_server.on_chat(chat)
    docs = await harness.create(3)
    await harness.started(remote_models)
    await harness.recorder.wait_final([d.id for d in docs])
    assert all(harness.recorder.stages(d.id) == CREATED_STAGES for d in docs)
    sizes = [len(summary_titles(r.body)) for r in model_server.requests("chat") if is_summary_call(r.body)]
    assert sizes == [3, 3, 1, 1, 1]  # the batch, its retry, then one call per document


async def test_a_document_the_model_keeps_failing_ends_failed_with_the_reason_while_the_others_finish(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer, graph: Graph
) -> None:
    def chat(body: dict[str, Any]) -> str:
        if is_summary_call(body) and "Note 1" in summary_titles(body):
            if len(summary_titles(body)) == 1:
                return '{"not": "a list"}'
            return json.dumps([json.loads(good_summaries(body))[0]])  # covers only the first document
        return good_summaries(body) if is_summary_call(body) else classify_reply(body, "SKIP")

    model_server.on_chat(chat)
    docs = await harness.create(3)
    await harness.started(remote_models, attempt_timeouts=(30.0, 30.0), retry_backoff=(0.0, 0.2))
    await harness.recorder.wait_final([d.id for d in docs])
    bad = docs[1]
    assert [e.stage.value for e in harness.recorder.stage_events(bad.id)] == [
        "QUEUED", "PREPARE", "SUMMARIZE", "PREPARE", "SUMMARIZE", "FAILED"]
    failed = harness.recorder.last(bad.id)
    assert failed is not None and failed.attempt == 2
    assert failed.error is not None and "no usable summary" in failed.error
    stored = await node(graph, harness.principal.tenant_id, bad.id)
    assert stored["enrichmentStage"] == "FAILED" and stored["enrichmentError"] == failed.error
    assert "claimedBy" not in stored
    for good in (docs[0], docs[2]):
        assert harness.recorder.stages(good.id) == CREATED_STAGES
    # re-enrichment tries again from scratch, and with a model that behaves it finishes
    model_server.on_chat(lambda body: good_summaries(body) if is_summary_call(body) else classify_reply(body))
    await harness.enrichment.reenrich(harness.principal, [bad.id])
    await harness.recorder.wait_for(lambda: harness.recorder.stages(bad.id)[-1] == "DONE")
    assert harness.recorder.stages(bad.id)[-7:] == ["QUEUED", *PIPELINE_STAGES]


async def test_a_429_with_retry_after_is_honoured(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer
) -> None:
    model_server.rate_limit(times=1, retry_after="1", route="chat")
    [doc] = await harness.create(1)
    await harness.started(remote_models)
    await harness.recorder.wait_final([doc.id])
    assert harness.recorder.stages(doc.id) == CREATED_STAGES
    first, second = [r for r in model_server.requests("chat")][:2]
    assert second.received_at - first.received_at >= 1.0


async def test_a_model_that_is_down_fails_the_batch_with_the_endpoint_error_after_the_retries(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer
) -> None:
    model_server.fail(times=100, status=503, route="chat")
    docs = await harness.create(2)
    await harness.started(remote_models, attempt_timeouts=(30.0, 30.0), retry_backoff=(0.0, 0.1))
    await harness.recorder.wait_final([d.id for d in docs])
    for doc in docs:
        failed = harness.recorder.last(doc.id)
        assert failed is not None and failed.stage is EnrichmentStage.FAILED and failed.attempt == 2
        assert failed.error is not None and "summarize:" in failed.error and "503" in failed.error
    # 2 attempts × (1 call + 2 client retries), one batch call each time
    assert model_server.count("chat") == 6


async def test_empty_binary_and_oversized_files_are_skipped_with_the_reason(
    harness: Harness, offline_models: LocalModelClient
) -> None:
    docs = [
        await harness.create_one("empty.md", "   \n"),
        await harness.create_one("blob.txt", "PK\x03\x04\x00\x00binary"),
        await harness.create_one("big.md", "word " * 400),
        await harness.create_one("fine.md", "# Fine\n\nA small text file."),
    ]
    await harness.started(offline_models, max_bytes=1024)
    await harness.recorder.wait_final([d.id for d in docs])
    reasons = {d.path: harness.recorder.last(d.id) for d in docs}
    assert {path: e.stage.value for path, e in reasons.items() if e} == {
        "empty.md": "SKIPPED", "blob.txt": "SKIPPED", "big.md": "SKIPPED", "fine.md": "DONE"}
    assert "empty" in (reasons["empty.md"].error or "")  # type: ignore[union-attr]
    assert "not text" in (reasons["blob.txt"].error or "")  # type: ignore[union-attr]
    assert "larger than" in (reasons["big.md"].error or "")  # type: ignore[union-attr]


async def test_an_explicit_category_wins_and_a_tenant_taxonomy_file_is_used(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer, graph: Graph
) -> None:
    tenant_root = harness.workspace.root / harness.principal.tenant_id
    tenant_root.mkdir(parents=True, exist_ok=True)
    (tenant_root / ".taxonomy.md").write_text(
        "---\nkind: knowledge_taxonomy\ncategories:\n  - id: InternalOps\n    description: Runbooks.\n"
        "  - id: Finance\n    description: Money.\n---\n")  # an explicit category must be one of the taxonomy
    model_server.on_chat(lambda body: good_summaries(body, "internalops") if is_summary_call(body)
                         else classify_reply(body, "SKIP"))
    chosen = await harness.create_one("a.md", "# A\n\nRunbook.", category="Finance")
    picked = await harness.create_one("b.md", "# B\n\nRunbook too.")
    await harness.started(remote_models)
    await harness.recorder.wait_final([chosen.id, picked.id])
    tenant = harness.principal.tenant_id
    assert (await node(graph, tenant, chosen.id))["category"] == "Finance"
    assert (await node(graph, tenant, picked.id))["category"] == "InternalOps"
    prompt = model_server.requests("chat")[0].body["messages"][0]["content"]
    assert "InternalOps" in prompt and "Technology" not in prompt


async def test_a_requeued_document_whose_content_did_not_change_is_done_without_model_calls(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer, graph: Graph
) -> None:
    [doc] = await harness.create(1)
    await harness.started(remote_models)
    await harness.recorder.wait_final([doc.id])
    calls = model_server.count()

    async def requeue(tx: Any) -> None:
        await tx.run("MATCH (d:Document {tenantId: $t, id: $id}) SET d.enrichmentStage = 'QUEUED'",
                     t=harness.principal.tenant_id, id=doc.id)

    await graph.write(requeue)
    await harness.enrichment.enqueue(doc)
    await harness.recorder.wait_for(lambda: harness.recorder.stages(doc.id)[-2:] == ["PREPARE", "DONE"])
    assert model_server.count() == calls
    done = harness.recorder.last(doc.id)
    assert done is not None and done.detail == "unchanged since the last enrichment"


async def test_a_run_whose_claim_a_new_text_revoked_writes_nothing_though_its_worker_claims_again(
    harness: Harness, offline_models: LocalModelClient, graph: Graph
) -> None:
    """An overwrite requeues a document mid-run; when the same worker claims it again for the new text, the old run
    must stay locked out (found: an overwritten upload left at CLASSIFY with the old version's summary, as the two
    runs of one worker both passed `claimedBy = $worker`). Each claim carries a token of its own."""
    [doc] = await harness.create(1, content=lambda n: "# Plan\n\nThe first draft of the plan, about bicycles.\n")
    tenant = harness.principal.tenant_id
    pipeline = harness.pool(offline_models).pipeline
    worker = pipeline.config.worker_id
    [old] = await graph.write(claim_cypher.claim, tenant, [doc.id], claim_cypher.claim_token(worker), 60.0)
    await harness.documents.update(harness.principal, doc.id,
                                   content="# Plan\n\nThe second version of the plan, about sailing boats.\n")
    [new] = await graph.write(claim_cypher.claim, tenant, [doc.id], claim_cypher.claim_token(worker), 60.0)
    assert new.claim != old.claim and new.claim.startswith(worker)

    stale = Job(old, 1)
    await pipeline.run(tenant, [stale])
    assert stale.result is not None and stale.result.outcome is Outcome.LOST
    stored = await node(graph, tenant, doc.id)
    assert (stored["enrichmentStage"], stored["claimedBy"], stored.get("summary")) == ("QUEUED", new.claim, None)

    fresh = Job(new, 1)
    await pipeline.run(tenant, [fresh])
    assert fresh.result is not None and fresh.result.outcome is Outcome.DONE
    stored = await node(graph, tenant, doc.id)
    assert stored["enrichmentStage"] == "DONE" and "claimedBy" not in stored
    assert "sailing" in stored["summary"] and stored["enrichedHash"] == stored["contentHash"]
