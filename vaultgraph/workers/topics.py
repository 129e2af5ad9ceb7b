"""Topics for a batch of documents, in the embed phase: split (text/topics.py), embedded through the one vector
rule, and written in place of the document's old topics in one transaction per document, only while this worker
holds the document's claim.

A Markdown text is split by its headings (by length where it has none); another kind of text by length.
"""

from __future__ import annotations

import hashlib

import structlog
from neo4j import AsyncManagedTransaction

from vaultgraph.errors import AppError
from vaultgraph.graph import enrichment_claims as claim_cypher
from vaultgraph.graph import topics as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.graph.vectors import VectorModel
from vaultgraph.models import ModelClient
from vaultgraph.services.indexing import chunk_input, current_model
from vaultgraph.text.topics import PATH_SEPARATOR, TopicDraft, number, split_topics
from vaultgraph.workers.jobs import Job, active

log = structlog.get_logger(__name__)

HEADED_DOC_TYPES = frozenset({"markdown"})


def drafts_for(job: Job) -> list[TopicDraft]:
    """The topics of the job's text by its headings (Markdown) or by length (any other text)."""
    text, title = job.content or "", job.document.title
    if job.document.doc_type in HEADED_DOC_TYPES:
        return split_topics(text, title)
    return number(title, [((), text)])


def _heading(draft: TopicDraft) -> str | None:
    return PATH_SEPARATOR.join(draft.path[1:]) or None


def embedding_input(title: str, draft: TopicDraft) -> str:
    """What a topic's vector reads: the document's title and the topic's heading path travel with its content,
    as with a chunk's."""
    return chunk_input(title, _heading(draft), draft.content)


def _rows(drafts: list[TopicDraft], texts: list[str], vectors: list[list[float]], model: VectorModel
          ) -> list[dict[str, object]]:
    return [{"position": d.position, "name": d.name, "path": list(d.path), "depth": d.depth, "heading": _heading(d),
             "content": d.content, "labels": list(d.labels), "parent": d.parent,
             "hash": hashlib.sha256(f"{model.name}\x00{text}".encode()).hexdigest(), "embedding": vector}
            for d, text, vector in zip(drafts, texts, vectors, strict=True)]


class TopicIndexer:
    def __init__(self, graph: Graph, models: ModelClient, worker_id: str) -> None:
        self.graph = graph
        self.models = models
        self.worker_id = worker_id

    async def index(self, tenant: str, jobs: list[Job]) -> None:
        """Replace each job's topics; one embedding call for the batch. A document's failure fails it alone."""
        jobs = active(jobs)
        plans = [(job, drafts_for(job)) for job in jobs]
        texts = [[embedding_input(job.document.title, d) for d in drafts] for job, drafts in plans]
        flat = [text for job_texts in texts for text in job_texts]
        model = current_model(self.models)
        vectors = await self.models.embed(flat) if flat else []
        at = 0
        for (job, drafts), job_texts in zip(plans, texts, strict=True):
            rows = _rows(drafts, job_texts, vectors[at : at + len(drafts)], model)
            at += len(drafts)
            try:
                if not await self.graph.write(self._replace_tx, tenant, job.id, rows, model):
                    job.lose()
            except Exception as exc:  # this document's failure stays this document's
                if not isinstance(exc, AppError | OSError):
                    log.error("topic indexing crashed", document=job.id, exc_info=exc)
                job.fail(f"topics: {exc.__class__.__name__}: {exc}", retryable=True)

    async def _replace_tx(self, tx: AsyncManagedTransaction, tenant: str, id: str, rows: list[dict[str, object]],
                          model: VectorModel) -> bool:
        if await claim_cypher.held_document(tx, tenant, id, self.worker_id) is None:
            return False
        await cypher.replace_topics(tx, tenant, id, rows, model)
        return True
