"""Timing: warm-up, then latency samples interleaved across targets, then a concurrent burst for throughput.

Targets of one workload (vaultgraph, the floor, the peer) take turns in rounds, so a noisy neighbour on this
shared machine slows all of them alike and their ratios hold. Each call returns how many objects it got back,
which the report shows so that targets can be seen to answer the same thing.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

# A call gets (worker, iteration) — the worker owns a connection, the iteration may vary the query — and
# returns the number of objects in its answer.
Call = Callable[[int, int], Awaitable[int]]
Ready = Callable[[int], Awaitable[None]]


async def _nothing(worker: int) -> None:
    return None


@dataclass
class Target:
    name: str
    call: Call
    ready: Ready = _nothing  # untimed preparation before each call (e.g. reopen a keep-alive connection)


@dataclass(frozen=True, slots=True)
class Budget:
    warmup: int = 20
    iterations: int = 200
    max_seconds: float = 6.0  # per target and phase: slow workloads take fewer samples (at least MIN_SAMPLES)
    concurrency: int = 4
    rounds: int = 5


MIN_SAMPLES = 5


@dataclass
class Stats:
    samples: list[float] = field(default_factory=list)  # seconds
    ops_per_second: float | None = None
    objects: int | None = None
    error: str | None = None

    @property
    def p50(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None

    @property
    def p95(self) -> float | None:
        if not self.samples:
            return None
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


async def _timed(target: Target, worker: int, i: int) -> tuple[float, int]:
    await target.ready(worker)
    started = time.perf_counter()
    objects = await target.call(worker, i)
    return time.perf_counter() - started, objects


async def _throughput(target: Target, count: int, concurrency: int, max_seconds: float) -> float:
    """Calls completed per second by `concurrency` clients making `count` calls (fewer past `max_seconds`)."""
    counter = iter(range(count))
    done = 0
    started = time.perf_counter()

    async def worker(w: int) -> None:
        nonlocal done
        for i in counter:
            await target.ready(w)
            await target.call(w, i)
            done += 1
            if time.perf_counter() - started > max_seconds:
                return

    await asyncio.gather(*(worker(w) for w in range(concurrency)))
    return done / (time.perf_counter() - started)


async def compare(targets: list[Target], budget: Budget) -> dict[str, Stats]:
    """Measure every target of one workload; a target that fails keeps its error and drops out."""
    stats = {t.name: Stats() for t in targets}
    live: list[Target] = []
    per_round: dict[str, int] = {}
    for target in targets:
        try:
            started = time.perf_counter()
            calls = 0
            while calls < max(1, budget.warmup):  # a slow workload warms up for half the time cap at most
                _, stats[target.name].objects = await _timed(target, 0, calls)
                calls += 1
                if time.perf_counter() - started > budget.max_seconds / 2:
                    break
            each = (time.perf_counter() - started) / calls
        except Exception as exc:  # a target that cannot answer is reported, not fatal
            stats[target.name].error = f"{type(exc).__name__}: {exc}"[:200]
            continue
        samples = max(MIN_SAMPLES, min(budget.iterations, int(budget.max_seconds / max(each, 1e-6))))
        per_round[target.name] = max(1, samples // budget.rounds)
        live.append(target)
    for r in range(budget.rounds):
        for target in live:
            for k in range(per_round[target.name]):
                seconds, stats[target.name].objects = await _timed(target, 0, budget.warmup + r * 1000 + k)
                stats[target.name].samples.append(seconds)
    for target in live:
        count = per_round[target.name] * budget.rounds
        stats[target.name].ops_per_second = await _throughput(target, count, budget.concurrency, budget.max_seconds)
    return stats
