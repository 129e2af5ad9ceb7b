"""Keeping an item searchable: its own vector, and for a long body `Chunk` nodes with text and vectors.

Notes come through `index_note`, the save pipeline's indexer hook; documents through `index_document`, which the
enrichment pipeline calls with the file's text. Work is skipped by content hash: an unchanged item embeds nothing,
and a changed long body re-embeds only the chunks whose text changed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import structlog
from neo4j import AsyncManagedTransaction

from vaultgraph.config import Settings
from vaultgraph.domain import Document, Item, Note, Principal
from vaultgraph.graph import chunks as cypher
from vaultgraph.graph.migrations import embedded_label
from vaultgraph.graph.session import Graph
from vaultgraph.models.client import ModelClient
from vaultgraph.text.chunking import ChunkingPolicy, TextChunk, chunk_text
from vaultgraph.text.frontmatter import find_frontmatter

log = structlog.get_logger(__name__)

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


def note_embedding_text(note: Note) -> str:
    return f"{note.title}\n\n{strip_frontmatter(note.body).strip()}"


def document_embedding_text(document: Document, content: str) -> str:
    """Title + path + summary (the design's input); the opening of the text while there is no summary."""
    tail = document.summary or content[:DOCUMENT_LEAD_CHARS]
    return f"{document.title}\n{document.path}\n\n{tail.strip()}"


def chunk_embedding_text(title: str, chunk: TextChunk) -> str:
    """The title and heading path travel with each chunk: a section alone often does not say what it is about."""
    context = f"{title} — {chunk.heading}" if chunk.heading else title
    return f"{context}\n{chunk.text}"


def chunking_policy(settings: Settings) -> ChunkingPolicy:
    return ChunkingPolicy(max_chars=settings.chunk_max_chars, overlap_chars=settings.chunk_overlap_chars)


class Indexer:
    """Writes vectors and chunks for notes and documents. One per process; stateless between calls."""

    def __init__(self, graph: Graph, models: ModelClient, policy: ChunkingPolicy | None = None) -> None:
        self.graph = graph
        self.models = models
        self.policy = policy or ChunkingPolicy()

    async def index_note(self, principal: Principal, note: Note) -> bool:
        """The save pipeline's hook: True when the note's vector (and chunks) are in place."""
        report = await self._guarded(note, note_embedding_text(note), strip_frontmatter(note.body), MIN_NOTE_CHUNKS)
        return report.indexed

    async def index_document(self, document: Document, content: str, item_vector: bool = False) -> IndexReport:
        """Index a document's text as chunks (enrichment calls this once the file is read; safe to call again).

        The document's own vector (title + path + summary) is the enrichment pipeline's, written in its batches;
        `item_vector=True` writes it here instead, for a caller without that pipeline.
        """
        text = document_embedding_text(document, content) if item_vector else None
        return await self._guarded(document, text, content, MIN_DOCUMENT_CHUNKS)

    async def _guarded(self, item: Item, item_text: str | None, body: str, min_chunks: int) -> IndexReport:
        # Indexing must never fail a save: a model or graph error leaves the item saved and says indexed false.
        try:
            return await self._index(item, item_text, body, min_chunks)
        except Exception as exc:
            log.warning("indexing failed", item_id=item.id, tenant=item.tenant_id, error=str(exc)[:300],
                        exc_info=not hasattr(exc, "code"))
            return IndexReport(indexed=False, error=str(exc))

    async def _index(self, item: Item, item_text: str | None, body: str, min_chunks: int) -> IndexReport:
        model = self.models.embedding_model_name
        label = embedded_label(self.models.embedding_dimensions)
        state = await self.graph.read(cypher.index_state, item.tenant_id, item.id)
        if state is None:
            return IndexReport(indexed=False, error="the item no longer exists")
        pieces = chunk_text(body, self.policy)
        pieces = pieces if len(pieces) >= min_chunks else []
        item_hash = content_hash(model, self.policy, item_text) if item_text is not None else state.item_hash
        chunk_inputs = [chunk_embedding_text(item.title, piece) for piece in pieces]
        chunk_hashes = [content_hash(model, self.policy, text) for text in chunk_inputs]
        reusable = {c.hash: c.embedding for c in state.chunks if c.hash and c.embedding is not None}

        wanted: list[str] = []
        new_item_vector = item_text is not None and state.item_hash != item_hash
        if item_text is not None and new_item_vector:
            wanted.append(item_text)
        missing = [i for i, h in enumerate(chunk_hashes) if h not in reusable]
        wanted.extend(chunk_inputs[i] for i in missing)
        vectors = await self.models.embed(wanted) if wanted else []

        rows = []
        fresh = iter(vectors[1:] if new_item_vector else vectors)
        computed = {i: next(fresh) for i in missing}
        for i, piece in enumerate(pieces):
            rows.append({"ordinal": piece.ordinal, "heading": piece.heading, "text": piece.text,
                         "hash": chunk_hashes[i], "embedding": computed.get(i) or reusable.get(chunk_hashes[i])})
        stored = [(c.hash, c.owner_key) for c in state.chunks]
        if new_item_vector or stored != [(h, item.owner.key) for h in chunk_hashes]:
            item_vector = vectors[0] if new_item_vector else None
            await self.graph.write(self._write, item, rows, item_vector, label, model, item_hash or "")
        return IndexReport(indexed=True, chunks=len(rows), embedded=len(vectors))

    @staticmethod
    async def _write(
        tx: AsyncManagedTransaction, item: Item, rows: list[dict[str, object]], item_vector: list[float] | None,
        label: str, model: str, item_hash: str,
    ) -> None:
        if item_vector is not None:
            await cypher.set_item_embedding(tx, item.tenant_id, item.id, item_vector, label, model, item_hash)
        await cypher.replace_chunks(tx, item.tenant_id, item.id, rows, label, model)
