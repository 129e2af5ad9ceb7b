"""Keeping an item searchable: its own vector, and for a long body `Chunk` nodes with text and vectors.

Notes come through `index_note`, the save pipeline's indexer hook; documents through `index_document`, which the
enrichment pipeline calls with the file's text. Work is skipped by content hash: an unchanged item embeds nothing,
and a changed long body re-embeds only the chunks whose text changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import structlog
from neo4j import AsyncManagedTransaction

from vaultgraph.config import Settings
from vaultgraph.domain import Document, Item, Note, Principal
from vaultgraph.graph import chunks as cypher
from vaultgraph.graph.chunks import IndexState
from vaultgraph.graph.session import Graph
from vaultgraph.graph.vectors import VectorModel
from vaultgraph.models.client import ModelClient
from vaultgraph.text.chunking import ChunkingPolicy, TextChunk, chunk_text
from vaultgraph.text.frontmatter import find_frontmatter

log = structlog.get_logger(__name__)


def current_model(models: ModelClient) -> VectorModel:
    """The model the vectors written now come from: every vector writer and reader asks this."""
    return VectorModel(models.embedding_model_name, models.embedding_dimensions)

# What a document's own vector reads besides its title and path when enrichment has written no summary yet.
DOCUMENT_LEAD_CHARS = 2000
# A note body that fits in one chunk is searched through the note itself (its body is in the full-text index and
# its vector reads it); a document's text is not on its node, so even a short one gets its one chunk.
MIN_NOTE_CHUNKS = 2
MIN_DOCUMENT_CHUNKS = 1


@dataclass(frozen=True, slots=True)
class IndexReport:
    indexed: bool
    chunks: int = 0
    embedded: int = 0  # vectors computed by this call (item and chunks); 0 when nothing changed
    error: str | None = None


def content_hash(model: str, policy: ChunkingPolicy, text: str) -> str:
    """The key a vector is reused under: same model, same chunking, same text."""
    return hashlib.sha256(f"{model}\x00{policy.key}\x00{text}".encode()).hexdigest()


def strip_frontmatter(body: str) -> str:
    span = find_frontmatter(body)
    return body[span.end :] if span else body


# What each vector reads, one home each: the indexer, the enrichment pipeline and re-embedding (services/vectors.py)
# build the same text from the same parts.
def note_text(title: str, body: str) -> str:
    return f"{title}\n\n{strip_frontmatter(body).strip()}"


def document_text(title: str, path: str, summary: str | None, content: str = "") -> str:
    """Title + path + summary (the design's input); the opening of the text while there is no summary."""
    tail = summary or content[:DOCUMENT_LEAD_CHARS]
    return f"{title}\n{path}\n\n{tail.strip()}"


def chunk_input(title: str, heading: str | None, text: str) -> str:
    """The title and heading path travel with each chunk: a section alone often does not say what it is about."""
    context = f"{title} — {heading}" if heading else title
    return f"{context}\n{text}"


def note_embedding_text(note: Note) -> str:
    return note_text(note.title, note.body)


def document_embedding_text(document: Document, content: str) -> str:
    return document_text(document.title, document.path, document.summary, content)


def chunk_embedding_text(title: str, chunk: TextChunk) -> str:
    return chunk_input(title, chunk.heading, chunk.text)


def chunking_policy(settings: Settings) -> ChunkingPolicy:
    return ChunkingPolicy(max_chars=settings.chunk_max_chars, overlap_chars=settings.chunk_overlap_chars)


@dataclass(frozen=True, slots=True)
class _Job:
    item: Item
    item_text: str | None  # what the item's own vector reads; None: leave the item's vector as it is
    body: str  # what its chunks are cut from
    min_chunks: int


@dataclass(frozen=True, slots=True)
class _Plan:
    """One item's share of a batch: its chunks, which texts it needs embedded, where they sit in the batch."""

    job: _Job
    state: IndexState
    pieces: list[TextChunk]
    chunk_hashes: list[str]
    item_hash: str | None
    new_item_vector: bool
    wanted: list[int]  # indexes into the batch's texts: the item's own text first if new, then missing chunks
    missing: list[int]  # chunk positions to embed


class Indexer:
    """Writes vectors and chunks for notes and documents. One per process; stateless between calls.

    Work goes in batches, one item being a batch of one: one read of what the index holds, one embedding call
    for every text that changed (the same text once), one write transaction."""

    def __init__(self, graph: Graph, models: ModelClient, policy: ChunkingPolicy | None = None) -> None:
        self.graph = graph
        self.models = models
        self.policy = policy or ChunkingPolicy()

    async def index_note(self, principal: Principal, note: Note) -> bool:
        """True when the note's vector (and chunks) are in place."""
        [indexed] = await self.index_notes(principal, [note])
        return indexed

    async def index_notes(self, principal: Principal, notes: Sequence[Note]) -> list[bool]:
        """The save pipeline's hook (notes of one tenant): for each note, True when its vector and chunks are in
        place. A failure (the model, the graph) leaves every note of the call saved and not indexed."""
        jobs = [_Job(n, note_embedding_text(n), strip_frontmatter(n.body), MIN_NOTE_CHUNKS) for n in notes]
        return [report.indexed for report in await self._guarded(jobs)]

    async def index_document(self, document: Document, content: str, item_vector: bool = False) -> IndexReport:
        """Index a document's text as chunks (enrichment calls this once the file is read; safe to call again).

        The document's own vector (title + path + summary) is the enrichment pipeline's, written in its batches;
        `item_vector=True` writes it here instead, for a caller without that pipeline.
        """
        text = document_embedding_text(document, content) if item_vector else None
        [report] = await self._guarded([_Job(document, text, content, MIN_DOCUMENT_CHUNKS)])
        return report

    async def _guarded(self, jobs: list[_Job]) -> list[IndexReport]:
        # Indexing must never fail a save: a model or graph error leaves the items saved and says indexed false.
        if not jobs:
            return []
        try:
            return await self._index(jobs)
        except Exception as exc:
            log.warning("indexing failed", item_id=jobs[0].item.id, items=len(jobs), tenant=jobs[0].item.tenant_id,
                        error=str(exc)[:300], exc_info=not hasattr(exc, "code"))
            return [IndexReport(indexed=False, error=str(exc)) for _ in jobs]

    def _plan(self, job: _Job, state: IndexState, model: str, texts: dict[str, int]) -> _Plan:
        """Which of the item's texts need a vector (by content hash); new texts join `texts` (text → index)."""
        pieces = chunk_text(job.body, self.policy)
        pieces = pieces if len(pieces) >= job.min_chunks else []
        item_text = job.item_text
        item_hash = content_hash(model, self.policy, item_text) if item_text is not None else state.item_hash
        chunk_inputs = [chunk_embedding_text(job.item.title, piece) for piece in pieces]
        chunk_hashes = [content_hash(model, self.policy, text) for text in chunk_inputs]
        reusable = {c.hash for c in state.chunks if c.hash and c.embedding is not None}
        new_item_vector = item_text is not None and state.item_hash != item_hash
        missing = [i for i, h in enumerate(chunk_hashes) if h not in reusable]
        needed = ([item_text] if item_text is not None and new_item_vector else []) + [chunk_inputs[i] for i in missing]
        wanted = [texts.setdefault(text, len(texts)) for text in needed]
        return _Plan(job, state, pieces, chunk_hashes, item_hash, new_item_vector, wanted, missing)

    async def _index(self, jobs: list[_Job]) -> list[IndexReport]:
        tenant = jobs[0].item.tenant_id
        if any(job.item.tenant_id != tenant for job in jobs):
            raise ValueError("one tenant per indexing call")
        model = current_model(self.models)
        states = await self.graph.read(cypher.index_states, tenant, [job.item.id for job in jobs], model)
        texts: dict[str, int] = {}
        plans = [self._plan(job, states[job.item.id], model.name, texts) if job.item.id in states else None
                 for job in jobs]
        vectors = await self.models.embed(list(texts)) if texts else []

        reports: list[IndexReport] = []
        embeddings: list[dict[str, object]] = []
        chunks: list[tuple[str, list[dict[str, object]]]] = []
        indexed_texts: list[dict[str, str]] = []
        for plan in plans:
            if plan is None:
                reports.append(IndexReport(indexed=False, error="the item no longer exists"))
                continue
            item = plan.job.item
            own = [vectors[i] for i in plan.wanted]
            fresh = iter(own[1:] if plan.new_item_vector else own)
            computed = {i: next(fresh) for i in plan.missing}
            reusable = {c.hash: c.embedding for c in plan.state.chunks if c.hash and c.embedding is not None}
            rows: list[dict[str, object]] = []
            for i, piece in enumerate(plan.pieces):
                rows.append({"ordinal": piece.ordinal, "heading": piece.heading, "text": piece.text,
                             "hash": plan.chunk_hashes[i],
                             "embedding": computed.get(i) or reusable.get(plan.chunk_hashes[i])})
            stored = [(c.hash, c.owner_key) for c in plan.state.chunks]
            if plan.new_item_vector or stored != [(h, item.owner.key) for h in plan.chunk_hashes]:
                if plan.new_item_vector:
                    embeddings.append({"id": item.id, "embedding": own[0], "hash": plan.item_hash or ""})
                chunks.append((item.id, rows))
                sha = item.body_sha256 if isinstance(item, Note) else item.content_hash
                if sha is not None:
                    indexed_texts.append({"id": item.id, "sha": sha})
            reports.append(IndexReport(indexed=True, chunks=len(rows), embedded=len(own)))
        if embeddings or chunks:
            await self.graph.write(self._write, tenant, embeddings, chunks, indexed_texts, model)
        return reports

    @staticmethod
    async def _write(
        tx: AsyncManagedTransaction, tenant: str, embeddings: list[dict[str, object]],
        chunks: list[tuple[str, list[dict[str, object]]]], indexed_texts: list[dict[str, str]], model: VectorModel,
    ) -> None:
        # An item whose text changed since it was read here gets the newer text's vectors from what wrote it (that
        # save, inline or through the workers' note lane; a new enrichment run of the file): these, of the older
        # text, are not written.
        if indexed_texts:
            current = await cypher.still_current(tx, tenant, indexed_texts)
            replaced = {text["id"] for text in indexed_texts} - current
            if replaced:
                log.info("vectors of a replaced text not written", tenant=tenant, item_ids=sorted(replaced))
                embeddings = [row for row in embeddings if row["id"] not in replaced]
                chunks = [(id, rows) for id, rows in chunks if id not in replaced]
        if embeddings:
            await cypher.set_item_embeddings(tx, tenant, embeddings, model)
        if chunks:
            await cypher.replace_chunks(tx, tenant, chunks, model)
