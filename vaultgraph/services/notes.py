"""`NoteService`: the reads of services/note_reads.py and the one write path of notes. A save is a batch of one:
`save_many` writes many drafts a batch per transaction (services/note_writes.py; the bulk path of a vault import)
with the same end state as saving them one after another, each batch in one transaction with its links, so a failed
save changes nothing. Around a batch: a rename's links follow it in the same transaction, and the changed notes are
indexed (or queued for the workers)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import ConstraintError

from vaultgraph.domain import Note, Principal
from vaultgraph.errors import AppError, Conflict, InvalidInput, LimitExceeded
from vaultgraph.graph import note_index
from vaultgraph.graph import notes as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.services.note_drafts import DayField, Keep, NoteDraft, NoteFilter, NotePatch, SaveResult
from vaultgraph.services.note_reads import NoteReads
from vaultgraph.services.note_renames import DocumentFiles, follow_rename
from vaultgraph.services.note_writes import PreparedDraft, batches, prepare_draft, save_batch_tx
from vaultgraph.text.properties import PropertiesError, set_properties

# The drafts, filters and results are this module's API too (callers import them from here).
__all__ = ["AfterSave", "NoteDraft", "NoteFilter", "NoteService", "SaveResult"]

RACE_RETRIES = 3
# A partial update re-reads and re-applies itself when the body changed between its read and its write.
UPDATE_RETRIES = 5
# Drafts per write transaction of `save_many`: big enough that a statement's fixed cost is spread thin, small
# enough that a batch's transaction state and its embedding call stay modest.
SAVE_BATCH = 250
# Drafts one `saveNotes` call may carry: one write transaction's worth, and one embedding call's.
MAX_SAVE_INPUTS = 100

# The save pipeline's hook: index these saved notes (and whatever the server hooks on after a save); for each
# note, whether its vector is in place. Called once per batch.
Indexer = Callable[[Principal, Sequence[Note]], Awaitable[list[bool]]]
# More writes that belong to one save (a meeting's attendee edges): run in its transaction with the saved note, so
# either both commit or neither does. Must be idempotent (a transient error reruns the transaction).
AfterSave = Callable[[AsyncManagedTransaction, Note], Awaitable[None]]
# Told after a deferred save commits: this tenant has this many more notes waiting for the workers to index them.
OnDeferred = Callable[[str, int], Awaitable[None]]


def _to_index(outcomes: Sequence[SaveResult | AppError]) -> dict[str, Note]:
    """The notes a save must index: those whose body changed or that are not indexed yet, and the notes a rename
    rewrote; by id, the latest version. A rename's rewrites come after every save of its batch (`_write_batch_tx`),
    so they replace a saved version of the same note (the renamed note's own links, a note of the batch that linked
    to the old name): the indexer writes only the version the graph holds (graph/chunks.py STILL_CURRENT)."""
    saved = [outcome for outcome in outcomes if isinstance(outcome, SaveResult)]
    todo = {o.note.id: o.note for o in saved if o.body_changed or not o.note.indexed}
    todo.update((note.id, note) for outcome in saved for note in outcome.rewritten)
    return todo


def _with_indexed(outcomes: list[SaveResult | AppError], indexed: dict[str, bool]) -> list[SaveResult | AppError]:
    """The outcomes with these notes' `indexed` flags set."""
    if not indexed:
        return outcomes

    def fixed(note: Note) -> Note:
        return replace(note, indexed=indexed[note.id]) if note.id in indexed and note.indexed != indexed[note.id] \
            else note

    return [replace(outcome, note=fixed(outcome.note), rewritten=tuple(map(fixed, outcome.rewritten)))
            if isinstance(outcome, SaveResult) else outcome for outcome in outcomes]


class NoteService(NoteReads):
    def __init__(self, graph: Graph, max_page_size: int, indexer: Indexer | None = None,
                 batch_size: int = SAVE_BATCH, on_deferred: OnDeferred | None = None,
                 files: DocumentFiles | None = None) -> None:
        super().__init__(graph, max_page_size)
        self.files = files  # where a rename rewrites the links in documents' files
        self.indexer = indexer
        self.batch_size = batch_size
        self.on_deferred = on_deferred

    async def save(self, principal: Principal, draft: NoteDraft, after: AfterSave | None = None,
                   defer: bool = False) -> SaveResult:
        [outcome] = await self.save_many(principal, [draft], after, defer)
        if isinstance(outcome, AppError):
            raise outcome
        return outcome

    async def save_inputs(self, principal: Principal, drafts: Sequence[NoteDraft],
                          defer: bool = False) -> list[SaveResult | AppError]:
        """`saveNotes`: at most MAX_SAVE_INPUTS drafts (LIMIT_EXCEEDED, nothing written, beyond), saved as
        `save_many` saves them: each draft's result or the error its own `save` would raise."""
        if len(drafts) > MAX_SAVE_INPUTS:
            raise LimitExceeded(f"inputs: at most {MAX_SAVE_INPUTS} notes per call, got {len(drafts)}",
                                field="inputs", limit=MAX_SAVE_INPUTS)
        return await self.save_many(principal, drafts, defer=defer)

    async def save_many(self, principal: Principal, drafts: Sequence[NoteDraft],
                        after: AfterSave | None = None, defer: bool = False) -> list[SaveResult | AppError]:
        """Save drafts with the end state of saving them one by one in order, for each the result or the error
        `save` would raise (a refused draft changes nothing). Every draft is checked first; then a batch at a time
        (`batch_size` drafts) is written in one transaction of `UNWIND` statements, notes first and then all their
        links, which resolve against the batch too; then the batch's changed notes are indexed in one call, or with
        `defer` queued in that same transaction for the workers to index (`indexed: false` until they have; the
        body is in the full-text index at once)."""
        if after is not None and len(drafts) != 1:
            raise ValueError("`after` belongs to the save of one draft")
        outcomes: list[SaveResult | AppError | None] = [None] * len(drafts)
        prepared: list[PreparedDraft] = []
        for index, draft in enumerate(drafts):
            try:
                prepared.append(prepare_draft(index, principal, draft))
            except AppError as exc:
                outcomes[index] = exc
        for batch in batches(prepared, self.batch_size):
            while batch:
                saved = await self._write_batch(principal, batch, after, defer)
                indexed = await (self._deferred(principal, saved) if defer else self._index(principal, saved))
                for item, outcome in zip(batch, indexed, strict=False):
                    outcomes[item.index] = outcome
                batch = batch[len(saved):]
        assert all(outcome is not None for outcome in outcomes)
        return [outcome for outcome in outcomes if outcome is not None]

    async def _write_batch(self, principal: Principal, batch: list[PreparedDraft],
                           after: AfterSave | None = None, defer: bool = False) -> list[SaveResult | AppError]:
        """`_write_batch_tx` in a write transaction. Two saves racing for one new slug (or ghost) both find it
        free and both create it: the loser's commit breaks a uniqueness constraint and rolls back whole, and its
        rerun sees the winner's note, so it answers CONFLICT (or binds to it) instead of failing."""
        for attempt in range(RACE_RETRIES):
            try:
                return await self.graph.write(self._write_batch_tx, principal, batch, after, defer)
            except ConstraintError:
                if attempt == RACE_RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    async def _write_batch_tx(
        self, tx: AsyncManagedTransaction, principal: Principal, batch: list[PreparedDraft],
        after: AfterSave | None = None, defer: bool = False,
    ) -> list[SaveResult | AppError]:
        """`save_batch_tx`, then, when its first draft renamed a note, the links to the old name follow it in the
        same transaction (a rename only ever comes first in a batch); then `after`, for a save of one; then, with
        `defer`, the notes to index are queued for the workers (the new ones as they are created)."""
        queue = defer and self.indexer is not None
        outcomes = await save_batch_tx(tx, principal, batch, pending=queue)
        first = outcomes[0] if outcomes else None
        if isinstance(first, SaveResult) and first.renamed:
            rewritten = await follow_rename(tx, principal, first.note, batch[0].draft.rewrite_links,
                                            self._save_drafts_tx, self.files)
            own = next((note for note in rewritten if note.id == first.note.id), first.note)  # it linked to itself
            outcomes[0] = replace(first, note=own, rewritten=rewritten)
        if after is not None and isinstance(outcomes[0], SaveResult):
            await after(tx, outcomes[0].note)
        if queue:
            queued = {outcome.note.id for outcome in outcomes if isinstance(outcome, SaveResult) and outcome.created}
            todo = sorted(set(_to_index(outcomes)) - queued)
            if todo:
                await note_index.mark_pending(tx, principal.tenant_id, todo)
        return outcomes

    async def _save_drafts_tx(self, tx: AsyncManagedTransaction, principal: Principal,
                              drafts: list[NoteDraft]) -> list[Note]:
        """Save drafts of existing notes inside `tx`, whoever owns them: the cascade of a write the caller may make
        (a rename's link rewrites)."""
        everyone = Principal(tenant_id=principal.tenant_id, agent_id=principal.agent_id, sees_all_scopes=True)
        items = [prepare_draft(index, everyone, draft, own_save=False) for index, draft in enumerate(drafts)]
        saved: list[Note] = []
        for outcome in await save_batch_tx(tx, everyone, items) if items else []:
            if isinstance(outcome, AppError):  # the same transaction read these notes: a bug, not a race
                raise outcome
            saved.append(outcome.note)
        return saved

    async def _index(self, principal: Principal, outcomes: list[SaveResult | AppError]) -> list[SaveResult | AppError]:
        """Index the saved notes whose body changed (or that are not indexed yet), and the notes a rename
        rewrote, in one call of the hook."""
        if self.indexer is None:
            return outcomes
        todo = _to_index(outcomes)
        if not todo:
            return outcomes
        flags = await self.indexer(principal, list(todo.values()))
        changed = {note.id: indexed for note, indexed in zip(todo.values(), flags, strict=True)
                   if indexed != note.indexed}
        if changed:
            await self.graph.write(cypher.set_indexed, principal.tenant_id, changed)
        return _with_indexed(outcomes, changed)

    async def _deferred(self, principal: Principal,
                        outcomes: list[SaveResult | AppError]) -> list[SaveResult | AppError]:
        """What a deferred save answers: the queued notes as stored now, not indexed yet; the workers are told."""
        if self.indexer is None:
            return outcomes
        queued = {note_id: False for note_id in _to_index(outcomes)}
        if queued and self.on_deferred is not None:
            await self.on_deferred(principal.tenant_id, len(queued))
        return _with_indexed(outcomes, queued)

    async def update(self, principal: Principal, note_id: str, patch: NotePatch) -> SaveResult:
        """Change only what `patch` gives, through the save pipeline; everything else stays as stored (an
        explicit kind, date or pin is kept even where the front matter says otherwise, unless `properties` sets
        that key). Retried when the body changes between the read and the write, so no concurrent edit is lost."""
        changes = patch.properties or {}
        if any(not isinstance(key, str) or not key.strip() for key in changes):
            raise InvalidInput("properties", "property names must be non-empty strings")
        for _ in range(UPDATE_RETRIES):
            note = await self.get_writable(principal, note_id)
            try:
                body = set_properties(note.body, changes) if changes else note.body
            except PropertiesError as exc:
                raise InvalidInput("properties", str(exc)) from exc
            archived = patch.archived if patch.archived != (note.archived_at is not None) else None
            note_date: DayField = patch.note_date
            if isinstance(note_date, Keep) and not changes.keys() & {"noteDate", "date"}:
                note_date = note.note_date
            draft = NoteDraft(
                id=note.id, title=note.title, slug=note.slug, body=body, archived=archived, note_date=note_date,
                kind=patch.kind if patch.kind is not None or "kind" in changes else note.kind,
                pinned=patch.pinned if patch.pinned is not None or "pinned" in changes else note.pinned,
                if_body_sha256=note.body_sha256,
            )
            try:
                return await self.save(principal, draft)
            except Conflict as exc:
                if exc.details.get("slug"):
                    raise
        raise Conflict("the note kept changing while updating it; try again", id=note_id)

    async def archive(self, principal: Principal, note_id: str, archived: bool = True) -> Note:
        return (await self.update(principal, note_id, NotePatch(archived=archived))).note
