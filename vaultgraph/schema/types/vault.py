"""Reports of Obsidian vault import and export."""

from __future__ import annotations

import strawberry

from vaultgraph.interop.vault import ExportReport, VaultReport


@strawberry.type(description="A file left out of an import, export or scan, with why; the others went on.")
class SkippedFile:
    path: str = strawberry.field(description="The file's path, relative to the folder.")
    reason: str = strawberry.field(description="Why it was left out, in words.")


@strawberry.type(description="A file an export wrote under another name than its own, which another item held.")
class RenamedFile:
    path: str = strawberry.field(description="The vault path the item would have had.")
    written_as: str = strawberry.field(description="The vault path it was written at (`<name> 2.md`, …).")


@strawberry.type(description="What an import did, file by file. Conflicts were skipped: the graph is authoritative.")
class VaultImportReport:
    files: int = strawberry.field(description="Files read from the vault.")
    created: list[str] = strawberry.field(description="Vault paths that became new notes.")
    updated: list[str] = strawberry.field(description="Vault paths whose notes were updated.")
    unchanged: list[str] = strawberry.field(description="Vault paths whose notes already held the same body.")
    conflicts: list[str] = strawberry.field(description="Files whose body differs from their note; rerun with force.")
    attachments: list[str] = strawberry.field(description="Non-markdown files, registered as documents.")
    skipped: list[SkippedFile] = strawberry.field(description="Files left out, each with why.")
    typed_links: int = strawberry.field(
        description="Typed (non-wikilink) links made from the files' `vaultgraph.links` frontmatter.")
    index_pending: int = strawberry.field(description=(
        "Notes of this import saved before their vectors: the enrichment workers embed them in the background "
        "(`enrichmentProgress.notesPending` counts down; each note's `indexed` turns true). Keyword search finds "
        "them meanwhile."))

    @classmethod
    def from_report(cls, report: VaultReport) -> VaultImportReport:
        return cls(files=report.files, created=report.created, updated=report.updated, unchanged=report.unchanged,
                   conflicts=report.conflicts, attachments=report.attachments,
                   skipped=[SkippedFile(path=p, reason=r) for p, r in report.skipped], typed_links=report.links,
                   index_pending=report.index_pending)


@strawberry.type(description="What an export wrote: vault paths under the folder, `agents/<id>/…` and `teams/<id>/…` "
                             "for personal and team items.")
class VaultExportReport:
    written: list[str] = strawberry.field(description="Notes written, as markdown files.")
    attachments: list[str] = strawberry.field(description="Documents written, as copies of their files.")
    renamed: list[RenamedFile] = strawberry.field(
        description="Items whose file name another item held; their title and slug are kept in the frontmatter.")
    skipped: list[SkippedFile] = strawberry.field(
        description="Items not written, with why (a name the file system refuses or a folder holds, a document whose "
                    "file is gone); the rest is written.")

    @classmethod
    def from_report(cls, report: ExportReport) -> VaultExportReport:
        return cls(written=report.written, attachments=report.attachments,
                   renamed=[RenamedFile(path=p, written_as=w) for p, w in report.renamed],
                   skipped=[SkippedFile(path=p, reason=r) for p, r in report.skipped])
