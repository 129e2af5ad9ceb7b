"""Interactive work first: background lanes give way while a request is being answered.

On a machine of a few cores, an indexing batch in ONNX Runtime holds every core for as long as it runs, and the
vectors it then writes keep Neo4j busy; a search arriving meanwhile waits behind both (issue 25 item 6: 3.2× its
idle p50 during an import). So the process counts the requests it is answering (`Foreground.serving`, around each
GraphQL operation over HTTP and each MCP call) and the background lanes (the worker pool's tasks, which run with
`BACKGROUND` set) call `give_way()` between their steps: before a claim, before each sub-batch of the model.

`give_way` returns once no request has been in flight for `grace` seconds (a client's next request in a row comes
within a few milliseconds, so one quiet moment between two is not an invitation), or after `max_wait` at the
latest, and one step (a claim, a whole embedding call of many batches) waits `max_wait` at most in all, so
background work still moves under a steady stream of requests and a long document's embedding never runs into its
attempt's timeout. A batch that goes on while requests are still being answered asks `sharing()`, and the offline
model runs it on one core instead of all (models/local_embedding.py), leaving the rest to the requests and Neo4j.
The vector writes do not wait: a write held back behind a request that saved the same note would land after it.
Long-lived streams (subscriptions, file downloads) are not counted: they would hold the lanes for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

GRACE_SECONDS = 0.02
MAX_WAIT_SECONDS = 1.0


class Foreground:
    """The requests this process is answering; `give_way` lets them go first."""

    def __init__(self, grace: float = GRACE_SECONDS, max_wait: float = MAX_WAIT_SECONDS) -> None:
        if grace < 0 or max_wait < 0:
            raise ValueError("grace and max_wait must not be negative")
        self.grace = grace
        self.max_wait = max_wait
        self.in_flight = 0
        self.waits = 0  # how many times a background step waited (for tests and /metrics readers)
        self._last_end = float("-inf")
        self._quiet = asyncio.Event()
        self._quiet.set()

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """Around one request's work (synchronous bookkeeping: it costs a counter, not an await)."""
        self.in_flight += 1
        self._quiet.clear()
        try:
            yield
        finally:
            self.in_flight -= 1
            if not self.in_flight:
                self._last_end = time.monotonic()
                self._quiet.set()

    @property
    def busy(self) -> bool:
        """Whether a request is in flight or was a moment ago (and giving way is on at all)."""
        return bool(self.max_wait) and (bool(self.in_flight) or time.monotonic() - self._last_end < self.grace)

    async def give_way(self, already: float = 0.0) -> float:
        """Wait until no request has been answered for `grace` seconds, or `max_wait` less `already` (what this
        step's earlier waits took) has passed; returns the seconds waited."""
        started = time.monotonic()
        deadline = started + self.max_wait - already
        if deadline <= started or not self.busy:
            return 0.0
        self.waits += 1
        while self.busy and (now := time.monotonic()) < deadline:
            if self.in_flight:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(deadline - now):
                        await self._quiet.wait()
            else:  # the grace after the last request
                await asyncio.sleep(min(self._last_end + self.grace - now, deadline - now))
        return time.monotonic() - started


# The gate of the background lane this task belongs to (set for the worker pool's tasks); None elsewhere, so a
# request's own work (an inline saveNote's embedding) never waits for itself.
BACKGROUND: ContextVar[Foreground | None] = ContextVar("vaultgraph_background", default=None)


async def give_way(already: float = 0.0) -> float:
    """In a background lane, let the process's requests go first (`already`: the seconds this step has waited
    before, so one step, a claim or a whole embedding call, waits `max_wait` at most in all); anywhere else, nothing.
    Returns the seconds waited."""
    gate = BACKGROUND.get()
    return await gate.give_way(already) if gate is not None else 0.0


def in_background() -> bool:
    """Whether this task is a background lane's (the worker pool's), which no request waits on."""
    return BACKGROUND.get() is not None


def sharing() -> bool:
    """Whether this is a background lane's step while requests are being answered: it should leave them room
    (the offline model then runs the step on one core of its pool, not all of them)."""
    gate = BACKGROUND.get()
    return gate is not None and gate.busy
