"""GraphQL types of enrichment: progress counts and the stage events subscriptions stream."""

from __future__ import annotations

from datetime import datetime

import strawberry

from vaultgraph import domain
from vaultgraph.events.bus import DocumentStageChanged
from vaultgraph.schema import types  # noqa: F401 (registers the EnrichmentStage enum with strawberry)
from vaultgraph.schema.types.workspace import WorkspaceScan
from vaultgraph.services.enrichment import Progress


@strawberry.type(description=(
    "Documents of the caller's tenant (in the scopes it sees) per enrichment state, and its notes' deferred indexing."))
class EnrichmentProgress:
    queued: int = strawberry.field(description="Waiting for a worker.")
    running: int = strawberry.field(description="In one of the phases PREPARE … WIKILINKS.")
    done: int = strawberry.field(description="Enriched.")
    failed: int = strawberry.field(description="Gave up after retries (`reenrich` tries again).")
    skipped: int = strawberry.field(description="Cannot be enriched (empty, over 4 MB, not UTF-8 text).")
    total: int = strawberry.field(description="All documents counted, whatever their state.")
    scan: WorkspaceScan | None = strawberry.field(
        default=None, description="The latest progress of a workspace scan (rescanWorkspace) while one runs; "
                                  "only on the subscription.")
    notes_pending: int = strawberry.field(default=0, description=(
        "Notes saved without waiting for their vectors (importVault, `deferIndexing`) that the workers have not "
        "embedded yet: keyword search finds them meanwhile; counts down to 0 as the workers' batches land."))
    notes_indexed: int = strawberry.field(default=0, description="Notes whose vector and chunks are in place.")

    @classmethod
    def from_domain(cls, progress: Progress) -> EnrichmentProgress:
        return cls(queued=progress.queued, running=progress.running, done=progress.done, failed=progress.failed,
                   skipped=progress.skipped, total=progress.total,
                   scan=WorkspaceScan.from_event(progress.scan) if progress.scan else None,
                   notes_pending=progress.notes_pending, notes_indexed=progress.notes_indexed)


@strawberry.type(description="A document entered an enrichment stage.")
class EnrichmentEvent:
    document_id: strawberry.ID = strawberry.field(description="The document.")
    stage: domain.EnrichmentStage = strawberry.field(description="The stage it entered.")
    attempt: int = strawberry.field(description="1 for the first try; 0 for QUEUED.")
    error: str | None = strawberry.field(description="Why, on FAILED and SKIPPED.")
    detail: str | None = strawberry.field(description="A note on the run, e.g. why link classification was skipped.")
    at: datetime = strawberry.field(description="When (UTC).")

    @classmethod
    def from_domain(cls, event: DocumentStageChanged) -> EnrichmentEvent:
        return cls(document_id=strawberry.ID(event.document_id), stage=event.stage, attempt=event.attempt,
                   error=event.error, detail=event.detail, at=event.at)
