"""Work waiting for a worker: one FIFO per tenant and agent, served round-robin so a big rescan of one tenant
cannot starve another (GoClaw's per tenant:agent BatchQueue).

Round-robin runs on two levels, tenants first and then the agents within a tenant, so a tenant with many agents
gets no larger share than a tenant with one. A queue that just got work goes to the front of the ring (it has
waited longest since it was last served), so a newcomer waits at most for the batches already running.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from dataclasses import dataclass

SHARED_AGENT = ""  # documents without an agent (team and shared space) share one queue per tenant


@dataclass(frozen=True, slots=True)
class Batch:
    tenant_id: str
    agent: str
    document_ids: list[str]


class FairQueue:
    def __init__(self) -> None:
        self._tenants: OrderedDict[str, OrderedDict[str, deque[str]]] = OrderedDict()
        self._queued: set[tuple[str, str]] = set()
        self._ready = asyncio.Event()

    def __len__(self) -> int:
        return len(self._queued)

    def __contains__(self, key: tuple[str, str]) -> bool:
        """`(tenant_id, document_id)` is waiting."""
        return key in self._queued

    def put(self, tenant_id: str, agent: str | None, document_id: str) -> bool:
        """Queue a document; False (and nothing changes) when it is already waiting."""
        key = (tenant_id, document_id)
        if key in self._queued:
            return False
        agents = self._tenants.get(tenant_id)
        if agents is None:
            agents = self._tenants[tenant_id] = OrderedDict()
            self._tenants.move_to_end(tenant_id, last=False)
        lane = agent or SHARED_AGENT
        queue = agents.get(lane)
        if queue is None:
            queue = agents[lane] = deque()
            agents.move_to_end(lane, last=False)
        queue.append(document_id)
        self._queued.add(key)
        self._ready.set()
        return True

    def take(self, limit: int) -> Batch | None:
        """Up to `limit` documents of the next tenant:agent queue in the ring, or None when all are empty."""
        if not self._tenants:
            return None
        tenant_id, agents = next(iter(self._tenants.items()))
        lane, queue = next(iter(agents.items()))
        ids = [queue.popleft() for _ in range(min(limit, len(queue)))]
        if queue:
            agents.move_to_end(lane)
        else:
            del agents[lane]
        if agents:
            self._tenants.move_to_end(tenant_id)
        else:
            del self._tenants[tenant_id]
        for document_id in ids:
            self._queued.discard((tenant_id, document_id))
        if not self._tenants:
            self._ready.clear()
        return Batch(tenant_id, lane, ids)

    def head_size(self) -> int:
        """Documents waiting in the queue `take()` serves next."""
        if not self._tenants:
            return 0
        agents = next(iter(self._tenants.values()))
        return len(next(iter(agents.values())))

    async def get(self, limit: int, linger: float = 0.0) -> Batch:
        """The next batch, waiting for work when there is none. When the next queue holds less than `limit`,
        wait `linger` seconds first: documents created one after another then share a batch (and a call)."""
        while True:
            if self._tenants and self.head_size() < limit and linger > 0:
                await asyncio.sleep(linger)
            batch = self.take(limit)
            if batch is not None:
                return batch
            self._ready.clear()
            await self._ready.wait()
