"""The GraphQL side of /metrics (vaultgraph/metrics.py): each operation's latency by type and name, and the live
subscriptions. Errors are counted by code where their code is decided, in ErrorPolicy (schema/extensions/errors.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from vaultgraph.metrics import Metrics


class OperationMetrics(SchemaExtension):
    def __init__(self, metrics: Metrics) -> None:
        super().__init__()
        self.metrics = metrics
        self.streaming = False

    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:  # a subscription's stream ends by cancellation too (the socket closed): thrown in at `yield`
            if self.streaming:
                self.metrics.subscriptions.dec()
        if self.streaming:  # a subscription's operation lasts as long as its stream: no latency to report
            return
        context = self.execution_context
        try:
            kind = context.operation_type.value
        except Exception:  # a document that does not parse, or names no operation: no type to tell
            kind = "unknown"
        self.metrics.requests.labels(kind, self.metrics.operation_name(context.operation_name)).observe(
            time.perf_counter() - started)

    def on_execute(self) -> Iterator[None]:
        if self.execution_context.operation_type is OperationType.SUBSCRIPTION and not self.streaming:
            self.streaming = True
            self.metrics.subscriptions.inc()
        yield


def operation_metrics(metrics: Metrics) -> Callable[[], SchemaExtension]:
    """A factory: strawberry builds each extension afresh per operation."""
    return lambda: OperationMetrics(metrics)
