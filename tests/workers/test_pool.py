"""The worker pool: atomic claims, resuming after a crash, tenant fairness, and surviving bad jobs."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from tests.support.openai_server import OpenAICompatibleServer
from tests.support.tiers import sized
from tests.support.waiting import eventually
from tests.workers.conftest import PIPELINE_STAGES, Harness, is_summary_call, summary_titles
from vaultgraph.domain import Document, EnrichmentStage, Principal
from vaultgraph.graph import enrichment_claims as claim_cypher
from vaultgraph.graph import enrichment_progress as progress_cypher
from vaultgraph.graph import enrichment_stages as stage_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.models import LocalModelClient, ModelConfig, OpenAIModelClient
from vaultgraph.workers.pipeline import ChunkIndexReport

pytestmark = [pytest.mark.graph, pytest.mark.workers]

# The dead worker's lease on an owed announcement: long enough that "not yet" holds on a loaded machine (0.3 s did
# not, with three test processes on two cores); the test waits for it to run out, so it costs only idle time.
OWED_LEASE = 5.0


async def test_only_one_of_many_racing_claims_wins_each_document(harness: Harness, graph: Graph) -> None:
    docs = await harness.create(20)
    ids = [d.id for d in docs]
    tenant = harness.principal.tenant_id
    workers = [f"worker-{n}" for n in range(8)]
    results = await asyncio.gather(*(graph.write(claim_cypher.claim, tenant, ids, worker, 30.0) for worker in workers))
    winners = Counter(claimed.document.id for batch in results for claimed in batch)
    assert winners == Counter(ids)  # every document claimed exactly once
    again = await graph.write(claim_cypher.claim, tenant, ids, "late-worker", 30.0)
    assert again == []  # leases are live


async def test_an_expired_lease_can_be_claimed_again(harness: Harness, graph: Graph) -> None:
    [doc] = await harness.create(1)
    tenant = harness.principal.tenant_id
    assert len(await graph.write(claim_cypher.claim, tenant, [doc.id], "dies", 0.2)) == 1
    # Until the 0.2 s lease runs out: the claim succeeds then, and not before (no other worker claims it).
    [claimed] = await eventually(lambda: graph.write(claim_cypher.claim, tenant, [doc.id], "resumes", 30.0), bool, 30,
                                 "the expired lease claimed again")
    assert claimed.document.id == doc.id
    assert await graph.write(claim_cypher.renew_leases, tenant, [doc.id], "dies", 30.0) == set()


async def test_a_restart_resumes_unfinished_work_and_summarizes_each_document_once(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer, graph: Graph
) -> None:
    model_server.delay(0.3, times=1000, route="chat")
    count = sized(24, 40)  # the crash once some 40% are DONE, with a batch in flight; test-all on 40
    docs = await harness.create(count)
    ids = [d.id for d in docs]
    first = await harness.started(remote_models, max_concurrent_batches=2, lease_seconds=1.5, sweep_seconds=0.3)

    def mid_batch() -> bool:
        done = sum(harness.recorder.stages(i)[-1:] == ["DONE"] for i in ids)
        flying = any("PREPARE" in harness.recorder.stages(i) and harness.recorder.stages(i)[-1:] != ["DONE"]
                     for i in ids)
        return done >= count * 3 // 8 and flying

    await harness.recorder.wait_for(mid_batch)  # crash with a batch in flight, not between batches
    await first.stop(release_leases=False)  # a crash: the leases stay until they run out
    done_before = {i for i in ids if harness.recorder.stages(i)[-1:] == ["DONE"]}
    in_flight = {i for i in ids if "PREPARE" in harness.recorder.stages(i) and i not in done_before}
    # A batch may still finish between the check above and the stop, so in_flight may be empty here.
    assert count * 3 // 8 <= len(done_before) < count

    await harness.started(remote_models, max_concurrent_batches=2, lease_seconds=1.5, sweep_seconds=0.3)
    await harness.recorder.wait_final(ids, within=90)
    assert all(harness.recorder.stages(i)[-1] == "DONE" for i in ids)
    # Finished once each: a DONE the crashed pool committed but had not marked announced is announced again by a
    # sweep, with the same time (subscribers drop such a repeat), so count distinct finishes.
    finishes = {i: {e.at for e in harness.recorder.stage_events(i) if e.stage is EnrichmentStage.DONE} for i in ids}
    assert all(len(at) == 1 for at in finishes.values())
    tenant = harness.principal.tenant_id
    assert (await graph.read(progress_cypher.stage_counts, tenant, None)) == {"DONE": count}
    asked = Counter(t for r in model_server.requests("chat") if is_summary_call(r.body) for t in summary_titles(r.body))
    by_title = {d.id: d.title for d in docs}
    assert all(asked[by_title[i]] == 1 for i in done_before)
    assert all(asked[by_title[i]] == 1 for i in set(ids) - done_before - in_flight)
    assert all(asked[by_title[i]] <= 2 for i in in_flight)  # only what was in flight at the crash runs again


async def test_a_big_queue_of_one_tenant_does_not_delay_another_tenant_beyond_one_batch(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer, tenant: str
) -> None:
    model_server.delay(0.1, times=1000, route="chat")
    other = Principal(tenant_id=f"{tenant}b", sees_all_scopes=True)
    flood = await harness.create(50)
    await harness.started(remote_models, tenants={tenant, other.tenant_id}, max_concurrent_batches=1)
    await harness.recorder.wait_for(lambda: any("PREPARE" in harness.recorder.stages(d.id) for d in flood))
    [single] = await harness.create(1, principal=other)
    await harness.recorder.wait_final([single.id])
    prepared_first = {e.document_id for e in harness.recorder.stage_events()
                      if e.stage is EnrichmentStage.PREPARE and e.tenant_id == tenant
                      and e.at <= _first(harness, single, EnrichmentStage.PREPARE).at}
    assert len(prepared_first) <= 10  # the batch running when it arrived, and at most one more
    assert sum(harness.recorder.stages(d.id)[-1:] == ["DONE"] for d in flood) < 50


def _first(harness: Harness, doc: Document, stage: EnrichmentStage) -> Any:
    return next(e for e in harness.recorder.stage_events(doc.id) if e.stage is stage)


class ExplodingIndexer:
    """A chunk indexer with a bug that only one document triggers."""

    def __init__(self, bad_path: str) -> None:
        self.bad_path = bad_path

    async def index_document(self, document: Document, content: str) -> ChunkIndexReport:
        if document.path == self.bad_path:
            raise RuntimeError("boom")
        return _Report()


class _Report:
    indexed = True
    error = None


async def test_a_worker_survives_a_job_that_raises_and_goes_on_with_the_next(
    harness: Harness, offline_models: LocalModelClient
) -> None:
    docs = await harness.create(6)
    await harness.started(offline_models, batch_size=2, max_concurrent_batches=1,
                          chunk_indexer=ExplodingIndexer(docs[0].path))
    await harness.recorder.wait_final([d.id for d in docs])
    failed = harness.recorder.last(docs[0].id)
    assert failed is not None and failed.stage is EnrichmentStage.FAILED
    assert failed.error is not None and "RuntimeError: boom" in failed.error
    assert all(harness.recorder.stages(d.id)[-1] == "DONE" for d in docs if d is not docs[0])


async def test_reenrich_during_a_run_revokes_the_claim_and_the_document_runs_again(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer
) -> None:
    model_server.delay(1.0, times=1, route="chat")
    [doc] = await harness.create(1)
    await harness.started(remote_models)
    await harness.recorder.wait_for(lambda: "SUMMARIZE" in harness.recorder.stages(doc.id))
    await harness.enrichment.reenrich(harness.principal, [doc.id])
    await harness.recorder.wait_for(lambda: harness.recorder.stages(doc.id)[-1:] == ["DONE"], within=30)
    stages = harness.recorder.stages(doc.id)
    assert stages == ["QUEUED", "PREPARE", "SUMMARIZE", "QUEUED", *PIPELINE_STAGES]  # the first run wrote nothing more
    assert stages.count("DONE") == 1


async def test_a_new_embedding_model_re_embeds_finished_documents_in_the_background(
    harness: Harness, remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer, graph: Graph
) -> None:
    docs = await harness.create(3)
    first = await harness.started(remote_models)
    await harness.recorder.wait_final([d.id for d in docs])
    await first.stop()
    events = len(harness.recorder.events)
    newer = OpenAIModelClient(ModelConfig(
        base_url=model_server.base_url, api_key="sk-test", chat_model="test-chat", embedding_model="test-embed-v2",
        embedding_dimensions=384, timeout_seconds=5.0, max_retries=0))
    try:
        pool = harness.pool(newer, sweep_seconds=3600)  # not started: run the background step by hand
        assert await pool.reembedding.run_once() == 3
        assert await pool.reembedding.run_once() == 0
    finally:
        await newer.aclose()
    tenant = harness.principal.tenant_id
    for doc in docs:
        state = await graph.read(progress_cypher.document_states, tenant, [doc.id], None, 1)
        assert state[0].stage is EnrichmentStage.DONE
    models = await graph.read(_embedding_models, tenant)
    assert models == [("test-embed-v2", 384)] * 3
    assert len(harness.recorder.events) == events  # no stage changes: the documents stayed DONE throughout
    assert model_server.requests("embeddings")[-1].body["model"] == "test-embed-v2"


async def _embedding_models(tx: Any, tenant: str) -> list[tuple[str, int]]:
    result = await tx.run("MATCH (d:Document {tenantId: $t}) RETURN d.embeddingModel AS m, d.embeddingDimensions AS n",
                          t=tenant)
    return [(record["m"], record["n"]) async for record in result]


async def test_a_final_stage_whose_worker_died_before_publishing_is_announced_once_by_a_sweep(
    harness: Harness, graph: Graph, offline_models: LocalModelClient
) -> None:
    [doc] = await harness.create(1)
    tenant = harness.principal.tenant_id
    # A worker commits DONE and dies before it publishes: the graph owes the announcement for its lease.
    [claimed] = await graph.write(claim_cypher.claim, tenant, [doc.id], "dies", 30.0)
    [mark] = await graph.write(stage_cypher.finish, tenant, "dies",
                               [{"id": doc.id, "enrichedHash": "h", "detail": None, "attempt": 1}], OWED_LEASE)
    subscriber = harness.enrichment.stage_events(harness.principal, [doc.id])
    snapshot = await anext(subscriber)
    assert (snapshot.stage, snapshot.at) == (EnrichmentStage.DONE, mark.at)

    pool = harness.pool(offline_models, lease_seconds=30.0, sweep_seconds=60.0)
    assert await pool.announce_overdue() == 0  # not yet: the dead worker might still publish
    # Once its lease has run out, one sweep announces it.
    assert await eventually(pool.announce_overdue, bool, 30, "the owed DONE announced") == 1
    assert await pool.announce_overdue() == 0  # announced once, by whichever sweep got there first
    await harness.recorder.wait_for(lambda: harness.recorder.stages(doc.id)[-1:] == ["DONE"])
    announced = harness.recorder.last(doc.id)
    assert announced is not None and (announced.at, announced.attempt) == (mark.at, 1)

    # A subscriber that already saw DONE (here in its snapshot) is not sent it again; the next change gets through.
    await harness.enrichment.reenrich(harness.principal, [doc.id])
    following = await asyncio.wait_for(anext(subscriber), timeout=10)
    assert following.stage is EnrichmentStage.QUEUED
    await subscriber.aclose()


async def _blocked_on_a_lock(graph: Graph, marker: str) -> bool:
    """Whether a transaction running a statement that mentions `marker` is waiting for a lock."""
    records = await graph.read_records("SHOW TRANSACTIONS YIELD currentQuery, status "
                                       "WHERE currentQuery CONTAINS $marker RETURN status", marker=marker)
    return any(str(record["status"]).startswith("Blocked") for record in records)


@pytest.mark.parametrize("write", ["advance", "renew"])
async def test_a_worker_write_racing_a_requeue_lands_before_it_or_not_at_all(
    harness: Harness, graph: Graph, write: str,
) -> None:
    """Neo4j reads committed data without locks: a worker's `claimedBy = $worker` check could read the claim just
    before a requeue (an overwrite) removed it, then write after it, leaving the old text's stage and a lease no one
    holds on the requeued document (found: an overwritten upload at CLASSIFY with v1's summary 60 s later). The
    requeue here holds its lock while the worker's write waits; after the requeue commits, the write changes nothing.
    """
    [doc] = await harness.create(1)
    tenant = harness.principal.tenant_id
    assert len(await graph.write(claim_cypher.claim, tenant, [doc.id], "w-old", 60.0)) == 1
    async with graph.driver.session(database=graph.database) as session:
        requeue = await session.begin_transaction()
        try:
            await progress_cypher.requeue(requeue, tenant, [doc.id], None)  # holds the document's write lock
            if write == "advance":
                racing = asyncio.create_task(graph.write(
                    stage_cypher.advance_stage, tenant, "w-old", EnrichmentStage.CLASSIFY,
                    [{"id": doc.id, "attempt": 1}], 60.0))
                marker = "d.enrichmentStage = $stage"
            else:
                racing = asyncio.create_task(graph.write(claim_cypher.renew_leases, tenant, [doc.id], "w-old", 60.0))
                marker = "SET d.leaseUntil"
            await eventually(lambda: _blocked_on_a_lock(graph, marker), bool, 30, "the worker's write waiting")
            await requeue.commit()
        finally:
            await requeue.close()
    assert not await racing  # nothing written: the claim was gone when the write got the lock
    [state] = await graph.read(progress_cypher.document_states, tenant, [doc.id], None, 10)
    assert state.stage is EnrichmentStage.QUEUED
    # Claimable at once: no lease left behind by the late write.
    assert [c.document.id for c in await graph.write(claim_cypher.claim, tenant, [doc.id], "w-new", 60.0)] == [doc.id]
