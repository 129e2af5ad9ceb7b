"""Phase 1: summaries (and the category pick) for a batch, five documents to one chat call.

A malformed answer retries the batch once; documents still without a summary are then asked for one at a time,
and a document whose own answer is malformed fails this attempt with the reason (the pool retries it later). A
model that is down raises, and the whole batch fails this attempt. With no chat model: an extractive summary.
"""

from __future__ import annotations

import structlog

from vaultgraph.models import ModelClient, ModelRequestRejected, ModelResponseInvalid
from vaultgraph.services.taxonomy import Taxonomy
from vaultgraph.workers.extractive import extractive_summary
from vaultgraph.workers.jobs import Job
from vaultgraph.workers.prompts import InvalidAnswer, SummaryInput, SummaryItem, parse_summaries, summarize_prompt

log = structlog.get_logger(__name__)

SUMMARY_TEMPERATURE = 0.2
SUMMARY_MAX_TOKENS = 1536
MALFORMED_BATCH_RETRIES = 1  # then one call per document

_Recoverable = (ModelResponseInvalid, ModelRequestRejected, InvalidAnswer)


def _input(job: Job) -> SummaryInput:
    return SummaryInput(title=job.document.title, path=job.document.path, text=job.content or "")


class Summarizer:
    def __init__(self, models: ModelClient) -> None:
        self.models = models

    async def summarize(self, jobs: list[Job], taxonomy: Taxonomy) -> None:
        """Set `summary` (and `category` when the model picked one) on each job, or fail it."""
        if not self.models.chat_available:
            for job in jobs:
                job.summary = extractive_summary(job.content or "") or job.document.title
            return
        found, problem = await self._batch(jobs, taxonomy)
        for index, job in enumerate(jobs, start=1):
            item = found.get(index)
            if item is None and len(jobs) > 1:
                item, problem = await self._single(job, taxonomy)
            if item is None:
                job.fail(f"the chat model gave no usable summary: {problem}", retryable=True)
                continue
            job.summary = item.summary
            job.category = taxonomy.pick(item.category)

    async def _ask(self, jobs: list[Job], taxonomy: Taxonomy) -> dict[int, SummaryItem]:
        system, user = summarize_prompt([_input(job) for job in jobs], taxonomy.choosable())
        answer = await self.models.chat_json(system, user, temperature=SUMMARY_TEMPERATURE,
                                             max_tokens=SUMMARY_MAX_TOKENS)
        return parse_summaries(answer, len(jobs))

    async def _batch(self, jobs: list[Job], taxonomy: Taxonomy) -> tuple[dict[int, SummaryItem], str]:
        problem = "no answer"
        for try_number in range(1 + MALFORMED_BATCH_RETRIES):
            try:
                found = await self._ask(jobs, taxonomy)
            except _Recoverable as exc:
                problem = str(exc)
                log.info("summary batch answer unusable", documents=[job.id for job in jobs], try_number=try_number,
                         reason=exc.__class__.__name__)
                continue
            if len(found) == len(jobs) or try_number == MALFORMED_BATCH_RETRIES:
                return found, f"the answer covered {len(found)} of {len(jobs)} documents"
            problem = f"the answer covered {len(found)} of {len(jobs)} documents"
        return {}, problem

    async def _single(self, job: Job, taxonomy: Taxonomy) -> tuple[SummaryItem | None, str]:
        try:
            found = await self._ask([job], taxonomy)
        except _Recoverable as exc:
            return None, str(exc)
        return found.get(1), "the answer held no summary for the document"
