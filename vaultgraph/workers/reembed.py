"""Background re-embedding, the worker pool's third kind of work: finished documents whose vector another
embedding model made (graph/vectors.py records the model and dimension on each) are claimed a batch at a time and
re-embedded from the text enrichment embedded (title, path, summary), their stage staying DONE and their old
vector serving until the new one is written. Then notes', chunks' and topics' vectors of another model, through
`vaultgraph reembed`'s own step (services/vectors.py), so a changed model (an upgrade across a new offline
default included) heals without anyone running the command.

Enrichment comes first: the lane yields as soon as a document waits in the pool's queue, and takes a pool slot
per batch like an enrichment batch. It looks again every `sweep_seconds`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from vaultgraph.graph import enrichment_claims as claim_cypher
from vaultgraph.graph import enrichment_stages as stage_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.models import ModelClient
from vaultgraph.services.indexing import current_model
from vaultgraph.services.vectors import Reembedder
from vaultgraph.workers.prompts import embedding_text

log = structlog.get_logger(__name__)

BATCHES_PER_ROUND = 20  # stale documents one round reads: this many batches' worth
# Texts per embedding call for notes, chunks and topics: a batch is a document's worth of enrichment (5), a note is
# one text and a chunk's share of one, so several batches' worth go per call.
BATCH_WIDTH = 8


@dataclass(frozen=True, slots=True)
class ReembedConfig:
    worker_id: str
    batch_size: int = 5
    lease_seconds: float = 60.0
    sweep_seconds: float = 30.0


class ReembedLane:
    def __init__(self, graph: Graph, models: ModelClient, config: ReembedConfig, slots: asyncio.Semaphore,
                 tenants: Callable[[], frozenset[str] | None], enrichment_waits: Callable[[], bool],
                 reembedder: Reembedder | None = None) -> None:
        self.graph = graph
        self.models = models
        self.config = config
        self.slots = slots
        self.tenants = tenants
        self.enrichment_waits = enrichment_waits
        self.reembedder = reembedder  # the other kinds' vectors (notes, chunks, topics), as `vaultgraph reembed`

    async def run(self) -> None:
        """One round every `sweep_seconds`, forever; a failed round is logged and the next one tries again."""
        while True:
            try:
                count = await self.run_once()
                if count:
                    log.info("re-embedded vectors for the current embedding model", count=count)
            except Exception as exc:  # Neo4j or the model away: next round
                log.warning("background re-embedding failed", reason=str(exc))
            await asyncio.sleep(self.config.sweep_seconds)

    async def run_once(self) -> int:
        """Re-embed, a batch at a time and only while no enrichment waits, finished documents whose vector came
        from another embedding model; returns how many were re-embedded."""
        tenants = self.tenants()
        model = current_model(self.models)
        size = self.config.batch_size
        stale = await self.graph.read(claim_cypher.stale_embeddings, sorted(tenants) if tenants is not None else None,
                                      model, size * BATCHES_PER_ROUND)
        by_tenant: dict[str, list[str]] = {}
        for item in stale:
            by_tenant.setdefault(item.tenant_id, []).append(item.document_id)
        done = 0
        for tenant_id, ids in by_tenant.items():
            for start in range(0, len(ids), size):
                if self.enrichment_waits():
                    return done
                async with self.slots:
                    claim = claim_cypher.claim_token(self.config.worker_id)
                    claimed = await self.graph.write(claim_cypher.claim_stale_embeddings, tenant_id,
                                                     ids[start:start + size], claim, model,
                                                     self.config.lease_seconds)
                    if claimed:
                        await self.reembed(tenant_id, claim, claimed)
                        done += len(claimed)
        return done + await self._other_kinds(tenants)

    async def _other_kinds(self, tenants: frozenset[str] | None) -> int:
        """Notes', chunks' and topics' vectors of another model, a batch at a time while no enrichment waits, through
        the same step as `vaultgraph reembed` (its replace holds against a save that re-indexes the item meanwhile).
        Documents' own vectors are left to the claims above, which keep out of an enrichment run's way."""
        if self.reembedder is None:
            return 0
        skip: list[str] = []
        done = 0
        for _ in range(BATCHES_PER_ROUND):
            if self.enrichment_waits():
                break
            async with self.slots:
                step = await self.reembedder.step(sorted(tenants) if tenants is not None else None, skip,
                                                  self.config.batch_size * BATCH_WIDTH, leave=frozenset({"document"}))
            if step.error is not None:
                log.warning("background re-embedding stopped", error=step.error[:300])
                break
            if not step.read:
                break
            done += sum(step.reembedded.values())
        return done

    async def reembed(self, tenant: str, claim: str, claimed: list[claim_cypher.Claimed]) -> None:
        """Replace the vectors of finished documents made with another model; their stage stays DONE (and their
        old vector serves) until the new one is written. The claims are given back either way."""
        ids = [c.document.id for c in claimed]
        try:
            model = current_model(self.models)
            texts = [embedding_text(c.document.title, c.document.path, c.document.summary) for c in claimed]
            vectors = await self.models.embed(texts)
            rows = [{"id": c.document.id, "vector": vector, "category": None}
                    for c, vector in zip(claimed, vectors, strict=True)]
            await self.graph.write(stage_cypher.save_embeddings, tenant, claim, model, rows)
        finally:
            await self.graph.write(claim_cypher.release, tenant, ids, claim)
