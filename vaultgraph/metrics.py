"""What an operator scrapes: `/metrics` in the Prometheus text format, through `prometheus-client`.

One `Metrics` per app (its own registry, so two apps in one process never mix their figures). What is observed on a
request's path is a histogram observation or a counter increment (a lock and a few additions); everything that can
be read instead is read at scrape time by `_Readings` (queue depth, Neo4j transactions and retries), so the hot
path pays nothing for it. Operation names are the clients' words: the first `MAX_OPERATION_NAMES` distinct ones get
a series of their own, later ones count as `other`, so a client inventing names cannot grow the scrape.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from vaultgraph.domain import EnrichmentStage
from vaultgraph.events.bus import DocumentStageChanged, Event, EventBus, Overflow
from vaultgraph.lru import Lru

MAX_OPERATION_NAMES = 200
ANONYMOUS = "anonymous"
OTHER = "other"
TRACKED_DOCUMENTS = 10_000  # documents whose current stage is remembered to time it; the oldest forgotten first
FINAL_STAGES = frozenset({EnrichmentStage.DONE, EnrichmentStage.FAILED, EnrichmentStage.SKIPPED})
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
STAGE_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0)
BATCH_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class _Readings(Collector):
    """Figures read when scraped, from callables the runtime sets (None: not in this process)."""

    def __init__(self) -> None:
        self.queue_depth: Callable[[], int] | None = None
        self.neo4j_transactions: Callable[[], int] | None = None
        self.neo4j_retries: Callable[[], int] | None = None

    def collect(self) -> Iterator[Metric]:
        if self.queue_depth is not None:
            yield GaugeMetricFamily("vaultgraph_enrichment_queue_depth",
                                    "Documents waiting in this process's enrichment queues.", value=self.queue_depth())
        if self.neo4j_transactions is not None:
            yield CounterMetricFamily("vaultgraph_neo4j_transactions", "Neo4j transactions this process started.",
                                      value=self.neo4j_transactions())
        if self.neo4j_retries is not None:
            yield CounterMetricFamily("vaultgraph_neo4j_transaction_retries",
                                      "Neo4j transactions run again after a transient error (deadlock, leader "
                                      "switch, a node deleted under a lock).", value=self.neo4j_retries())


class Metrics:
    """The app's metrics; `text()` is the scrape."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        self.requests = Histogram(
            "vaultgraph_graphql_request_seconds", "GraphQL queries and mutations, from parse to result, by operation.",
            ["operation_type", "operation_name"], buckets=LATENCY_BUCKETS, registry=registry)
        self.errors = Counter("vaultgraph_graphql_errors", "GraphQL errors answered, by extensions.code.", ["code"],
                              registry=registry)
        self.subscriptions = Gauge("vaultgraph_graphql_subscriptions", "Subscription operations streaming now.",
                                   registry=registry)
        self.sockets = Gauge("vaultgraph_websockets", "graphql-transport-ws sockets open now.", registry=registry)
        self.stages = Histogram(
            "vaultgraph_enrichment_stage_seconds", "Time a document spent in an enrichment stage before the next.",
            ["stage"], buckets=STAGE_BUCKETS, registry=registry)
        self.embedding_batch = Histogram("vaultgraph_embedding_batch_size", "Texts per embedding call.",
                                         buckets=BATCH_BUCKETS, registry=registry)
        self.embedding_seconds = Histogram("vaultgraph_embedding_seconds", "Duration of an embedding call.",
                                           buckets=LATENCY_BUCKETS, registry=registry)
        self.readings = _Readings()
        registry.register(self.readings)
        self._names: set[str] = set()

    def operation_name(self, name: str | None) -> str:
        """The label for an operation name: bounded in number (module docstring)."""
        if not name:
            return ANONYMOUS
        if name in self._names:
            return name
        if len(self._names) >= MAX_OPERATION_NAMES:
            return OTHER
        self._names.add(name)
        return name

    def errors_by_code(self, code: str) -> None:
        self.errors.labels(code).inc()

    def text(self) -> bytes:
        return generate_latest(self.registry)

    async def time_stages(self, bus: EventBus) -> None:
        """Until cancelled: the time between each document's stage changes, from the bus (every process's, with
        Redis), as `vaultgraph_enrichment_stage_seconds`."""
        entered: Lru[tuple[str, str], tuple[EnrichmentStage, float]] = Lru(TRACKED_DOCUMENTS)

        def accept(event: Event) -> bool:
            return isinstance(event, DocumentStageChanged)

        async with bus.subscribe(accept, capacity=10_000, overflow=Overflow.DROP_OLDEST,
                                 label="metrics") as events:
            async for event in events:
                assert isinstance(event, DocumentStageChanged)
                key = (event.tenant_id, event.document_id)
                at = event.at.timestamp()
                before = entered.get(key)
                if before is not None and at >= before[1] and before[0] is not event.stage:
                    self.stages.labels(before[0].value).observe(at - before[1])
                if event.stage in FINAL_STAGES:
                    entered.pop(key)
                elif before is None or before[0] is not event.stage:
                    entered.put(key, (event.stage, at))


class MeasuredModels:
    """The runtime's model client, with each `embed` call's size and duration observed; everything else is the
    client's own (the runtime casts it back to the client's type)."""

    def __init__(self, models: Any, metrics: Metrics) -> None:
        self._models = models
        self._metrics = metrics

    async def embed(self, texts: Sequence[str], *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await self._models.embed(texts, *args, **kwargs)
        finally:
            self._metrics.embedding_seconds.observe(time.perf_counter() - started)
            self._metrics.embedding_batch.observe(len(texts))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._models, name)
