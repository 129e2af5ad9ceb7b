"""Token buckets, one per API key (per tenant in development mode), so one flood never drains another's budget.

A refused request costs a dictionary lookup and a little arithmetic: no Neo4j query, no GraphQL parse."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_BUCKETS = 50_000


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """`rate` tokens a second refill each bucket up to `burst`; a request takes one. `rate` 0 turns it off."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def take(self, key: str, cost: float = 1.0) -> float:
        """Take `cost` tokens from `key`'s bucket: 0.0 when granted, else the seconds until it would be."""
        if not self.enabled:
            return 0.0
        cost = min(cost, float(self.burst))  # more than a full bucket could never be granted
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_BUCKETS:
                self._prune(now)
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        else:
            bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
        if bucket.tokens >= cost:
            bucket.tokens -= cost
            return 0.0
        return (cost - bucket.tokens) / self.rate

    def wait(self, key: str) -> float:
        """The seconds until `key`'s bucket holds a token, taking nothing."""
        bucket = self._buckets.get(key)
        if not self.enabled or bucket is None:
            return 0.0
        tokens = min(float(self.burst), bucket.tokens + (self._clock() - bucket.updated) * self.rate)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled: they hold no state worth keeping (a full bucket is the default)."""
        full_after = self.burst / self.rate
        self._buckets = {k: b for k, b in self._buckets.items() if now - b.updated < full_after}
        if len(self._buckets) >= MAX_BUCKETS:  # a storm of distinct keys: start afresh rather than grow
            self._buckets.clear()


def retry_after(wait: float) -> str:
    """The `Retry-After` header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(wait)))
