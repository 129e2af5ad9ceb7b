"""Obsidian vaults: import every markdown file through the note save pipeline, and export notes back as files.

The graph is authoritative: on import, a file whose body differs from its note is a conflict, reported and skipped
unless `force`. Other files (images, PDFs, canvases) become documents, so `![[diagram.png]]` resolves as in
Obsidian. Limits are those of a workspace scan; hidden folders, `node_modules` and symlinks are skipped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import structlog

from vaultgraph.domain import Note, Principal
from vaultgraph.errors import Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound
from vaultgraph.file_walk import walk_files
from vaultgraph.services.documents import DocumentDraft, DocumentService
from vaultgraph.services.notes import NoteDraft, NoteFilter, NoteService
from vaultgraph.text.slugify import slugify

log = structlog.get_logger(__name__)

Progress = Callable[[int, int, str], None]


@dataclass
class VaultReport:
    files: int = 0
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)


@dataclass
class ExportReport:
    written: list[str] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)


def _write_inside(root: Path, relative: str, data: bytes) -> bool:
    """Write `data` at `relative` under `root`; a path that resolves outside the root is refused (False)."""
    target = (root / relative).resolve()
    if not target.is_relative_to(root):
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return True


def note_path(note: Note) -> str:
    """Where a note lives in an exported vault: where it came from, else its slug's folders and its title."""
    if note.vault_path:
        return note.vault_path
    folder = note.slug.rsplit("/", 1)[0] + "/" if "/" in note.slug else ""
    name = "".join(c for c in note.title if c not in '\\/:*?"<>|#^[]').strip() or note.slug.rsplit("/", 1)[-1]
    return f"{folder}{name}.md"


class VaultService:
    """`folders`: the server folders the API may import from and export to (with their subfolders); None lets
    any folder through, which only a single-user development server (or the CLI, run by the operator) should do."""

    def __init__(self, notes: NoteService, documents: DocumentService,
                 folders: Sequence[Path] | None = None) -> None:
        self.notes = notes
        self.documents = documents
        self.folders = None if folders is None else tuple(Path(f).resolve() for f in folders)

    def server_folder(self, path: str) -> Path:
        """The folder an API caller named, resolved (symlinks and `..` included), if the server lets the API use it."""
        folder = Path(path)
        if not folder.is_absolute():
            raise InvalidInput("path", "give an absolute folder path on the server")
        resolved = folder.resolve()
        if self.folders is not None and not any(resolved.is_relative_to(root) for root in self.folders):
            allowed = ", ".join(str(root) for root in self.folders) or "none (VAULTGRAPH_VAULT_DIRS is empty)"
            raise Forbidden(f"{path} is outside the folders this server lets the API read and write: {allowed}")
        return resolved

    async def import_vault(
        self, principal: Principal, root: Path, force: bool = False, progress: Progress | None = None
    ) -> VaultReport:
        if not await asyncio.to_thread(root.is_dir):
            raise InvalidInput("path", f"{root} is not a folder this server can read")
        # File system walks and reads run in a thread so the event loop keeps serving.
        files, skipped = await asyncio.to_thread(walk_files, root)
        report = VaultReport(files=len(files), skipped=skipped)
        for done, (relative, path) in enumerate(files, start=1):
            if progress is not None:
                progress(done, len(files), relative)
            try:
                if relative.lower().endswith(".md"):
                    await self._import_note(principal, relative, path, force, report)
                else:
                    await self._import_attachment(principal, relative, path, report)
            except (OSError, UnicodeDecodeError) as exc:
                report.skipped.append((relative, f"unreadable: {exc}"))
            except (InvalidInput, LimitExceeded) as exc:
                report.skipped.append((relative, exc.message))
        log.info("vault imported", root=str(root), files=report.files, created=len(report.created),
                 updated=len(report.updated), unchanged=len(report.unchanged), conflicts=len(report.conflicts))
        return report

    async def _import_note(self, principal: Principal, relative: str, path: Path, force: bool,
                           report: VaultReport) -> None:
        body = (await asyncio.to_thread(path.read_bytes)).decode("utf-8")
        slug = slugify(relative[:-3])
        try:
            existing = await self.notes.get_by_slug(principal, slug)
        except NotFound:
            existing = None
        if existing is not None:
            if existing.body == body:
                report.unchanged.append(relative)
                return
            if not force:
                report.conflicts.append(relative)
                return
        draft = NoteDraft(title=PurePosixPath(relative).stem, slug=slug, body=body, vault_path=relative,
                          id=existing.id if existing else None)
        try:
            await self.notes.save(principal, draft)
        except Conflict:
            report.conflicts.append(relative)
            return
        (report.updated if existing else report.created).append(relative)

    async def _import_attachment(self, principal: Principal, relative: str, path: Path, report: VaultReport) -> None:
        try:
            await self.documents.get_by_path(principal, relative)
            report.unchanged.append(relative)
            return
        except NotFound:
            pass
        data = await asyncio.to_thread(path.read_bytes)
        await self.documents.create(principal, DocumentDraft(path=relative, content="", data=data,
                                                             title=PurePosixPath(relative).name,
                                                             doc_type="attachment"))
        report.attachments.append(relative)

    async def export_vault(self, principal: Principal, root: Path) -> ExportReport:
        """Write every visible active note as a markdown file (its body as stored, frontmatter included)."""
        root = await asyncio.to_thread(root.resolve)
        await asyncio.to_thread(root.mkdir, parents=True, exist_ok=True)
        report = ExportReport()
        after = None
        while True:
            page = await self.notes.page(principal, NoteFilter(), 100, after)
            for _, note in page.items:
                relative = note_path(note)
                if await asyncio.to_thread(_write_inside, root, relative, note.body.encode("utf-8")):
                    report.written.append(relative)
            if not page.has_next_page:
                break
            after = page.items[-1][0]
        return report
