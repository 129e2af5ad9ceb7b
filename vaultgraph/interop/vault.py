"""Obsidian vaults: import every markdown file through the note save pipeline, and export notes back as files.

Notes go in through the bulk save (`NoteService.save_many`): a run of files is read, looked up by slug in one
statement, and saved a batch per transaction, with the end state of saving them one by one.

The graph is authoritative: on import, a file whose body differs from its note is a conflict, reported and skipped
unless `force`. Other files (images, PDFs, canvases) become documents, so `![[diagram.png]]` resolves as in
Obsidian. Limits are those of a workspace scan; hidden folders, `node_modules` and symlinks are skipped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import structlog

from vaultgraph.domain import Note, Principal
from vaultgraph.errors import AppError, Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound
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


def _slug(relative: str) -> str | None:
    try:
        return slugify(relative[:-3])
    except ValueError:
        return None


def _chunks(files: list[tuple[str, Path]], size: int) -> Iterator[list[tuple[str, Path]]]:
    """Runs of at most `size` files in which no note's slug comes twice: a file whose path makes the slug of an
    earlier one must find that note in the graph, as it would one file at a time."""
    chunk: list[tuple[str, Path]] = []
    slugs: set[str] = set()
    for relative, path in files:
        slug = _slug(relative) if relative.lower().endswith(".md") else None
        if len(chunk) >= size or (slug is not None and slug in slugs):
            yield chunk
            chunk, slugs = [], set()
        chunk.append((relative, path))
        if slug is not None:
            slugs.add(slug)
    if chunk:
        yield chunk


def _read_texts(paths: list[Path]) -> list[str | Exception]:
    """Each file as UTF-8 text, or the error that kept it from being read."""
    texts: list[str | Exception] = []
    for path in paths:
        try:
            texts.append(path.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            texts.append(exc)
    return texts


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
        done = 0
        for chunk in _chunks(files, self.notes.batch_size):
            await self._import_chunk(principal, chunk, force, report)
            for relative, _ in chunk:
                done += 1
                if progress is not None:
                    progress(done, len(files), relative)
        log.info("vault imported", root=str(root), files=report.files, created=len(report.created),
                 updated=len(report.updated), unchanged=len(report.unchanged), conflicts=len(report.conflicts))
        return report

    async def _import_chunk(self, principal: Principal, chunk: list[tuple[str, Path]], force: bool,
                            report: VaultReport) -> None:
        """Import a run of files: attachments one by one, notes through the bulk save (`save_many`). Outcomes are
        reported in file order."""
        outcomes: dict[str, tuple[str, str | None]] = {}  # relative path → (report list, why when skipped)
        for relative, path in chunk:
            if not relative.lower().endswith(".md"):
                try:
                    outcomes[relative] = (await self._import_attachment(principal, relative, path), None)
                except (OSError, UnicodeDecodeError) as exc:
                    outcomes[relative] = ("skipped", f"unreadable: {exc}")
                except (InvalidInput, LimitExceeded) as exc:
                    outcomes[relative] = ("skipped", exc.message)
        notes = [(relative, path) for relative, path in chunk if relative.lower().endswith(".md")]
        bodies = await asyncio.to_thread(_read_texts, [path for _, path in notes])
        readable: list[tuple[str, str, str]] = []  # relative, slug, body
        for (relative, _), body in zip(notes, bodies, strict=True):
            if isinstance(body, Exception):
                outcomes[relative] = ("skipped", f"unreadable: {body}")
            elif (slug := _slug(relative)) is None:
                outcomes[relative] = ("skipped", "no slug can be made from this path")
            else:
                readable.append((relative, slug, body))
        existing = await self.notes.find_by_slugs(principal, sorted({slug for _, slug, _ in readable}))
        drafts: list[tuple[str, bool, NoteDraft]] = []
        for relative, slug, body in readable:
            note = existing.get(slug)
            if note is not None and note.body == body:
                outcomes[relative] = ("unchanged", None)
            elif note is not None and not force:
                outcomes[relative] = ("conflicts", None)
            else:
                drafts.append((relative, note is not None, NoteDraft(
                    title=PurePosixPath(relative).stem, slug=slug, body=body, vault_path=relative,
                    id=note.id if note else None)))
        saved = await self.notes.save_many(principal, [draft for _, _, draft in drafts])
        for (relative, updated, _), outcome in zip(drafts, saved, strict=True):
            if isinstance(outcome, Conflict):
                outcomes[relative] = ("conflicts", None)
            elif isinstance(outcome, (InvalidInput, LimitExceeded)):
                outcomes[relative] = ("skipped", outcome.message)
            elif isinstance(outcome, AppError):
                raise outcome
            else:
                outcomes[relative] = ("updated" if updated else "created", None)
        for relative, _ in chunk:
            kind, why = outcomes[relative]
            if kind == "skipped":
                report.skipped.append((relative, why or ""))
            else:
                getattr(report, kind).append(relative)

    async def _import_attachment(self, principal: Principal, relative: str, path: Path) -> str:
        """The report list the file goes to."""
        try:
            await self.documents.get_by_path(principal, relative)
            return "unchanged"
        except NotFound:
            pass
        data = await asyncio.to_thread(path.read_bytes)
        await self.documents.create(principal, DocumentDraft(path=relative, content="", data=data,
                                                             title=PurePosixPath(relative).name,
                                                             doc_type="attachment"))
        return "attachments"

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
