"""Topics for a batch of documents, in the embed phase: split, embedded through the one vector rule, and written in
place of the document's old topics in one transaction per document, only while this worker holds its claim.

With a chat model, the model says where the topics start (workers/prompts.py's `topics_prompt`, one call per
document, the batch's calls side by side) for a text of at most TOPIC_INPUT_CHARS; a reply that does not validate,
or a model that fails, falls back to the text's own way. That way (text/topics.py): a Markdown text by its headings
(by length where it has none) and so is a file converted to Markdown (a PDF, DOCX…), another kind of text by length.
"""

from __future__ import annotations

import asyncio
import hashlib

import structlog
from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Document
from vaultgraph.errors import AppError
from vaultgraph.graph import chunks as chunk_cypher
from vaultgraph.graph import enrichment_claims as claim_cypher
from vaultgraph.graph import topics as topic_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.graph.vectors import VectorModel
from vaultgraph.models import ModelClient, ModelError
from vaultgraph.services.indexing import chunk_input, current_model
from vaultgraph.text.topics import (
    PATH_SEPARATOR,
    Section,
    Start,
    TopicDraft,
    body_lines,
    from_starts,
    number,
    passage_key,
    split_topics,
)
from vaultgraph.workers.jobs import Job, active
from vaultgraph.workers.prompts import TOPIC_INPUT_CHARS, InvalidAnswer, parse_topics, topics_prompt
from vaultgraph.workspace.convert import converts
from vaultgraph.workspace.formats import is_converted_name, suffix_of

log = structlog.get_logger(__name__)

HEADED_DOC_TYPES = frozenset({"markdown"})
TOPIC_TEMPERATURE = 0.1
TOPIC_MAX_TOKENS = 2048


def is_markdown(document: Document) -> bool:
    """Whether the text enrichment reads is Markdown: a Markdown document's, or one converted to Markdown (a PDF,
    DOCX, PPTX or XLSX file, and HTML with the formats extra)."""
    path = document.path
    return document.doc_type in HEADED_DOC_TYPES or is_converted_name(path) or converts(suffix_of(path))


def drafts_for(job: Job) -> list[TopicDraft]:
    """The topics of the job's text by its headings (Markdown) or by length (any other text)."""
    text, title = job.content or "", job.document.title
    if is_markdown(job.document):
        return split_topics(text, title)
    return number(title, [Section((), text)])


def _heading(draft: TopicDraft) -> str | None:
    return PATH_SEPARATOR.join(draft.path[1:]) or None


def embedding_input(title: str, draft: TopicDraft) -> str:
    """What a topic's vector reads: the document's title and the topic's heading path travel with its content,
    as with a chunk's."""
    return chunk_input(title, _heading(draft), draft.content)


def text_hash(model: VectorModel, text: str) -> str:
    """The key a topic's vector is reused under: same model, same text."""
    return hashlib.sha256(f"{model.name}\x00{text}".encode()).hexdigest()


def _rows(drafts: list[TopicDraft], hashes: list[str], vectors: list[list[float]]) -> list[dict[str, object]]:
    return [{"position": d.position, "name": d.name, "path": list(d.path), "depth": d.depth, "heading": _heading(d),
             "content": d.content, "labels": list(d.labels), "parent": d.parent, "hash": digest, "embedding": vector}
            for d, digest, vector in zip(drafts, hashes, vectors, strict=True)]


class TopicIndexer:
    def __init__(self, graph: Graph, models: ModelClient) -> None:
        self.graph = graph
        self.models = models

    async def index(self, tenant: str, jobs: list[Job]) -> None:
        """Replace each job's topics. A vector comes from the topic's old self when its text is unchanged, else from
        the search chunk of the same section and words (text/topics.py's `passage_key`), else from one embedding
        call for the batch. A document's failure fails it alone."""
        jobs = active(jobs)
        plans = list(zip(jobs, await asyncio.gather(*(self.drafts(job) for job in jobs)), strict=True))
        model = current_model(self.models)
        inputs = [[embedding_input(job.document.title, d) for d in drafts] for job, drafts in plans]
        hashes = [[text_hash(model, text) for text in job_inputs] for job_inputs in inputs]
        vectors = await self._reusable(tenant, plans, hashes, model)
        missing = {h: text for job_inputs, job_hashes in zip(inputs, hashes, strict=True)
                   for text, h in zip(job_inputs, job_hashes, strict=True) if h not in vectors}
        if missing:
            vectors |= dict(zip(missing, await self.models.embed(list(missing.values())), strict=True))
        for (job, drafts), job_hashes in zip(plans, hashes, strict=True):
            rows = _rows(drafts, job_hashes, [vectors[h] for h in job_hashes])
            try:
                if not await self.graph.write(self._replace_tx, tenant, job.id, job.claim, rows, model):
                    job.lose()
            except Exception as exc:  # this document's failure stays this document's
                if not isinstance(exc, AppError | OSError):
                    log.error("topic indexing crashed", document=job.id, exc_info=exc)
                job.fail(f"topics: {exc.__class__.__name__}: {exc}", retryable=True)

    async def _reusable(self, tenant: str, plans: list[tuple[Job, list[TopicDraft]]], hashes: list[list[str]],
                        model: VectorModel) -> dict[str, list[float]]:
        """Vectors by topic text hash that need no embedding: the stored topics', then the matching chunks'."""
        wanted = list({h for job_hashes in hashes for h in job_hashes})
        if not wanted:
            return {}
        ids = [job.id for job, _ in plans]
        vectors = await self.graph.read(topic_cypher.stored_vectors, tenant, ids, wanted, model)
        chunks = await self.graph.read(chunk_cypher.chunk_vectors, tenant, ids, model)
        shared = {(id, passage_key(heading, text)): vector for id, rows in chunks.items()
                  for heading, text, vector in rows}
        for (job, drafts), job_hashes in zip(plans, hashes, strict=True):
            for draft, h in zip(drafts, job_hashes, strict=True):
                if h in vectors:
                    continue
                vector = shared.get((job.id, passage_key(_heading(draft), draft.content)))
                if vector is not None:
                    vectors[h] = vector
        return vectors

    async def drafts(self, job: Job) -> list[TopicDraft]:
        """The model's topics for the job's text when a chat model is configured and the text fits its prompt;
        else, or when its reply is no use, the text's own (`drafts_for`)."""
        text = job.content or ""
        if not self.models.chat_available or not text.strip() or len(text) > TOPIC_INPUT_CHARS:
            return drafts_for(job)
        lines = body_lines(text)
        system, user = topics_prompt(job.document.title, lines)
        try:
            answer = await self.models.chat_json(system, user, temperature=TOPIC_TEMPERATURE,
                                                 max_tokens=TOPIC_MAX_TOKENS)
            starts = parse_topics(answer, len(lines))
        except (ModelError, InvalidAnswer) as exc:
            log.info("topics by the model unusable, split by the text instead", document=job.id,
                     reason=exc.__class__.__name__)
            return drafts_for(job)
        return from_starts(lines, [Start(s.line, s.name, s.depth, tuple(s.labels)) for s in starts],
                           job.document.title)

    async def _replace_tx(self, tx: AsyncManagedTransaction, tenant: str, id: str, claim: str,
                          rows: list[dict[str, object]], model: VectorModel) -> bool:
        if await claim_cypher.held_document(tx, tenant, id, claim) is None:
            return False
        await topic_cypher.replace_topics(tx, tenant, id, rows, model)
        return True
