"""GraphQL types of the workspace scan: its report, and its progress as the enrichment subscriptions carry it."""

from __future__ import annotations

import strawberry

from vaultgraph.events import WorkspaceScanProgress
from vaultgraph.schema.vault_types import SkippedFile
from vaultgraph.services.workspace_sync import ScanReport


@strawberry.type(description="Where a workspace scan of the tenant stands (counts only: paths may be in scopes "
                             "the subscriber does not see).")
class WorkspaceScan:
    scan_id: strawberry.ID
    total: int = strawberry.field(description="Files the walk found within the limits.")
    seen: int
    new: int
    changed: int
    unchanged: int
    removed: int
    skipped: int
    done: bool

    @classmethod
    def from_event(cls, event: WorkspaceScanProgress) -> WorkspaceScan:
        return cls(scan_id=strawberry.ID(event.scan_id), total=event.total, seen=event.seen, new=event.new,
                   changed=event.changed, unchanged=event.unchanged, removed=event.removed, skipped=event.skipped,
                   done=event.done)


@strawberry.type(description="What a rescan did: paths are relative to the tenant's workspace folder "
                             "(agents/<id>/… and teams/<id>/… for personal and team files).")
class WorkspaceScanReport:
    scan_id: strawberry.ID
    seen: int
    new: list[str]
    changed: list[str]
    unchanged: int
    removed: list[str]
    skipped: list[SkippedFile]

    @classmethod
    def from_report(cls, report: ScanReport) -> WorkspaceScanReport:
        return cls(scan_id=strawberry.ID(report.scan_id), seen=report.seen, new=report.new, changed=report.changed,
                   unchanged=report.unchanged, removed=report.removed,
                   skipped=[SkippedFile(path=p, reason=r) for p, r in report.skipped])
