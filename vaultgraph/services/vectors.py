"""Re-embedding: when the configured embedding model changes, every vector another model made is made again.

Search ignores such vectors from the moment the model changes (graph/vectors.py's `from_model`), so until they are
re-embedded those items are found by keywords only. `Reembedder.run` takes them a batch at a time (one embedding
call and one write transaction per batch), so a run that stops (Ctrl-C, the model away) loses at most one batch and
the next run carries on with what is still stale. `vaultgraph reembed` runs it, and the enrichment workers' re-embedding
lane (workers/reembed.py) takes the same `step` in the background; a starting process logs `check_models`'s warning
when there is work for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from vaultgraph.graph import vectors as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.graph.vectors import VectorModel
from vaultgraph.models.client import ModelClient
from vaultgraph.services.indexing import chunk_input, content_hash, current_model, document_text, note_text
from vaultgraph.text.chunking import ChunkingPolicy

log = structlog.get_logger(__name__)

DEFAULT_BATCH = 64
KINDS = ("note", "document", "chunk", "topic")


@dataclass
class ReembedReport:
    model: VectorModel
    reembedded: Counter[str] = field(default_factory=Counter)  # by kind
    skipped: int = 0  # changed while being re-embedded (re-indexed by their own save) or gone
    left: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, old model) -> still stale at the end
    error: str | None = None  # why the run stopped early (the model failed)


@dataclass
class ReembedStep:
    read: int = 0  # stale vectors read (0: none left to read), those of the kinds left alone included
    reembedded: Counter[str] = field(default_factory=Counter)  # replaced, by kind
    error: str | None = None  # the model failed: nothing was written


Progress = Callable[[int, int, str], None]


def _text(row: dict[str, Any]) -> str:
    kind = row["kind"]
    if kind == "note":
        return note_text(row["title"], row["body"] or "")
    if kind in ("chunk", "topic"):  # a topic's vector reads what a chunk's does (workers/topics.py)
        return chunk_input(row["title"], row["heading"], row["text"] or "")
    return document_text(row["title"], row["path"] or "", row["summary"])


class Reembedder:
    def __init__(self, graph: Graph, models: ModelClient, policy: ChunkingPolicy) -> None:
        self.graph = graph
        self.models = models
        self.policy = policy

    @property
    def model(self) -> VectorModel:
        return current_model(self.models)

    async def pending(self, tenants: list[str] | None = None, cap: int | None = None) -> dict[tuple[str, str], int]:
        """(kind, "old-model/dimensions") -> vectors to re-embed, of these tenants or of all (None); `cap` counts
        no further than that many."""
        return await self.graph.read(cypher.stale_counts, self.model, tenants, cap)

    def _hash(self, row: dict[str, Any], text: str) -> str | None:
        # The indexer's reuse key for a note's vector and a chunk's; a document's own vector and a topic's have none
        # (a topic is written whole by each enrichment, never reused).
        return None if row["kind"] in ("document", "topic") else content_hash(self.model.name, self.policy, text)

    async def run(self, tenants: list[str] | None = None, batch: int = DEFAULT_BATCH,
                  progress: Progress | None = None) -> ReembedReport:
        """Re-embed every stale vector (of these tenants, or all); progress(done, total, counts) after each batch."""
        report = ReembedReport(self.model)
        total = sum((await self.pending(tenants)).values())
        skip: list[str] = []
        done = 0
        while True:
            step = await self.step(tenants, skip, batch)
            if step.error is not None:
                report.error = step.error
                log.warning("re-embedding stopped", error=step.error[:300], done=done)
                break
            if not step.read:
                break
            report.reembedded.update(step.reembedded)
            report.skipped = len(skip)
            done += step.read
            total = max(total, done)
            if progress is not None:
                progress(done, total, ", ".join(f"{n} {kind}s" for kind, n in sorted(report.reembedded.items())))
        report.left = await self.pending(tenants)
        return report

    async def step(self, tenants: list[str] | None, skip: list[str], batch: int,
                   leave: frozenset[str] = frozenset()) -> ReembedStep:
        """One batch: up to `batch` stale vectors read, embedded in one call and replaced in one transaction. What
        could not be replaced (changed meanwhile: its own save re-indexed it) and the kinds in `leave` go into `skip`,
        so the next step reads further."""
        model = self.model
        read = await self.graph.read(cypher.stale, model, tenants, skip, batch)
        skip += [row["id"] for row in read if row["kind"] in leave]
        rows = [row for row in read if row["kind"] not in leave]
        if not rows:
            return ReembedStep(read=len(read))
        texts = [_text(row) for row in rows]
        try:
            vectors = await self.models.embed(texts)
        except Exception as exc:  # the model is away: stop here, the next run goes on from what is left
            return ReembedStep(error=getattr(exc, "message", None) or f"{exc.__class__.__name__}: {exc}")
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for row, text, vector in zip(rows, texts, vectors, strict=True):
            by_kind.setdefault(row["kind"], []).append(
                {"tenant": row["tenant"], "id": row["id"], "was": row["was"], "hash": self._hash(row, text),
                 "embedding": vector})
        replaced = await self.graph.write(self._replace, model, by_kind)
        step = ReembedStep(read=len(read))
        for kind, kind_rows in by_kind.items():
            step.reembedded[kind] += sum(1 for r in kind_rows if r["id"] in replaced[kind])
            skip += [r["id"] for r in kind_rows if r["id"] not in replaced[kind]]
        return step

    @staticmethod
    async def _replace(tx: Any, model: VectorModel, by_kind: dict[str, list[dict[str, Any]]]) -> dict[str, set[str]]:
        return {kind: await cypher.replace(tx, kind, model, rows) for kind, rows in by_kind.items()}


# The startup check counts no further: it runs in every process that starts, and only says that there is work.
CHECK_CAP = 1000


async def check_models(reembedder: Reembedder, tenants: list[str] | None = None) -> int:
    """Log one warning when stored vectors (of these tenants, or all) come from another embedding model; returns
    how many do (at most CHECK_CAP: `vaultgraph reembed --dry-run` counts them all)."""
    pending = await reembedder.pending(tenants, cap=CHECK_CAP)
    count = sum(pending.values())
    if count:
        log.warning("stored vectors from another embedding model: search ignores them until they are re-embedded "
                    "(by the enrichment workers in the background, or at once by `vaultgraph reembed`)",
                    count=f"{count}+" if count >= CHECK_CAP else count,
                    current=f"{reembedder.model.name}/{reembedder.model.dimensions}",
                    previous=sorted({name for _, name in pending}))
    return count
