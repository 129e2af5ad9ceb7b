"""One document's run through the pipeline: what the phases produced so far, and how it ended."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from vaultgraph.domain import Document
from vaultgraph.graph.enrichment_claims import Claimed


class Outcome(enum.Enum):
    DONE = "done"
    SKIPPED = "skipped"  # not enrichable (empty, binary, too large): final, with the reason
    FAILED = "failed"  # this attempt failed; the pool retries when `retryable`, else records FAILED
    LOST = "lost"  # the claim was taken away (lease expired or re-enrichment asked): write nothing more


@dataclass(frozen=True, slots=True)
class Result:
    outcome: Outcome
    reason: str | None = None
    retryable: bool = False


@dataclass
class Job:
    claimed: Claimed
    attempt: int
    content: str | None = None
    content_hash: str | None = None
    summary: str | None = None
    category: str | None = None
    vector: list[float] | None = None
    detail: str | None = None
    result: Result | None = None
    # (content hash, summary) persisted by an earlier run or attempt: a retry does not summarize again
    saved_summary: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.saved_summary is None and self.claimed.summary_hash and self.claimed.document.summary:
            self.saved_summary = (self.claimed.summary_hash, self.claimed.document.summary)

    @property
    def document(self) -> Document:
        return self.claimed.document

    @property
    def id(self) -> str:
        return self.claimed.document.id

    @property
    def claim(self) -> str:
        """The token of the claim this run holds (graph/enrichment_claims.py); its writes present it."""
        return self.claimed.claim

    @property
    def active(self) -> bool:
        return self.result is None

    def fail(self, reason: str, *, retryable: bool) -> None:
        if self.result is None:
            self.result = Result(Outcome.FAILED, reason, retryable)

    def skip(self, reason: str) -> None:
        if self.result is None:
            self.result = Result(Outcome.SKIPPED, reason)

    def lose(self) -> None:
        if self.result is None:
            self.result = Result(Outcome.LOST)

    def for_retry(self) -> Job:
        """A fresh run of the same claim: phases already persisted are skipped by what the claim records."""
        return Job(claimed=self.claimed, attempt=self.attempt + 1, saved_summary=self.saved_summary)


def active(jobs: list[Job]) -> list[Job]:
    return [job for job in jobs if job.active]


def claim_of(jobs: list[Job]) -> str:
    """The one claim a batch's jobs run under (one claim statement took them all)."""
    claims = {job.claim for job in jobs}
    if len(claims) != 1:
        raise ValueError(f"a batch runs under one claim, these jobs hold {len(claims)}")
    return claims.pop()
