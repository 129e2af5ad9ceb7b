"""Queries and mutations over notes: all writes go through the one save pipeline."""

from __future__ import annotations

from typing import Annotated

import strawberry

from vaultgraph.errors import InvalidInput
from vaultgraph.schema.arguments import After, Before, First, Last, ScopeFilter
from vaultgraph.schema.context import Info
from vaultgraph.schema.inputs import DeletePayload, NoteInput, NotePatch, SaveNotePayload, owner_scope
from vaultgraph.schema.prefetch import connection_asks, page_item_fields, prime, whole_reads
from vaultgraph.schema.types import Note, NoteConnection, TagCount
from vaultgraph.services import notes as service
from vaultgraph.services.notes import NoteDraft, NoteFilter, SaveResult


def _payload(info: Info, result: SaveResult) -> SaveNotePayload:
    return SaveNotePayload(
        note=Note.from_domain(result.note), created=result.created, changed=result.body_changed,
        indexed=result.note.indexed, links_added=result.sync.added, links_removed=result.sync.removed,
        link_writes=result.sync.writes,
        rewritten_notes=[Note.from_domain(note) for note in result.readable_rewritten(info.context.principal)],
    )


def _day(value: object) -> service.DayField:
    """A date argument: left out (UNSET) keeps the stored date, null clears it."""
    return service.KEEP if value is strawberry.UNSET else value  # type: ignore[return-value]


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
) -> NoteConnection:
    """Notes you can see, most recently updated first, a page at a time (Relay cursor connection)."""
    ctx = info.context
    filters = NoteFilter(scope=scope, kind=kind, tag=tag, pinned=pinned, include_archived=include_archived)
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
) -> SaveNotePayload:
    """Create or replace a note: slug, frontmatter, tags and [[wikilinks]] are kept in step in one transaction.
    INVALID_INPUT for a bad field, LIMIT_EXCEEDED for a body over 5 MB, CONFLICT for a taken slug or a stale
    `ifBodySha256`, NOT_FOUND for an id you cannot write."""
    ctx = info.context
    draft = NoteDraft(
        title=input.title, body=input.body, id=str(input.id) if input.id else None, slug=input.slug,
        kind=input.kind, pinned=input.pinned, note_date=_day(input.note_date), scope=owner_scope(input.scope),
        agent_id=input.agent_id, team_id=input.team_id, if_body_sha256=input.if_body_sha256,
        rewrite_links=rewrite_links,
    )
    return _payload(info, await ctx.services.notes.save(ctx.principal, draft))


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
    patch = service.NotePatch(pinned=input.pinned, archived=input.archived, kind=input.kind,
                              note_date=_day(input.note_date), properties=input.properties)
    return Note.from_domain((await ctx.services.notes.update(ctx.principal, str(id), patch)).note)


async def capture_note(
    info: Info, text: Annotated[str, strawberry.argument(description="The text of the bullet; not empty.")],
) -> Note:
    """Append a timestamped bullet to today's (UTC) daily note `daily/YYYY-MM-DD`, created if needed; returns
    the daily note."""
    ctx = info.context
    return Note.from_domain((await ctx.services.notes.capture(ctx.principal, text)).note)


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
