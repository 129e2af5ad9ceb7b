"""Phase 3: semantic links. Candidates come from the vector index (cosine at least 0.7, same tenant, owners the
document may link to); the chat model names the relation or SKIP. Edges get `origin: agent` and the cosine as
their confidence, and are marked so that the next run replaces them and leaves every other edge alone."""

from __future__ import annotations

import uuid
from typing import Any

from vaultgraph.graph import enrichment_stages as stage_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.models import ModelClient, ModelResponseInvalid
from vaultgraph.services.wikilink_sync import target_owners
from vaultgraph.text.resolve import document_key
from vaultgraph.workers.jobs import Job
from vaultgraph.workers.prompts import (
    SKIP,
    InvalidAnswer,
    LinkCandidate,
    SummaryInput,
    classify_prompt,
    parse_link_choices,
)

CLASSIFY_MIN_COSINE = 0.7
CLASSIFY_CANDIDATES = 5
CLASSIFY_TEMPERATURE = 0.1
CLASSIFY_MAX_TOKENS = 512
MALFORMED_RETRIES = 1
NO_CHAT_DETAIL = "link classification skipped: no chat model is configured"


class LinkClassifier:
    def __init__(self, graph: Graph, models: ModelClient) -> None:
        self.graph = graph
        self.models = models

    async def links_for(self, tenant: str, job: Job) -> list[dict[str, Any]]:
        """Edge rows for `replace_classified_links`; raises ModelError when the model is down or keeps
        answering garbage (the document then fails this attempt)."""
        document = job.document
        assert job.vector is not None  # the embed phase ran before this one
        similar = await self.graph.read(stage_cypher.similar_documents, tenant, document.id, job.vector,
                                        target_owners(document), CLASSIFY_MIN_COSINE, CLASSIFY_CANDIDATES,
                                        self.models.embedding_model_name)
        if not similar:
            return []
        candidates = [LinkCandidate(s.title, s.path, s.summary, s.cosine) for s in similar]
        source = SummaryInput(document.title, document.path, job.content or "")
        system, user = classify_prompt(source, job.summary or "", candidates)
        choices = await self._ask(system, user, len(candidates))
        rows = []
        for index, kind in sorted(choices.items()):
            if kind == SKIP:
                continue
            target = similar[index - 1]
            props = {
                "id": f"lnk_{uuid.uuid4().hex}", "ref": target.path, "key": document_key(target.path),
                "origin": "agent", "confidence": target.cosine, "classifiedBy": stage_cypher.CLASSIFIED_BY,
            }
            rows.append({"targetId": target.document_id, "type": kind, "props": props})
        return rows

    async def _ask(self, system: str, user: str, count: int) -> dict[int, str]:
        last: Exception | None = None
        for _ in range(1 + MALFORMED_RETRIES):
            try:
                answer = await self.models.chat_json(system, user, temperature=CLASSIFY_TEMPERATURE,
                                                     max_tokens=CLASSIFY_MAX_TOKENS)
                return parse_link_choices(answer, count)
            except (ModelResponseInvalid, InvalidAnswer) as exc:
                last = exc
        raise ModelResponseInvalid(
            f"the chat model's link classification was unusable twice: {last}", operation="chat",
            model=self.models.chat_model_name or "", retryable=True,
        )

