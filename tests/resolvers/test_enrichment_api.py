"""Enrichment through the real server: subscriptions over a real WebSocket (graphql-transport-ws), the progress
query, and re-enrichment, with the workers running inside the server's lifespan."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support.graphql_ws import graphql_ws
from tests.support.openai_server import run_openai_server
from tests.support.server import RunningServer, run_server
from tests.support.tiers import sized
from tests.support.waiting import eventually, until
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph, pytest.mark.workers]

CREATE = "mutation($input: DocumentInput!) { createDocument(input: $input) { id } }"
EVENTS = """
subscription($ids: [ID!]) { enrichmentEvents(documentIds: $ids) { documentId stage attempt error detail at } }
"""
PROGRESS = "subscription { enrichmentProgress { queued running done failed skipped total } }"
STAGES = ["QUEUED", "PREPARE", "SUMMARIZE", "EMBED", "CLASSIFY", "WIKILINKS", "DONE"]


@pytest.fixture
async def server(settings: Settings, tenant: str) -> AsyncIterator[RunningServer]:
    """The real server, its workers serving this test's two tenants (the shared Neo4j holds other tests' work)."""
    configured = settings.model_copy(update={"dev_tenant": tenant, "port": 0,
                                             "enrichment_tenants": [tenant, f"{tenant}o"]})
    async with run_server(configured) as running:
        yield running


async def create(server: RunningServer, path: str, content: str, tenant: str | None = None) -> str:
    headers = {"X-Vaultgraph-Tenant": tenant} if tenant else {}
    response = await server.client.post("/graphql", headers=headers, json={
        "query": CREATE, "variables": {"input": {"path": path, "content": content}}})
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    return str(body["data"]["createDocument"]["id"])


async def test_a_subscriber_receives_the_stage_changes_of_its_own_tenant_only(
    server: RunningServer, tenant: str
) -> None:
    other = f"{tenant}o"
    bus = server.app.state.services.enrichment.bus
    before = bus.subscriber_count
    async with graphql_ws(server.url) as mine, graphql_ws(server.url, {"X-Vaultgraph-Tenant": other}) as theirs:
        my_events = await mine.subscribe(EVENTS)
        their_events = await theirs.subscribe(EVENTS)

        async def both_registered() -> bool:
            return bool(bus.subscriber_count >= before + 2)

        await until(both_registered, 30, "both subscriptions registered on the bus")
        own = await create(server, "own.md", "# Own\n\nOur runbook.")
        foreign = await create(server, "foreign.md", "# Foreign\n\nTheir runbook.", tenant=other)
        for client, operation, document in ((mine, my_events, own), (theirs, their_events, foreign)):
            stages: list[str] = []
            async with asyncio.timeout(60):
                while stages[-1:] != ["DONE"]:
                    event = (await client.receive(operation))["data"]["enrichmentEvents"]
                    assert event["documentId"] == document  # never the other tenant's
                    stages.append(event["stage"])
            assert stages == STAGES


async def test_a_bulk_of_documents_each_reach_done_in_order_and_progress_ends_all_done(
    server: RunningServer,
) -> None:
    count = sized(20, 100)  # 20 in `make test` (four batches of five), a hundred in `make test-all`
    async with graphql_ws(server.url) as client:
        events = await client.subscribe(EVENTS)
        progress = await client.subscribe(PROGRESS)
        first = (await client.receive(progress))["data"]["enrichmentProgress"]
        assert first["total"] == 0
        ids = [await create(server, f"bulk/doc-{n:03d}.md", f"# Doc {n}\n\nParagraph {n} about topic {n % 7}.")
               for n in range(count)]
        seen: dict[str, list[str]] = {}
        async with asyncio.timeout(240):
            while sum(stages[-1:] == ["DONE"] for stages in seen.values()) < count:
                event = (await client.receive(events))["data"]["enrichmentEvents"]
                seen.setdefault(event["documentId"], []).append(event["stage"])
            last = first
            while last["done"] < count:
                last = (await client.receive(progress))["data"]["enrichmentProgress"]
        assert set(seen) == set(ids)
        assert all(stages == STAGES for stages in seen.values())
        assert last == {"queued": 0, "running": 0, "done": count, "failed": 0, "skipped": 0, "total": count}
    query = await server.data("{ enrichmentProgress { done total } }")
    assert query["enrichmentProgress"] == {"done": count, "total": count}


async def polled_state(server: RunningServer, document: str, stage: str) -> dict[str, Any]:
    """Poll `document.enrichment` (what a client without a subscription does) until it shows `stage`."""
    read = "query($id: ID!) { document(id: $id) { enrichment { stage error } } }"

    async def state() -> dict[str, Any]:
        found: dict[str, Any] = (await server.data(read, {"id": document}))["document"]["enrichment"]
        return found

    return await eventually(state, lambda s: bool(s["stage"] == stage), 60, f"{document} reached {stage}")


async def test_a_model_that_keeps_failing_shows_failed_with_its_error_and_reenrich_recovers(
    settings: Settings, tenant: str
) -> None:
    with run_openai_server(embedding_dimensions=384) as model:
        model.fail(times=1000, status=500, route="chat")
        configured = settings.model_copy(update={
            "dev_tenant": tenant, "port": 0, "enrichment_tenants": [tenant],
            "openai_base_url": model.base_url,
            "openai_api_key": "sk-test", "chat_model": "test-chat", "model_max_retries": 0, "model_timeout": 5.0,
            "enrichment_attempt_timeouts": [10.0, 10.0], "enrichment_retry_backoff": [0.0, 0.1],
        })
        async with run_server(configured) as server:
            document = await create(server, "fails.md", "# Fails\n\nThe model is down.")
            failed = await polled_state(server, document, "FAILED")
            assert "500" in failed["error"] and "summarize" in failed["error"]
            model.reset()
            model.on_chat(lambda body: '[{"idx": 1, "summary": "Back up.", "category": "Technology"}]')
            again = await server.data("mutation($ids: [ID!]) { reenrich(ids: $ids) { id enrichment { stage } } }",
                                      {"ids": [document]})
            assert again["reenrich"] == [{"id": document, "enrichment": {"stage": "QUEUED"}}]
            await polled_state(server, document, "DONE")
            summary = await server.data("query($id: ID!) { document(id: $id) { summary } }", {"id": document})
            assert summary["document"]["summary"] == "Back up."
