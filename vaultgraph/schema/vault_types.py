"""Reports of Obsidian vault import and export."""

from __future__ import annotations

import strawberry

from vaultgraph.interop.vault import ExportReport, VaultReport


@strawberry.type
class SkippedFile:
    path: str
    reason: str


@strawberry.type(description="What an import did, file by file. Conflicts were skipped: the graph is authoritative.")
class VaultImportReport:
    files: int
    created: list[str]
    updated: list[str]
    unchanged: list[str]
    conflicts: list[str] = strawberry.field(description="Files whose body differs from their note; rerun with force.")
    attachments: list[str]
    skipped: list[SkippedFile]

    @classmethod
    def from_report(cls, report: VaultReport) -> VaultImportReport:
        return cls(files=report.files, created=report.created, updated=report.updated, unchanged=report.unchanged,
                   conflicts=report.conflicts, attachments=report.attachments,
                   skipped=[SkippedFile(path=p, reason=r) for p, r in report.skipped])


@strawberry.type
class VaultExportReport:
    written: list[str]

    @classmethod
    def from_report(cls, report: ExportReport) -> VaultExportReport:
        return cls(written=report.written)
