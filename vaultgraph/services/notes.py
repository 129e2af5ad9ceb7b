"""Notes through one save pipeline, the only write path: slug, SHA-256 change detection, frontmatter, tags, and the
wikilink sync (diffed, three resolution passes), all in one transaction so a failed save changes nothing.

One save is a batch of one: `save_many` writes many drafts a batch per transaction (the bulk path of a vault
import) with the same end state as saving them one after another."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import ConstraintError

from vaultgraph.domain import Note, Owner, Page, Principal
from vaultgraph.errors import AppError, Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound
from vaultgraph.graph import note_index
from vaultgraph.graph import notes as cypher
from vaultgraph.graph.note_query import property_fields, query_page_and_total
from vaultgraph.graph.session import Graph
from vaultgraph.graph.wikilinks import lock_names
from vaultgraph.services.documents import owner_of
from vaultgraph.services.note_drafts import (
    KEEP,
    MAX_KIND_LENGTH,
    DayField,
    Keep,
    NoteDraft,
    NoteFilter,
    NotePatch,
    SaveResult,
    frontmatter_fields,
    frontmatter_properties,
    is_kind,
)
from vaultgraph.services.note_query import parse_order, parse_where
from vaultgraph.services.note_renames import DocumentFiles, follow_rename
from vaultgraph.services.pagination import Window, decode_cursor, encode_cursor, page_size, timestamp_cursor, window
from vaultgraph.services.wikilink_sync import LinkJob, sync_wikilinks_many
from vaultgraph.text.properties import PropertiesError, set_properties
from vaultgraph.text.resolve import key_name
from vaultgraph.text.slugify import slugify
from vaultgraph.text.wikilinks import ParsedText, parse
from vaultgraph.workspace import sha256_hex

# The drafts and results are this module's API too (callers import them from here).
__all__ = ["KEEP", "AfterSave", "DayField", "Keep", "NoteDraft", "NoteFilter", "NotePatch", "NoteService", "SaveResult",
           "frontmatter_properties"]

MAX_BODY_BYTES = 5 * 1024 * 1024
MAX_TITLE_LENGTH = 500
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


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A draft that passed the checks that need no graph: what its note will hold."""

    index: int  # its position among the drafts of `save_many`
    draft: NoteDraft
    props: dict[str, Any]
    parsed: ParsedText
    owner: Owner | None  # a new note's owner (an existing note keeps its own)


def filter_params(principal: Principal, filters: NoteFilter) -> dict[str, Any]:
    """The parameters of graph/notes.py's list statements (pages and property queries) for these filters."""
    return {
        "tenant": principal.tenant_id, "ownerKeys": principal.visible_owner_keys(),
        "includeArchived": filters.include_archived, "scope": filters.scope.value if filters.scope else None,
        "kind": filters.kind, "tag": filters.tag, "pinned": filters.pinned,
    }


def note_page_params(principal: Principal, filters: NoteFilter, span: Window) -> dict[str, Any]:
    """The parameters of graph/notes.py's page statements for these filters and this window."""
    return {**filter_params(principal, filters), **span.params("Ts")}


def note_cursor(note: Note) -> str:
    """A note's cursor in the list of notes (most recently updated first)."""
    return encode_cursor(note.updated_at.isoformat(), note.id)


def _to_index(outcomes: Sequence[SaveResult | AppError]) -> dict[str, Note]:
    """The notes a save must index: those whose body changed or that are not indexed yet, and the notes a rename
    rewrote; by id, the latest version (a rename may rewrite the renamed note's own links)."""
    todo: dict[str, Note] = {}
    for outcome in outcomes:
        if isinstance(outcome, SaveResult):
            if outcome.body_changed or not outcome.note.indexed:
                todo[outcome.note.id] = outcome.note
            todo.update((note.id, note) for note in outcome.rewritten)
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


def _batches(prepared: list[_Prepared], size: int) -> Iterator[list[_Prepared]]:
    """Runs of at most `size` drafts in which no note id comes twice (a batch reads each note once)."""
    batch: list[_Prepared] = []
    ids: set[str] = set()
    for item in prepared:
        if len(batch) >= size or (item.draft.id is not None and item.draft.id in ids):
            yield batch
            batch, ids = [], set()
        batch.append(item)
        if item.draft.id is not None:
            ids.add(item.draft.id)
    if batch:
        yield batch


def slug_in_place(existing: Note, title: str) -> str:
    """The slug of an update that names none: the stored one while the title stays (a custom slug too); a new
    title renames the note in its own folder, as Obsidian renames a file where it is."""
    if title == existing.title:
        return existing.slug
    folder = existing.slug.rpartition("/")[0]
    return slugify(f"{folder}/{title}" if folder else title)


class NoteService:
    def __init__(self, graph: Graph, max_page_size: int, indexer: Indexer | None = None,
                 batch_size: int = SAVE_BATCH, on_deferred: OnDeferred | None = None,
                 files: DocumentFiles | None = None) -> None:
        self.graph = graph
        self.files = files  # where a rename rewrites the links in documents' files
        self.max_page_size = max_page_size
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
        prepared: list[_Prepared] = []
        for index, draft in enumerate(drafts):
            try:
                prepared.append(self._prepare(index, principal, draft))
            except AppError as exc:
                outcomes[index] = exc
        for batch in _batches(prepared, self.batch_size):
            while batch:
                saved = await self._write_batch(principal, batch, after, defer)
                indexed = await (self._deferred(principal, saved) if defer else self._index(principal, saved))
                for item, outcome in zip(batch, indexed, strict=False):
                    outcomes[item.index] = outcome
                batch = batch[len(saved):]
        assert all(outcome is not None for outcome in outcomes)
        return [outcome for outcome in outcomes if outcome is not None]

    async def _write_batch(self, principal: Principal, batch: list[_Prepared],
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

    def _prepare(self, index: int, principal: Principal, draft: NoteDraft, own_save: bool = True) -> _Prepared:
        title = draft.title.strip()
        if not title:
            raise InvalidInput("title", "must not be empty")
        if len(title) > MAX_TITLE_LENGTH:
            raise InvalidInput("title", f"at most {MAX_TITLE_LENGTH} characters")
        if draft.body is None and draft.id:
            raise InvalidInput("body", "required when saving an existing note (the whole body is replaced); "
                                       "to change only pin, archive, kind, date or properties use updateNote")
        body = draft.body or ""
        if len(body.encode()) > MAX_BODY_BYTES:
            raise LimitExceeded(f"body: a note holds at most {MAX_BODY_BYTES} bytes", field="body")
        if draft.kind is not None and not is_kind(draft.kind):
            raise InvalidInput("kind", f"1-{MAX_KIND_LENGTH} characters, e.g. note, daily, moc, literature, meeting")
        try:
            slug = slugify(draft.slug or title)
        except ValueError as exc:
            raise InvalidInput("slug" if draft.slug else "title", str(exc)) from exc
        parsed = parse(body)
        metadata = frontmatter_properties(body)
        props: dict[str, Any] = {
            "slug": slug, "slugName": slug.rsplit("/", 1)[-1], "title": title, "titleLower": title.casefold(),
            "body": body, "bodySha256": sha256_hex(body.encode()), "frontmatter": json.dumps(metadata),
            "tags": list(parsed.unique_tags),
            **frontmatter_fields(metadata), **property_fields(metadata),
        }
        if own_save:
            # What the saving agent sees besides its own space: a personal note's wikilinks may bind to these teams'
            # items (services/wikilink_sync.py `link_owners`). A cascade (a rename's rewrite) keeps the stored ones.
            props["linkTeams"] = sorted(principal.team_ids) if principal.agent_id else []
        if draft.kind is not None:
            props["kind"] = draft.kind.strip()
        if draft.pinned is not None:
            props["pinned"] = draft.pinned
        if not isinstance(draft.note_date, Keep):
            props["noteDate"] = draft.note_date
        if draft.archived is not None:
            props["archivedAt"] = datetime.now(UTC) if draft.archived else None
        if draft.vault_path is not None:
            props["vaultPath"] = draft.vault_path
        owner = None if draft.id else owner_of(draft.scope, draft.agent_id, draft.team_id)
        if owner is not None and not principal.may_write(owner):
            raise Forbidden(f"you cannot write to {owner.key}")
        return _Prepared(index, draft, props, parsed, owner)

    async def _save_batch_tx(
        self, tx: AsyncManagedTransaction, principal: Principal, batch: list[_Prepared]
    ) -> list[SaveResult | AppError]:
        """The outcomes of a prefix of `batch` (all of it unless a draft renames a note: a rename starts a batch,
        so links saved before it bind to the old name, as one by one). Slugs are claimed and released in draft
        order, as one save after another would."""
        tenant = principal.tenant_id
        ids = sorted({item.draft.id for item in batch if item.draft.id})
        stored = await cypher.notes_by_ids(tx, tenant, ids) if ids else {}
        outcomes: list[SaveResult | AppError | None] = []
        plans: list[tuple[int, Note | None, Owner, str]] = []  # position, stored note, owner, id
        for position, item in enumerate(batch):
            draft = item.draft
            existing = stored.get(draft.id) if draft.id else None
            if existing is not None and draft.slug is None:
                slug = slug_in_place(existing, item.props["title"])
                item.props.update(slug=slug, slugName=slug.rsplit("/", 1)[-1])
            if existing is not None and existing.slug != item.props["slug"] and position > 0:
                break
            outcomes.append(None)
            if draft.id and (existing is None or not principal.may_write(existing.owner)):
                outcomes[position] = NotFound(f"no note with id {draft.id!r}", id=draft.id)
            elif existing is not None and draft.if_body_sha256 and existing.body_sha256 != draft.if_body_sha256:
                outcomes[position] = Conflict("the note changed since you read it; reload and save again",
                                              id=existing.id)
            else:
                owner = existing.owner if existing else item.owner
                assert owner is not None  # set by _prepare for new notes, taken from the stored note otherwise
                plans.append((position, existing, owner, existing.id if existing else f"note_{uuid.uuid4().hex}"))
        keys = sorted({(owner.key, batch[position].props["slug"]) for position, _, owner, _ in plans})
        holders = await cypher.slug_holders(tx, tenant, keys) if keys else {}
        creates: list[tuple[int, dict[str, Any]]] = []
        updates: list[tuple[int, dict[str, Any]]] = []
        for position, existing, owner, note_id in plans:
            props = batch[position].props
            key = (owner.key, props["slug"])
            holder = holders.get(key)
            if holder is not None and holder[0] != note_id:
                outcomes[position] = Conflict(
                    f"the slug {props['slug']!r} belongs to the note {holder[1]!r} ({holder[0]})",
                    id=holder[0], slug=props["slug"])
                continue
            if existing is not None and existing.slug != props["slug"] and holders.get(
                    (owner.key, existing.slug), ("",))[0] == note_id:
                del holders[(owner.key, existing.slug)]  # a rename frees the old slug for the drafts after it
            holders[key] = (note_id, props["title"])
            if (existing is not None and existing.vault_path and existing.title != props["title"]
                    and batch[position].draft.vault_path is None):
                # Renamed: the file it was imported from no longer names it. As Obsidian renames the file, an
                # export names it by its new title, in its slug's folders (interop/names.py).
                props = {**props, "vaultPath": None}
            if existing is None:
                creates.append((position, {"id": note_id, "scope": owner.scope.value, "agentId": owner.agent_id,
                                           "teamId": owner.team_id, "ownerKey": owner.key,
                                           "props": {"pinned": False, "kind": "note", **props}}))
            elif existing.body_sha256 == props["bodySha256"]:
                # Unchanged body: refresh metadata only; no re-link, no re-index.
                meta = {k: v for k, v in props.items() if k not in ("body", "bodySha256", "tags", "frontmatter")}
                updates.append((position, {"id": note_id, "props": meta}))
            else:
                stale = {key: None for key in property_fields(existing.frontmatter) if key not in props}
                updates.append((position, {"id": note_id, "props": {**props, **stale}}))
        # A rename's old name, before the note changes: a save binding to that name meanwhile finishes first (its
        # edge is then followed below) or waits and finds the name gone.
        await lock_names(tx, tenant, [key_name(existing.slug) for position, existing, _, _ in plans
                                      if existing is not None and existing.slug != batch[position].props["slug"]])
        notes: dict[int, Note] = {}
        # Updates first: a slug a rename frees may be taken by a new note of the batch, never the other way round.
        if updates:
            rows = [row for _, row in updates]
            notes.update(zip((p for p, _ in updates), await cypher.update_notes(tx, tenant, rows), strict=True))
        if creates:
            rows = [row for _, row in creates]
            created = await cypher.create_notes(tx, tenant, principal.agent_id, rows)
            notes.update(zip((p for p, _ in creates), created, strict=True))
        existing_at = {position: existing for position, existing, _, _ in plans}
        jobs: list[tuple[int, bool, LinkJob]] = []
        for position in sorted(notes):
            note, existing = notes[position], existing_at[position]
            body_changed = existing is None or existing.body_sha256 != note.body_sha256
            renamed = existing is None or existing.slug != note.slug
            # A rename re-keys the note's own links even with the body unchanged: `[[#Heading]]` and `./` links
            # are keyed by its slug.
            links = batch[position].parsed.all_links if body_changed or renamed else None
            # A new kind may make it a target it was not (a person, for a meeting's ATTENDED ghosts).
            binds = renamed or (existing is not None and existing.kind != note.kind)
            jobs.append((position, body_changed, LinkJob(note, links, bind_own_refs=binds)))
        syncs = await sync_wikilinks_many(tx, [job for _, _, job in jobs])
        for (position, body_changed, job), sync in zip(jobs, syncs, strict=True):
            assert isinstance(job.item, Note)
            existing = existing_at[position]
            outcomes[position] = SaveResult(note=job.item, created=existing is None, body_changed=body_changed,
                                            sync=sync, renamed=existing is not None and existing.slug != job.item.slug)
        return [outcome for outcome in outcomes if outcome is not None]

    async def _write_batch_tx(
        self, tx: AsyncManagedTransaction, principal: Principal, batch: list[_Prepared],
        after: AfterSave | None = None, defer: bool = False,
    ) -> list[SaveResult | AppError]:
        """`_save_batch_tx`, then, when its first draft renamed a note, the links to the old name follow it in the
        same transaction (a rename only ever comes first in a batch); then `after`, for a save of one; then, with
        `defer`, the notes to index are queued for the workers."""
        outcomes = await self._save_batch_tx(tx, principal, batch)
        first = outcomes[0] if outcomes else None
        if isinstance(first, SaveResult) and first.renamed:
            rewritten = await follow_rename(tx, principal, first.note, batch[0].draft.rewrite_links,
                                            self._save_drafts_tx, self.files)
            own = next((note for note in rewritten if note.id == first.note.id), first.note)  # it linked to itself
            outcomes[0] = replace(first, note=own, rewritten=rewritten)
        if after is not None and isinstance(outcomes[0], SaveResult):
            await after(tx, outcomes[0].note)
        if defer and self.indexer is not None:
            todo = sorted(_to_index(outcomes))
            if todo:
                await note_index.mark_pending(tx, principal.tenant_id, todo)
        return outcomes

    async def _save_drafts_tx(self, tx: AsyncManagedTransaction, principal: Principal,
                              drafts: list[NoteDraft]) -> list[Note]:
        """Save drafts of existing notes inside `tx`, whoever owns them: the cascade of a write the caller may make
        (a rename's link rewrites)."""
        everyone = Principal(tenant_id=principal.tenant_id, agent_id=principal.agent_id, sees_all_scopes=True)
        items = [self._prepare(index, everyone, draft, own_save=False) for index, draft in enumerate(drafts)]
        saved: list[Note] = []
        for outcome in await self._save_batch_tx(tx, everyone, items) if items else []:
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

    async def find(self, principal: Principal, note_id: str) -> Note | None:
        note = await self.graph.read(cypher.note_by_id, principal.tenant_id, note_id)
        return note if note is not None and principal.may_read(note.owner) else None

    async def get(self, principal: Principal, note_id: str) -> Note:
        note = await self.find(principal, note_id)
        if note is None:
            raise NotFound(f"no note with id {note_id!r}", id=note_id)
        return note

    async def get_by_slug(self, principal: Principal, slug: str) -> Note:
        prefer = f"agent:{principal.agent_id}" if principal.agent_id else "shared"
        note = await self.graph.read(
            cypher.note_by_slug, principal.tenant_id, slug, principal.visible_owner_keys(), prefer
        )
        if note is None:
            raise NotFound(f"no note with slug {slug!r}", slug=slug)
        return note

    async def find_by_slugs(self, principal: Principal, slugs: Sequence[str]) -> dict[str, Note]:
        """For each slug, the note `get_by_slug` would give (absent when there is none), in one statement."""
        prefer = f"agent:{principal.agent_id}" if principal.agent_id else "shared"
        return await self.graph.read(
            cypher.notes_by_slugs, principal.tenant_id, list(slugs), principal.visible_owner_keys(), prefer
        )

    async def page(self, principal: Principal, filters: NoteFilter, first: int | None, after: str | None,
                   last: int | None = None, before: str | None = None) -> Page[Note]:
        """Notes, most recently updated first, between the cursors: the first `first` or the last `last`."""
        span = window(first, after, last, before, self.max_page_size, timestamp_cursor)
        rows, total = await self.graph.read(cypher.notes_page_and_total, span.backward,
                                            **note_page_params(principal, filters, span))
        return span.page(rows, note_cursor, total)

    async def query(self, principal: Principal, filters: NoteFilter, where: Any, order_by: Any,
                    first: int | None, after: str | None) -> Page[Note]:
        """A Bases-style property query (services/note_query.py): the notes matching the list filters and
        `where`, sorted by `order_by` (nulls last) then the newest first. Its cursors are positions: a note saved
        meanwhile may shift a later page by one."""
        tree, sorts = parse_where(where), parse_order(order_by)
        limit = page_size(first, self.max_page_size)
        offset = 0
        if after:
            marker, position = decode_cursor(after, 2)
            if marker != "at" or not position.isdigit():
                raise InvalidInput("after", "not a cursor this query returned")
            offset = int(position) + 1
        params = {**filter_params(principal, filters), "offset": offset, "limit": limit + 1}
        rows, total = await self.graph.read(query_page_and_total, tree, sorts, **params)
        items = [(encode_cursor("at", str(offset + i)), note) for i, note in enumerate(rows[:limit])]
        return Page(items=items, has_next_page=len(rows) > limit, total_count=total)

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

    async def get_writable(self, principal: Principal, note_id: str) -> Note:
        note = await self.get(principal, note_id)
        if not principal.may_write(note.owner):
            raise NotFound(f"no note with id {note_id!r}", id=note_id)
        return note

    async def tags(self, principal: Principal) -> list[tuple[str, int]]:
        return await self.graph.read(cypher.tag_counts, principal.tenant_id, principal.visible_owner_keys())
