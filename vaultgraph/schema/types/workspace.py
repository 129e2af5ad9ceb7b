"""GraphQL types of the workspace scan: its report, and its progress as the enrichment subscriptions carry it."""

from __future__ import annotations

import strawberry

from vaultgraph.events.bus import WorkspaceScanProgress
from vaultgraph.schema.types.vault import SkippedFile
from vaultgraph.services.workspace_sync import ScanReport


@strawberry.type(description="Where a workspace scan of the tenant stands (counts only: paths may be in scopes "
                             "the subscriber does not see).")
class WorkspaceScan:
    scan_id: strawberry.ID = strawberry.field(description="The scan, as rescanWorkspace's report names it.")
    total: int = strawberry.field(description="Files the walk found within the limits.")
    seen: int = strawberry.field(description="Files looked at so far.")
    new: int = strawberry.field(description="New files registered so far.")
    changed: int = strawberry.field(description="Files whose SHA-256 changed (they re-enrich).")
    unchanged: int = strawberry.field(description="Files found as they were.")
    removed: int = strawberry.field(description="Documents whose file is gone, removed.")
    skipped: int = strawberry.field(description="Files left out (over a limit, binary, a symlink…).")
    done: bool = strawberry.field(description="True on the scan's last progress.")

    @classmethod
    def from_event(cls, event: WorkspaceScanProgress) -> WorkspaceScan:
        return cls(scan_id=strawberry.ID(event.scan_id), total=event.total, seen=event.seen, new=event.new,
                   changed=event.changed, unchanged=event.unchanged, removed=event.removed, skipped=event.skipped,
                   done=event.done)


@strawberry.type(description="What a rescan did: paths are relative to the tenant's workspace folder "
                             "(agents/<id>/… and teams/<id>/… for personal and team files).")
class WorkspaceScanReport:
    scan_id: strawberry.ID = strawberry.field(description="This scan, as its progress events name it.")
    seen: int = strawberry.field(description="Files looked at (at most 5,000, 500 MB in all).")
    new: list[str] = strawberry.field(description="Paths of new files, registered and queued for enrichment.")
    changed: list[str] = strawberry.field(description="Paths whose SHA-256 changed, queued for enrichment.")
    unchanged: int = strawberry.field(description="Files found as they were.")
    removed: list[str] = strawberry.field(description="Paths whose file is gone; their documents were removed.")
    skipped: list[SkippedFile] = strawberry.field(description="Files left out, each with why.")

    @classmethod
    def from_report(cls, report: ScanReport) -> WorkspaceScanReport:
        return cls(scan_id=strawberry.ID(report.scan_id), seen=report.seen, new=report.new, changed=report.changed,
                   unchanged=report.unchanged, removed=report.removed,
                   skipped=[SkippedFile(path=p, reason=r) for p, r in report.skipped])
