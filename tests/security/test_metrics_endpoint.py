"""GET /metrics (vaultgraph/metrics.py, http/metrics.py): the Prometheus scrape shows what the server did (operation
latency by name and type, errors by code, sockets and subscriptions, Neo4j transactions, embedding calls,
enrichment stages), and only the operator reads it outside development mode."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.graphql_ws import graphql_ws
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.metrics import MAX_OPERATION_NAMES, OTHER, Metrics

pytestmark = [pytest.mark.api, pytest.mark.graph, pytest.mark.security]

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
SUBSCRIBE = "subscription Watch { enrichmentEvents { documentId stage } }"


async def scrape(client: httpx.AsyncClient, headers: dict[str, str] | None = None) -> Samples:
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(response.text) for sample in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def until(check: Callable[[], Awaitable[bool]], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, "the scrape never showed it"
        await asyncio.sleep(0.05)


async def test_the_scrape_shows_operations_errors_sockets_and_the_pipeline(server: RunningServer) -> None:
    before = await scrape(server.client)
    await server.data("query Probe { __typename }")
    await server.data("query Probe { __typename }")
    refused = await server.graphql("query Bad { traverse(from: [\"nope\"], hops: 9) { nodes { depth } } }")
    code = refused["errors"][0]["extensions"]["code"]
    invalid = await server.graphql("{ noSuchField }")
    assert invalid["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    created = await server.data("mutation Add($input: DocumentInput!) { createDocument(input: $input) { id } }",
                                {"input": {"path": "metrics.md", "content": "# Metrics\n\nA page to enrich.\n"}})
    assert created["createDocument"]["id"]
    after = await scrape(server.client)

    histogram = "vaultgraph_graphql_request_seconds_count"
    assert value(after, histogram, operation_type="query", operation_name="Probe") \
        - value(before, histogram, operation_type="query", operation_name="Probe") == 2
    assert value(after, histogram, operation_type="mutation", operation_name="Add") \
        - value(before, histogram, operation_type="mutation", operation_name="Add") == 1
    assert value(after, "vaultgraph_graphql_errors_total", code=code) \
        - value(before, "vaultgraph_graphql_errors_total", code=code) >= 1
    assert value(after, "vaultgraph_graphql_errors_total", code="GRAPHQL_VALIDATION_FAILED") \
        - value(before, "vaultgraph_graphql_errors_total", code="GRAPHQL_VALIDATION_FAILED") >= 1
    assert value(after, "vaultgraph_neo4j_transactions_total") > value(before, "vaultgraph_neo4j_transactions_total")
    assert ("vaultgraph_neo4j_transaction_retries_total", frozenset()) in after
    assert ("vaultgraph_enrichment_queue_depth", frozenset()) in after  # the test server runs workers

    async def enriched() -> bool:  # the workers took the document through its stages, embedding it on the way
        now = await scrape(server.client)
        stage, embedded = "vaultgraph_enrichment_stage_seconds_count", "vaultgraph_embedding_batch_size_count"
        return value(now, stage, stage="QUEUED") > value(before, stage, stage="QUEUED") \
            and value(now, embedded) > value(before, embedded)

    await until(enriched)

    async with graphql_ws(server.url) as ws:
        await ws.subscribe(SUBSCRIBE)

        async def streaming() -> bool:
            now = await scrape(server.client)
            sockets, live = "vaultgraph_websockets", "vaultgraph_graphql_subscriptions"
            return value(now, sockets) >= value(before, sockets) + 1 and value(now, live) >= value(before, live) + 1

        await until(streaming)

    async def closed() -> bool:
        now = await scrape(server.client)
        sockets, live = "vaultgraph_websockets", "vaultgraph_graphql_subscriptions"
        return value(now, sockets) <= value(before, sockets) and value(now, live) <= value(before, live)

    await until(closed)


def test_operation_names_are_bounded() -> None:
    metrics = Metrics()
    names = [metrics.operation_name(f"Op{n}") for n in range(MAX_OPERATION_NAMES + 5)]
    assert names[:MAX_OPERATION_NAMES] == [f"Op{n}" for n in range(MAX_OPERATION_NAMES)]
    assert names[MAX_OPERATION_NAMES:] == [OTHER] * 5
    assert metrics.operation_name("Op0") == "Op0"  # a name seen before keeps its series
    assert metrics.operation_name(None) == "anonymous"


async def test_outside_development_mode_the_scrape_needs_the_operators_token(settings: Settings) -> None:
    keyed = settings.model_copy(update={"dev_mode": False, "port": 0, "enrichment_workers": False,
                                        "metrics_token": "operator-secret"})
    async with run_server(keyed) as running:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "operator-secret"}):
            refused = await running.client.get("/metrics", headers=headers)
            assert refused.status_code == 401
            assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
            assert "vaultgraph_" not in refused.text
        samples = await scrape(running.client, {"Authorization": "Bearer operator-secret"})
        assert ("vaultgraph_websockets", frozenset()) in samples

    unset = settings.model_copy(update={"dev_mode": False, "port": 0, "enrichment_workers": False})
    async with run_server(unset) as running:
        refused = await running.client.get("/metrics")
        assert refused.status_code == 403
        assert refused.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_metrics_off_serves_no_scrape(settings: Settings) -> None:
    off = settings.model_copy(update={"port": 0, "enrichment_workers": False, "metrics": False})
    async with run_server(off) as running:
        response = await running.client.get("/metrics")
        assert "vaultgraph_graphql_request_seconds" not in response.text
        assert running.app.state.runtime.metrics is None
        await running.data("{ __typename }")  # and GraphQL works without it


async def test_tracing_when_asked_sends_spans_without_the_arguments(settings: Settings) -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # the process's provider, as `opentelemetry-instrument` would set it
    traced = settings.model_copy(update={"port": 0, "enrichment_workers": False, "otel_tracing": True})
    async with run_server(traced) as running:
        answer = await running.graphql("query Find($slug: String) { note(slug: $slug) { id } }",
                                       {"slug": "secret-slug"})
        assert answer["errors"][0]["extensions"]["code"] == "NOT_FOUND"  # a real lookup ran
    spans = exporter.get_finished_spans()
    assert "GraphQL Query: Find" in [span.name for span in spans]
    assert any(span.name.startswith("GraphQL Resolving") for span in spans), [span.name for span in spans]
    for span in spans:
        assert all("secret-slug" not in str(value) for value in (span.attributes or {}).values()), span.attributes
