"""Queries and mutations over notes: all writes go through the one save pipeline."""

from __future__ import annotations

from datetime import date
from typing import Annotated

import strawberry

from vaultgraph.errors import AppError, InvalidInput
from vaultgraph.schema.arguments import After, Before, First, Last, ScopeFilter
from vaultgraph.schema.context import Info
from vaultgraph.schema.prefetch import connection_asks, page_item_fields, prime, whole_reads
from vaultgraph.schema.types.inputs import (
    DeletePayload,
    NoteInput,
    NotePatch,
    SaveNoteError,
    SaveNotePayload,
    SaveNotesPayload,
    SaveNotesResult,
    owner_scope,
)
from vaultgraph.schema.types.items import Note, NoteConnection, TagCount
from vaultgraph.schema.types.meetings import MeetingInput
from vaultgraph.schema.types.note_query import NoteOrder, NoteWhere
from vaultgraph.services import note_drafts
from vaultgraph.services.meetings import Attendee, MeetingDraft
from vaultgraph.services.note_drafts import KEEP, DayField, NoteDraft, NoteFilter, SaveResult

DeferIndexing = Annotated[bool, strawberry.argument(description=(
    "True: answer once the note, its links and its full-text entry are committed (`indexed: false`), and let the "
    "enrichment workers embed it in the background, batched with other saves (enrichmentProgress.notesPending "
    "counts them; keyword search finds it meanwhile, and its search hits say `vectorAvailable: false`). False: "
    "embed it before answering."))]


def _payload(info: Info, result: SaveResult) -> SaveNotePayload:
    return SaveNotePayload(
        note=Note.from_domain(result.note), created=result.created, changed=result.body_changed,
        indexed=result.note.indexed, links_added=result.sync.added, links_removed=result.sync.removed,
        link_writes=result.sync.writes,
        rewritten_notes=[Note.from_domain(note) for note in result.readable_rewritten(info.context.principal)],
    )


def _day(value: object) -> DayField:
    """A date argument: left out (UNSET) keeps the stored date, null clears it."""
    return KEEP if value is strawberry.UNSET else value  # type: ignore[return-value]


async def note(
    info: Info,
    id: Annotated[strawberry.ID | None, strawberry.argument(description="The note's id.")] = None,
    slug: Annotated[str | None, strawberry.argument(description="Its slug (the [[wikilink]] target).")] = None,
) -> Note | None:
    """One note, by id or by slug: exactly one of them (INVALID_INPUT otherwise); NOT_FOUND when there is none
    you can see."""
    ctx = info.context
    if (id is None) == (slug is None):
        raise InvalidInput("id", "give exactly one of `id` or `slug`")
    asks = connection_asks(info.selected_fields)
    if asks:  # the note and the link connections it is asked for: one statement
        found, answers = await whole_reads(ctx.services).note(
            ctx.principal, asks, id=str(id) if id is not None else None, slug=slug)
        prime(ctx.loaders, found.id, asks, answers)
        return Note.from_domain(found)
    if id is not None:
        return Note.from_domain(await ctx.services.notes.get(ctx.principal, str(id)))
    return Note.from_domain(await ctx.services.notes.get_by_slug(ctx.principal, str(slug)))


async def notes(
    info: Info,
    scope: ScopeFilter = None,
    kind: Annotated[str | None, strawberry.argument(description="Only notes of this kind (note, daily, moc…).")] = None,
    tag: Annotated[str | None, strawberry.argument(description="Only notes carrying this tag (without `#`).")] = None,
    pinned: Annotated[bool | None, strawberry.argument(description="Only pinned (true) or unpinned (false).")] = None,
    include_archived: Annotated[bool, strawberry.argument(description="Archived notes too.")] = False,
    first: First = None,
    after: After = None,
    last: Last = None,
    before: Before = None,
    where: Annotated[NoteWhere | None, strawberry.argument(description=(
        "A Bases-style property query over front-matter properties and note fields, with the filters above; "
        "INVALID_INPUT naming the part at fault for an unknown operator, over 5 levels or over 20 conditions."
    ))] = None,
    order_by: Annotated[list[NoteOrder] | None, strawberry.argument(description=(
        "Sort by up to 5 properties or fields (nulls last), then the newest first. With `where` or `orderBy`, "
        "cursors are positions in the result."))] = None,
) -> NoteConnection:
    """Notes you can see, most recently updated first, a page at a time (Relay cursor connection)."""
    ctx = info.context
    filters = NoteFilter(scope=scope, kind=kind, tag=tag, pinned=pinned, include_archived=include_archived)
    if where is not None or order_by is not None:
        if last is not None or before is not None:
            raise InvalidInput("last", "a property query (where, orderBy) pages forward only: use first and after")
        return NoteConnection.from_page(await ctx.services.notes.query(
            ctx.principal, filters, where.as_tree() if where is not None else None,
            [key.as_tree() for key in order_by] if order_by is not None else None, first, after))
    # The page, its total and the link connections its notes are asked for: one statement.
    asks = connection_asks(page_item_fields(info.selected_fields))
    page, answers = await whole_reads(ctx.services).notes_page(ctx.principal, filters, first, after, asks, last,
                                                               before)
    for note_id, note_answers in answers.items():
        prime(ctx.loaders, note_id, asks, note_answers)
    return NoteConnection.from_page(page)


async def tags(info: Info) -> list[TagCount]:
    """Every tag of the active notes you can see, with how many notes carry it."""
    ctx = info.context
    counts = await ctx.services.notes.tags(ctx.principal)
    return [TagCount(tag=tag, count=count) for tag, count in counts]


async def save_note(
    info: Info,
    input: Annotated[NoteInput, strawberry.argument(description="A new note, or the whole of an existing one.")],
    rewrite_links: Annotated[bool, strawberry.argument(description=(
        "When the save renames the note (its slug changes): rewrite every [[link]] to the old name in the linking "
        "notes' bodies, in the same transaction (alias, heading and embed kept); false leaves those bodies alone "
        "and their links become ghosts of the old name."))] = True,
    defer_indexing: DeferIndexing = False,
) -> SaveNotePayload:
    """Create or replace a note: slug, frontmatter, tags and [[wikilinks]] are kept in step in one transaction.
    INVALID_INPUT for a bad field, LIMIT_EXCEEDED for a body over 5 MB, CONFLICT for a taken slug or a stale
    `ifBodySha256`, NOT_FOUND for an id you cannot write."""
    ctx = info.context
    draft = _draft(input, rewrite_links)
    return _payload(info, await ctx.services.notes.save(ctx.principal, draft, defer=defer_indexing))


async def save_notes(
    info: Info,
    inputs: Annotated[list[NoteInput], strawberry.argument(description=(
        "At most 100 notes (LIMIT_EXCEEDED beyond, and nothing is written), each as saveNote's `input`; saved in "
        "this order, so a later input may link to or replace an earlier one."))],
    rewrite_links: Annotated[bool, strawberry.argument(description=(
        "As saveNote's, for every input that renames a note."))] = True,
    defer_indexing: DeferIndexing = False,
) -> SaveNotesPayload:
    """Save up to 100 notes through the save pipeline in one transaction (a rename among them starts another, so
    links saved before it bind to the old name, as one save after another would), then index them in one
    embedding call. The end state is that of saving them one by one; an input saveNote would refuse is refused
    here with the same error, in its result, and changes nothing, while the others are saved."""
    ctx = info.context
    drafts = [_draft(i, rewrite_links) for i in inputs]
    outcomes = await ctx.services.notes.save_inputs(ctx.principal, drafts, defer=defer_indexing)
    results = [
        SaveNotesResult(index=index, saved=None, error=SaveNoteError(
            code=outcome.code, message=outcome.message, field=outcome.details.get("field")))
        if isinstance(outcome, AppError) else SaveNotesResult(index=index, saved=_payload(info, outcome), error=None)
        for index, outcome in enumerate(outcomes)
    ]
    failed = sum(1 for result in results if result.error is not None)
    return SaveNotesPayload(results=results, saved=len(results) - failed, failed=failed)


def _draft(input: NoteInput, rewrite_links: bool) -> NoteDraft:
    return NoteDraft(
        title=input.title, body=input.body, id=str(input.id) if input.id else None, slug=input.slug,
        kind=input.kind, pinned=input.pinned, note_date=_day(input.note_date), scope=owner_scope(input.scope),
        agent_id=input.agent_id, team_id=input.team_id, if_body_sha256=input.if_body_sha256,
        rewrite_links=rewrite_links,
    )


async def update_note(
    info: Info,
    id: Annotated[strawberry.ID, strawberry.argument(description="The note to change.")],
    input: Annotated[NotePatch, strawberry.argument(description="The fields to change; the others stay.")],
) -> Note:
    """Change some fields of a note (pin, archive, kind, date, front-matter properties) through the save pipeline;
    a field left out stays as it is. NOT_FOUND for a note you cannot write."""
    ctx = info.context
    if input.properties is not None and not isinstance(input.properties, dict):
        raise InvalidInput("properties", "an object of property names to values")
    patch = note_drafts.NotePatch(pinned=input.pinned, archived=input.archived, kind=input.kind,
                                  note_date=_day(input.note_date), properties=input.properties)
    return Note.from_domain((await ctx.services.notes.update(ctx.principal, str(id), patch)).note)


async def capture_note(
    info: Info, text: Annotated[str, strawberry.argument(description="The text of the bullet; not empty.")],
    day: Annotated[date | None, strawberry.argument(description=(
        "The day whose daily note gets the bullet (1900-01-01 to 2200-12-31, else INVALID_INPUT); today (UTC) "
        "when left out."))] = None,
) -> Note:
    """Append a timestamped bullet to the daily note `daily/YYYY-MM-DD` of `day` (today, UTC, when left out),
    created if needed; returns the daily note."""
    ctx = info.context
    return Note.from_domain((await ctx.services.days.capture(ctx.principal, text, day=day)).note)


async def daily_note(
    info: Info,
    day: Annotated[date, strawberry.argument(description=(
        "The calendar day, 1900-01-01 to 2200-12-31 (else INVALID_INPUT)."))],
) -> Note:
    """The day's daily note `daily/YYYY-MM-DD`: the one you already see (your own, else the shared one, else a
    team's), or a new one from the template in your own space (an agent's personal one, else shared). Concurrent
    first calls make one note."""
    ctx = info.context
    return Note.from_domain(await ctx.services.days.daily(ctx.principal, day))


async def ingest_meeting(
    info: Info, input: Annotated[MeetingInput, strawberry.argument(description="The meeting.")],
) -> Note:
    """Record a meeting as a note of kind `meeting` (slug meetings/<date>-<title>: ingesting it again updates
    it) with one ATTENDED edge per attendee, bound exactly (email or exact name of a person note) or left on a
    ghost of the name that binds when that person note is created. INVALID_INPUT naming the field."""
    ctx = info.context
    draft = MeetingDraft(title=input.title, day=input.date, body=input.body or "",
                         attendees=[Attendee(name=a.name, email=a.email) for a in input.attendees or []])
    return Note.from_domain(await ctx.services.meetings.ingest(ctx.principal, draft))


async def archive_note(
    info: Info,
    id: Annotated[strawberry.ID, strawberry.argument(description="The note.")],
    archived: Annotated[bool, strawberry.argument(description="True archives, false restores.")] = True,
) -> Note:
    """Archive (soft delete: the note, its links and chunks stay) or restore a note. NOT_FOUND for a note you
    cannot write."""
    ctx = info.context
    return Note.from_domain(await ctx.services.notes.archive(ctx.principal, str(id), archived))


async def delete_note(
    info: Info,
    id: Annotated[strawberry.ID, strawberry.argument(description="The note.")],
    hard: Annotated[bool, strawberry.argument(description="Remove it for good instead of archiving it.")] = False,
) -> DeletePayload:
    """Archive a note, or with `hard` remove it: its links out go, links to it turn back into ghosts. NOT_FOUND
    for a note you cannot write."""
    ctx = info.context
    note = await ctx.services.notes.get_writable(ctx.principal, str(id))
    if hard:
        await ctx.services.links.hard_delete(ctx.principal, note)
    else:
        await ctx.services.notes.archive(ctx.principal, note.id, True)
    return DeletePayload(id=id, deleted=True)
