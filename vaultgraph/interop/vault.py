"""Obsidian vaults: import every markdown file through the note save pipeline, and export notes back as files.

Notes go in through the bulk save (`NoteService.save_many`): a run of files is read, looked up by slug in one
statement per owner, and saved a batch per transaction, with the end state of saving them one by one.

A file's folder says whose it is, as in the workspace (`agents/<id>/…` personal, `teams/<id>/…` team, else shared);
a file in a space the caller may not write is skipped, with why. Its frontmatter's `vaultgraph:` key (written by an
export, interop/vault_meta.py) gives back what the body does not: title, slug, kind, date, pinned, archived and
typed links, which are made once every file is in; plain `kind`, `date` and `pinned` properties count too.

The graph is authoritative: on import, a file whose body (or stated kind, date, pinned, title, archived state)
differs from its note is a conflict, reported and skipped unless `force`. Other files (images, PDFs, canvases)
become documents, so `![[diagram.png]]` resolves as in Obsidian. Limits are those of a workspace scan; hidden
folders, `node_modules` and symlinks are skipped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import structlog

from vaultgraph.domain import Note, Owner, Principal
from vaultgraph.errors import AppError, Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound
from vaultgraph.file_walk import walk_files
from vaultgraph.graph import documents as document_cypher
from vaultgraph.graph import notes as note_cypher
from vaultgraph.interop import vault_meta
from vaultgraph.interop.names import is_markdown, split_owner
from vaultgraph.interop.vault_export import ExportReport, VaultExporter
from vaultgraph.services.documents import DocumentDraft, DocumentService
from vaultgraph.services.links import LinkDraft, LinkService
from vaultgraph.services.notes import NoteDraft, NoteService
from vaultgraph.text.slugify import slugify
from vaultgraph.workspace.formats import DOC_TYPES_BY_SUFFIX

log = structlog.get_logger(__name__)

Progress = Callable[[int, int, str], None]

__all__ = ["ExportReport", "Progress", "VaultReport", "VaultService"]


@dataclass
class VaultReport:
    files: int = 0
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    links: int = 0  # typed links made from the files' frontmatter
    index_pending: int = 0  # notes saved whose vectors the workers are still to compute (a deferred import)


@dataclass(frozen=True, slots=True)
class _File:
    relative: str  # the path in the vault
    path: Path
    owner: Owner
    inner: str  # the path inside the owner's space


@dataclass(frozen=True, slots=True)
class _NoteFile:
    file: _File
    body: str
    meta: dict[str, Any]
    stated: vault_meta.Stated
    slug: str


def _slug(inner: str) -> str | None:
    try:
        return slugify(inner[:-3])
    except ValueError:
        return None


def _chunks(files: list[_File], size: int) -> Iterator[list[_File]]:
    """Runs of at most `size` files in which no note's slug comes twice in one owner's space: a file whose path
    makes the slug of an earlier one must find that note in the graph, as it would one file at a time."""
    chunk: list[_File] = []
    keys: set[tuple[str, str]] = set()
    for file in files:
        slug = _slug(file.inner) if is_markdown(file.relative) else None
        key = (file.owner.key, slug) if slug is not None else None
        if len(chunk) >= size or (key is not None and key in keys):
            yield chunk
            chunk, keys = [], set()
        chunk.append(file)
        if key is not None:
            keys.add(key)
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


def _text(entry: dict[str, Any], name: str) -> str | None:
    value = entry.get(name)
    return value if isinstance(value, str) else None


class VaultService:
    """`folders`: the server folders the API may import from and export to (with their subfolders); None lets
    any folder through, which only a single-user development server (or the CLI, run by the operator) should do."""

    def __init__(self, notes: NoteService, documents: DocumentService, links: LinkService,
                 folders: Sequence[Path] | None = None) -> None:
        self.notes = notes
        self.documents = documents
        self.links = links
        self.folders = None if folders is None else tuple(Path(f).resolve() for f in folders)

    def server_folder(self, path: str) -> Path:
        """The folder an API caller named, resolved (symlinks and `..` included), if the server lets the API use it."""
        if "\x00" in path:
            raise InvalidInput("path", "must not contain a NUL character")
        folder = Path(path)
        if not folder.is_absolute():
            raise InvalidInput("path", "give an absolute folder path on the server")
        resolved = folder.resolve()
        if self.folders is not None and not any(resolved.is_relative_to(root) for root in self.folders):
            allowed = ", ".join(str(root) for root in self.folders) or "none (VAULTGRAPH_VAULT_DIRS is empty)"
            raise Forbidden(f"{path} is outside the folders this server lets the API read and write: {allowed}")
        return resolved

    async def export_vault(self, principal: Principal, root: Path, progress: Progress | None = None) -> ExportReport:
        """Write every note the caller sees (archived too) and every document as the files of a vault."""
        return await VaultExporter(self.notes, self.documents, self.links).export(principal, root, progress)

    async def import_vault(
        self, principal: Principal, root: Path, force: bool = False, progress: Progress | None = None,
        defer_indexing: bool = True,
    ) -> VaultReport:
        """Import the vault at `root`. Notes, links and their full-text entries are committed before this returns;
        with `defer_indexing` (the default) their vectors follow from the workers (`VaultReport.index_pending`,
        `enrichmentProgress.notesPending`), else each batch is embedded before the next is read."""
        if not await asyncio.to_thread(root.is_dir):
            raise InvalidInput("path", f"{root} is not a folder this server can read")
        # File system walks and reads run in a thread so the event loop keeps serving.
        walked, skipped = await asyncio.to_thread(walk_files, root)
        report = VaultReport(files=len(walked), skipped=skipped)
        done = 0

        def step(relative: str) -> None:
            nonlocal done
            done += 1
            if progress is not None:
                progress(done, len(walked), relative)

        files: list[_File] = []
        for relative, path in walked:
            try:
                owner, inner = split_owner(relative)
            except InvalidInput as exc:
                report.skipped.append((relative, exc.message))
                step(relative)
                continue
            if not principal.may_write(owner):
                report.skipped.append((relative, f"FORBIDDEN: {relative.split('/', 2)[0]}/… is {owner.key}'s "
                                                 "space, which you cannot write"))
                step(relative)
                continue
            files.append(_File(relative, path, owner, inner))
        ids: dict[str, str] = {}  # vault path -> the item it is now, for typed links
        pending: list[tuple[str, str, object]] = []  # (vault path, note id, its `links` entries)
        for chunk in _chunks(files, self.notes.batch_size):
            await self._import_chunk(principal, chunk, force, report, ids, pending, defer_indexing)
            for file in chunk:
                step(file.relative)
        for relative, entries in (await self._unfenced_links(root, report)).items():
            if relative in ids:
                pending.append((relative, ids[relative], entries))
            else:
                report.skipped.append((relative, f"{vault_meta.LINKS_FILE} lists typed links for it, and it was not "
                                                 "imported"))
        for relative, source_id, entries in pending:
            await self._link(principal, relative, source_id, entries, ids, report)
        log.info("vault imported", root=str(root), files=report.files, created=len(report.created),
                 updated=len(report.updated), unchanged=len(report.unchanged), conflicts=len(report.conflicts),
                 links=report.links)
        return report

    @staticmethod
    async def _unfenced_links(root: Path, report: VaultReport) -> dict[str, object]:
        """The typed links of files without frontmatter, from the vault's links file (an export writes it)."""
        path = root / vault_meta.LINKS_FILE
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            report.skipped.append((vault_meta.LINKS_FILE, f"unreadable: {exc}"))
            return {}
        try:
            return vault_meta.read_links_file(data)
        except InvalidInput as exc:
            report.skipped.append((vault_meta.LINKS_FILE, exc.message))
            return {}

    async def _import_chunk(self, principal: Principal, chunk: list[_File], force: bool, report: VaultReport,
                            ids: dict[str, str], pending: list[tuple[str, str, object]], defer: bool) -> None:
        """Import a run of files: attachments one by one, notes through the bulk save (`save_many`). Outcomes are
        reported in file order."""
        outcomes: dict[str, tuple[str, str | None]] = {}  # vault path → (report list, why when skipped)
        markdown = [file for file in chunk if is_markdown(file.relative)]
        texts = await asyncio.to_thread(_read_texts, [file.path for file in markdown])
        attachments: list[tuple[_File, bytes | None, str | None]] = [
            (file, None, None) for file in chunk if not is_markdown(file.relative)]
        readable: list[_NoteFile] = []
        document_links: dict[str, object] = {}  # a markdown document's typed links, by its vault path
        for file, text in zip(markdown, texts, strict=True):
            if isinstance(text, Exception):
                outcomes[file.relative] = ("skipped", f"unreadable: {text}")
                continue
            try:
                body, meta = vault_meta.split_block(text)
                if meta.get("document") is True:  # a markdown document, exported as one
                    attachments.append((file, body.encode("utf-8"), _text(meta, "title")))
                    if "links" in meta:
                        document_links[file.relative] = meta["links"]
                    continue
                stated = vault_meta.stated(body, meta)
            except InvalidInput as exc:
                outcomes[file.relative] = ("skipped", exc.message)
                continue
            slug = stated.slug or _slug(file.inner)
            if slug is None:
                outcomes[file.relative] = ("skipped", "no slug can be made from this path")
            else:
                readable.append(_NoteFile(file, body, meta, stated, slug))
        for file, data, title in attachments:
            try:
                outcomes[file.relative] = (await self._import_attachment(principal, file, data, title, ids), None)
                if file.relative in document_links:
                    pending.append((file.relative, ids[file.relative], document_links[file.relative]))
            except (OSError, UnicodeDecodeError) as exc:
                outcomes[file.relative] = ("skipped", f"unreadable: {exc}")
            except (InvalidInput, LimitExceeded, Conflict) as exc:
                outcomes[file.relative] = ("skipped", exc.message)
        existing = await self._existing(principal, readable)
        drafts: list[tuple[_NoteFile, Note | None]] = []
        for item in readable:
            note = existing.get((item.file.owner.key, item.slug))
            draft = self._draft(item, note)
            if note is not None:
                ids[item.file.relative] = note.id
            if note is not None and self._same(note, draft, item.stated):
                outcomes[item.file.relative] = ("unchanged", None)
            elif note is not None and not force:
                outcomes[item.file.relative] = ("conflicts", None)
            else:
                drafts.append((item, note))
        saved = await self.notes.save_many(principal, [self._draft(item, note) for item, note in drafts], defer=defer)
        for (item, note), outcome in zip(drafts, saved, strict=True):
            relative = item.file.relative
            if isinstance(outcome, Conflict):
                outcomes[relative] = ("conflicts", None)
            elif isinstance(outcome, (InvalidInput, LimitExceeded, Forbidden)):
                outcomes[relative] = ("skipped", outcome.message)
            elif isinstance(outcome, AppError):
                raise outcome
            else:
                outcomes[relative] = ("updated" if note is not None else "created", None)
                ids[relative] = outcome.note.id
                if defer and not outcome.note.indexed:
                    report.index_pending += 1
                archived = item.stated.archived
                if archived is not None and (outcome.note.archived_at is not None) != archived:
                    await self.notes.archive(principal, outcome.note.id, archived)
                if "links" in item.meta:
                    pending.append((relative, outcome.note.id, item.meta["links"]))
        for file in chunk:
            kind, why = outcomes[file.relative]
            if kind == "skipped":
                report.skipped.append((file.relative, why or ""))
            else:
                getattr(report, kind).append(file.relative)

    async def _existing(self, principal: Principal, files: list[_NoteFile]) -> dict[tuple[str, str], Note]:
        """The notes the files' slugs name, each in its file's owner's space: one statement per owner."""
        slugs: dict[str, set[str]] = {}
        for item in files:
            slugs.setdefault(item.file.owner.key, set()).add(item.slug)
        found: dict[tuple[str, str], Note] = {}
        for owner_key, owned in slugs.items():
            notes = await self.notes.graph.read(note_cypher.notes_by_slugs, principal.tenant_id, sorted(owned),
                                                [owner_key], owner_key)
            found.update({(owner_key, slug): note for slug, note in notes.items()})
        return found

    @staticmethod
    def _draft(item: _NoteFile, note: Note | None) -> NoteDraft:
        """What the file makes of its note: what it states, else what the note holds (else the defaults). The
        fields go to the pipeline explicitly, so the save does not depend on reading them from the body."""
        stated, owner = item.stated, item.file.owner
        note_date = stated.note_date if stated.dated else (note.note_date if note else None)
        return NoteDraft(
            title=stated.title or PurePosixPath(item.file.inner).stem, slug=item.slug, body=item.body,
            vault_path=item.file.inner, id=note.id if note else None,
            kind=stated.kind or (note.kind if note else "note"), pinned=stated.pinned, note_date=note_date,
            scope=owner.scope, agent_id=owner.agent_id, team_id=owner.team_id)

    @staticmethod
    def _same(note: Note, draft: NoteDraft, stated: vault_meta.Stated) -> bool:
        return (note.body == draft.body and note.title == draft.title.strip() and note.kind == draft.kind
                and note.note_date == draft.note_date and (draft.pinned is None or note.pinned == draft.pinned)
                and (stated.archived is None or (note.archived_at is not None) == stated.archived))

    async def _import_attachment(self, principal: Principal, file: _File, data: bytes | None, title: str | None,
                                 ids: dict[str, str]) -> str:
        """The report list the file goes to. A known text type keeps its type and its title from its content
        (as a workspace scan gives them); anything else is an attachment named by its file name."""
        owner = file.owner
        found = await self.documents.graph.read(document_cypher.document_id_at, principal.tenant_id, owner.key,
                                                file.inner)
        if found is not None:
            ids[file.relative] = found
            return "unchanged"
        if data is None:
            data = await asyncio.to_thread(file.path.read_bytes)
        doc_type = DOC_TYPES_BY_SUFFIX.get(PurePosixPath(file.inner).suffix.lower())
        content = data.decode("utf-8") if doc_type else ""
        document = await self.documents.create(principal, DocumentDraft(
            path=file.inner, content=content, data=data, doc_type=doc_type or "attachment",
            title=title or (None if doc_type else PurePosixPath(file.inner).name),
            scope=owner.scope, agent_id=owner.agent_id, team_id=owner.team_id))
        ids[file.relative] = document.id
        return "attachments"

    async def _link(self, principal: Principal, relative: str, source_id: str, entries: object,
                    ids: dict[str, str], report: VaultReport) -> None:
        """Make the typed links a file's frontmatter lists (`to`: a file of this vault; `ref`: a name, which may
        stay a ghost); one already there is left as it is."""
        if not isinstance(entries, list):
            report.skipped.append((relative, f"{vault_meta.KEY}.links must be a list of links"))
            return
        for entry in entries:
            kind = entry.get("type") if isinstance(entry, dict) else None
            if not isinstance(entry, dict) or not isinstance(kind, str):
                report.skipped.append((relative, f"a {vault_meta.KEY}.links entry needs a `type`"))
                continue
            to, ref = _text(entry, "to"), _text(entry, "ref")
            target = ids.get(to) if to is not None else None
            if ref is None and target is None:
                report.skipped.append((relative, f"the {kind} link to {to!r} names no file of this vault"))
                continue
            confidence = entry.get("confidence")
            draft = LinkDraft(source_id=source_id, type=kind, target_id=None if ref else target, ref=ref,
                              label=_text(entry, "label"), heading=_text(entry, "heading"),
                              context=_text(entry, "context"),
                              confidence=float(confidence) if isinstance(confidence, (int, float)) else None)
            try:
                await self.links.create(principal, draft)
                report.links += 1
            except Conflict:
                pass  # the note has that link already
            except (InvalidInput, NotFound) as exc:
                report.skipped.append((relative, f"the {kind} link: {exc.message}"))
