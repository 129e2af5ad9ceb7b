"""services/enrichment.py against the real graph (its fixtures live with the workers'): counts,
re-enrichment, and the streams with their visibility."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import TypeVar

import pytest

from tests.workers.conftest import Harness
from vaultgraph.domain import EnrichmentStage, Principal, Scope
from vaultgraph.errors import NotFound
from vaultgraph.events.bus import DocumentQueued
from vaultgraph.graph import enrichment_claims as claim_cypher
from vaultgraph.graph import enrichment_stages as stage_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.models import LocalModelClient
from vaultgraph.services.enrichment import Progress

pytestmark = [pytest.mark.graph, pytest.mark.workers]
T = TypeVar("T")


async def take(stream: AsyncGenerator[T, None], count: int) -> list[T]:
    async with asyncio.timeout(30):
        return [await anext(stream) for _ in range(count)]


async def fail_one(harness: Harness, graph: Graph, document_id: str) -> None:
    tenant = harness.principal.tenant_id
    [claimed] = await graph.write(claim_cypher.claim, tenant, [document_id], "w", 30.0)
    await graph.write(stage_cypher.end_with, tenant, "w", EnrichmentStage.FAILED,
                      [{"id": claimed.document.id, "error": "model down", "attempt": 3}], 30.0)


async def test_progress_counts_each_state_and_reenrich_requeues_failed_documents(
    harness: Harness, graph: Graph
) -> None:
    docs = await harness.create(4)
    assert await harness.enrichment.progress(harness.principal) == Progress(queued=4)
    await fail_one(harness, graph, docs[0].id)
    await fail_one(harness, graph, docs[1].id)
    assert await harness.enrichment.progress(harness.principal) == Progress(queued=2, failed=2)
    queued = harness.bus.subscribe(lambda e: isinstance(e, DocumentQueued))
    again = await harness.enrichment.reenrich(harness.principal, None)  # no ids: every FAILED one
    assert sorted(d.id for d in again) == sorted([docs[0].id, docs[1].id])
    assert all(d.enrichment.stage is EnrichmentStage.QUEUED and d.enrichment.error is None for d in again)
    assert sorted(e.document_id for e in queued.drain()) == sorted(d.id for d in again)
    assert (await harness.enrichment.progress(harness.principal)).total == 4
    with pytest.raises(NotFound):
        await harness.enrichment.reenrich(harness.principal, [docs[2].id, "doc_nope"])


async def test_a_late_subscriber_gets_the_current_state_then_the_changes(
    harness: Harness, offline_models: LocalModelClient
) -> None:
    docs = await harness.create(2)
    stream = harness.enrichment.stage_events(harness.principal, [d.id for d in docs])
    snapshot = await take(stream, 2)
    assert {(e.document_id, e.stage) for e in snapshot} == {(d.id, EnrichmentStage.QUEUED) for d in docs}
    await harness.started(offline_models)
    changes = await take(stream, 12)
    for doc in docs:
        assert [e.stage.value for e in changes if e.document_id == doc.id] == [
            "PREPARE", "SUMMARIZE", "EMBED", "CLASSIFY", "WIKILINKS", "DONE"]
    await stream.aclose()
    assert harness.bus.subscriber_count == 2  # the recorder and the pool's intake; the stream unsubscribed


async def test_streams_show_only_the_tenant_and_the_owners_a_principal_sees(
    harness: Harness, offline_models: LocalModelClient, tenant: str
) -> None:
    agent = Principal(tenant_id=tenant, agent_id="bot-1")
    stranger = Principal(tenant_id=f"{tenant}x", sees_all_scopes=True)
    mine = await harness.create_one("mine.md", "# Mine\n\ntext", scope=Scope.PERSONAL, agent_id="bot-1")
    theirs = await harness.create_one("theirs.md", "# Theirs\n\ntext", scope=Scope.PERSONAL, agent_id="bot-2")
    shared = await harness.create_one("shared.md", "# Shared\n\ntext")
    foreign = await harness.create_one("foreign.md", "# Foreign\n\ntext", principal=stranger)
    events = harness.enrichment.stage_events(agent, None)
    progress = harness.enrichment.progress_stream(agent)
    assert {e.document_id for e in await take(events, 2)} == {mine.id, shared.id}
    assert await take(progress, 1) == [Progress(queued=2)]
    await harness.started(offline_models, tenants={tenant, stranger.tenant_id})
    await harness.recorder.wait_final([mine.id, theirs.id, shared.id, foreign.id])
    seen = await take(events, 12)
    assert {e.document_id for e in seen} == {mine.id, shared.id}
    pushed: list[Progress] = []
    async with asyncio.timeout(10):
        while not pushed or pushed[-1] != Progress(done=2):
            pushed.extend(await take(progress, 1))
    assert len(pushed) <= 12  # pushed on change, coalesced; never per event of the other owners
    await events.aclose()
    await progress.aclose()
