"""Execute once per event: subscribers of the same shape share one execution of their selection set.

Strawberry (through graphql-core's `subscribe`) executes a subscription's selection set once per subscriber per
event, so an event followed by 500 sockets ran 500 times the same execution. A subscription resolver that knows
its payload is a pure function of a hashable key (the bus event it came from) yields `shared(payload, key)`; the
schema's executor (`sharing_executor`) then keeps the executed result of (key, shape) and hands it to every other
subscriber of that shape. A shape is everything the result may depend on besides the event:

- the principal's tenant and visible scopes (so no result ever crosses a tenant or a visibility),
- the operation text (the whole document: its fragments too) and the operation's name,
- the operation's variables.

Only the execution is shared: each subscriber keeps its own stream, its own bus queue, its own snapshot and its
own de-duplication of repeated stages (services/enrichment.py); strawberry still wraps each result for each
subscriber (extensions, error masking) and the transport sends it on each socket under its own operation id.
`SharedResults` counts executions and reuses, for tests and for the log of a busy server.

The express (`express`, `Lane`): a live event need not wake the subscriber's task at all. Walking one result from
the bus queue up through the resolver's generators, graphql-core's and strawberry's streams and the extension hooks
to the socket was most of a delivery's cost (bench/README.md, fan-out), all to send a frame that another subscriber
of the shape already had encoded. The transport gives each graphql-transport-ws operation a `Lane` (a context
variable of the operation's task) that can write a `next` on its socket now; a subscription resolver hands the
bus `express(...)`, which, while the subscriber waits for its next event, executes the event through the
subscriber's own executor (so the shared result of its shape) and writes it. It takes only what strawberry would
have sent unchanged: a result without errors, when no extension would add results or act on it
(`LeanExtensionsRunner.streams_results_unchanged`); anything else, and any event while the subscriber is busy,
goes the ordinary way, in order.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Hashable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from graphql import ExecutionResult

from vaultgraph.lru import Lru
from vaultgraph.schema.execution import LeafFieldsExecutor

T = TypeVar("T")
E = TypeVar("E")

DEFAULT_MAXSIZE = 1024  # (event, shape) results kept: every subscriber of an event asks within moments of the first


@dataclass(frozen=True, slots=True)
class Shared:
    """A subscription payload whose executed result depends only on `key` and the subscriber's shape."""

    payload: object
    key: Hashable


def shared(payload: T, key: Hashable) -> T:
    """What a subscription resolver yields to have its payload executed once per shape: the schema's executor
    unwraps it (typed as the payload, so the resolver keeps the annotation strawberry builds the schema from)."""
    return cast(T, Shared(payload, key))


class SharedResults:
    """The executed results of shared events, one per (event key, shape), least recently used forgotten first."""

    def __init__(self, maxsize: int = DEFAULT_MAXSIZE) -> None:
        self._results: Lru[Hashable, ExecutionResult | asyncio.Future[ExecutionResult]] = Lru(maxsize)
        self.executions = 0  # selection sets executed for shared events
        # deliveries that took an execution another subscriber ran (one the express took but could not send is
        # counted again when the subscriber's task takes it)
        self.reuses = 0

    def reuse(self, key: Hashable) -> ExecutionResult | asyncio.Future[ExecutionResult] | None:
        """The result another subscriber's execution stored under `key`, if any."""
        found = self._results.get(key)
        if found is not None:
            self.reuses += 1
        return found

    def run(self, key: Hashable, execute: Any) -> Any:
        """`execute()`'s result (or an awaitable of one), stored under `key` for the subscribers after this one."""
        self.executions += 1
        result = execute()
        if isinstance(result, ExecutionResult):
            self._results.put(key, result)
            return result
        future = asyncio.ensure_future(cast(Awaitable[ExecutionResult], result))
        self._results.put(key, future)
        return future


class StreamRunner(Protocol):
    def streams_results_unchanged(self) -> bool: ...


class Lane:
    """One graphql-transport-ws operation, as the express needs it: `write` (the transport's) sends `{"data": …}`
    as the operation's `next` now, True when written or under way, False when it cannot (nothing was written); the
    schema fills in the operation's executor (at its first shared event) and extension runner."""

    __slots__ = ("executor", "runner", "write")

    def __init__(self, write: Callable[[dict[str, Any]], bool]) -> None:
        self.write = write
        self.executor: SharingExecutorBase | None = None
        self.runner: StreamRunner | None = None


LANE: ContextVar[Lane | None] = ContextVar("vaultgraph_express_lane", default=None)


def express(to_payload: Callable[[E], object]) -> Callable[[E], bool] | None:
    """For a subscription resolver, in its operation's task: what takes an event straight to the subscriber's
    socket (True: sent), given how the resolver makes its payload from an event (`shared(payload, event)`: the
    event is the key); None when the operation's transport has no lane. The event goes the ordinary way whenever
    this says False."""
    lane = LANE.get()
    if lane is None:
        return None

    def take(event: E) -> bool:
        executor, runner = lane.executor, lane.runner
        if executor is None or runner is None:
            return False
        result = executor.result_now(event, to_payload)
        # extensions' results asked after the execution, as strawberry asks them (a resolver may warn)
        if result is None or result.errors or not isinstance(result.data, dict) \
                or not runner.streams_results_unchanged():
            return False
        return lane.write(result.data)

    return take


class SharingExecutorBase(LeafFieldsExecutor):
    """What the express asks of a subscription's executor (the class `sharing_executor` makes)."""

    def result_now(self, key: Hashable, to_payload: Callable[[Any], object]) -> ExecutionResult | None:
        """The executed result of the shared event `key` for this subscriber's shape if it is at hand without
        waiting; its payload is made (`to_payload(key)`, a `Shared` of that key) only if it has to be executed."""
        raise NotImplementedError


class _Reused:
    """Stands in for a per-event executor when the event's result is already there: nothing to copy or run."""

    __slots__ = ("result",)

    def __init__(self, result: ExecutionResult | asyncio.Future[ExecutionResult]) -> None:
        self.result = result

    def execute_operation(self, serially: bool | None = None) -> ExecutionResult | asyncio.Future[ExecutionResult]:
        return self.result


def shape_of(operation: Any, variables: dict[str, Any], context: Any) -> Hashable | None:
    """Everything a shared event's result may depend on besides the event; None: do not share (no principal, no
    source text, or variables that do not serialise)."""
    principal = getattr(context, "principal", None)
    source = operation.loc.source.body if operation.loc is not None else None
    if principal is None or source is None:
        return None
    try:
        frozen = json.dumps(variables, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return None
    visible = principal.visible_owner_keys()
    name = operation.name.value if operation.name is not None else None
    return principal.tenant_id, None if visible is None else tuple(visible), source, name, frozen


def sharing_executor(results: SharedResults) -> type[SharingExecutorBase]:
    """The schema's executor (schema/execution.py), sharing the execution of `Shared` subscription events through
    `results`."""

    class SharingExecutor(SharingExecutorBase):
        _shape: Hashable | None = None  # on a subscription's executor: computed at its first shared event
        _shared_key: Hashable | None = None  # on a per-event executor of a shared event

        def build_per_event_executor(self, payload: Any) -> Any:
            if not isinstance(payload, Shared):
                return super().build_per_event_executor(payload)
            lane = LANE.get()  # this runs in the subscription's own task: the lane is its operation's
            if lane is not None and lane.executor is None:
                lane.executor = self
            return self._per_event(payload)

        def result_now(self, key: Hashable, to_payload: Callable[[Any], object]) -> ExecutionResult | None:
            if not self._shape:  # not shareable (or no shared event yet): an execution of its own would not be now
                return None
            result: Any = results.reuse((key, self._shape))
            if result is None:
                payload = to_payload(key)
                if not isinstance(payload, Shared) or payload.key != key:
                    return None
                result = self._per_event(payload).execute_operation(False)  # as graphql-core runs an event
            if isinstance(result, asyncio.Future):  # an execution that waits: its subscriber's task takes it
                if not result.done() or result.cancelled() or result.exception() is not None:
                    return None
                result = result.result()
            return result if isinstance(result, ExecutionResult) else None

        def _per_event(self, payload: Shared) -> Any:
            if self._shape is None:
                self._shape = shape_of(self.operation, self.variable_values.coerced, self.context_value) or ()
            key = (payload.key, self._shape) if self._shape else None
            found = results.reuse(key) if key is not None else None
            if found is not None:
                return _Reused(found)  # graphql-core only calls its execute_operation
            executor = cast(SharingExecutor, super().build_per_event_executor(payload.payload))
            executor._shared_key = key
            return executor

        def execute_operation(self, serially: bool | None = None) -> Any:
            key = self._shared_key
            if key is None:
                return super().execute_operation(serially)
            return results.run(key, lambda: super(SharingExecutor, self).execute_operation(serially))

    return SharingExecutor
