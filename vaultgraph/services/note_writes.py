"""One batch of note drafts written in one transaction: the checks that need no graph (`prepare_draft`), then
`save_batch_tx`, which claims the slugs in draft order, creates and updates the notes, and syncs their wikilinks.
services/notes.py runs the batches, a rename's cascade and the indexing around them."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note, Owner, Principal
from vaultgraph.errors import AppError, Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound
from vaultgraph.graph import notes as cypher
from vaultgraph.graph.note_query import property_fields
from vaultgraph.graph.wikilinks import lock_names
from vaultgraph.services.documents import owner_of
from vaultgraph.services.note_drafts import (
    MAX_KIND_LENGTH,
    Keep,
    NoteDraft,
    SaveResult,
    frontmatter_fields,
    frontmatter_properties,
    is_kind,
)
from vaultgraph.services.wikilink_sync import LinkJob, sync_wikilinks_many
from vaultgraph.text.resolve import key_name
from vaultgraph.text.slugify import slugify
from vaultgraph.text.wikilinks import ParsedText, parse
from vaultgraph.workspace import sha256_hex

MAX_BODY_BYTES = 5 * 1024 * 1024
MAX_TITLE_LENGTH = 500


@dataclass(frozen=True, slots=True)
class PreparedDraft:
    """A draft that passed the checks that need no graph: what its note will hold."""

    index: int  # its position among the drafts of `save_many`
    draft: NoteDraft
    props: dict[str, Any]
    parsed: ParsedText
    owner: Owner | None  # a new note's owner (an existing note keeps its own)


def batches(prepared: list[PreparedDraft], size: int) -> Iterator[list[PreparedDraft]]:
    """Runs of at most `size` drafts in which no note id comes twice (a batch reads each note once)."""
    batch: list[PreparedDraft] = []
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



def prepare_draft(index: int, principal: Principal, draft: NoteDraft, own_save: bool = True) -> PreparedDraft:
    """The checks a draft passes before the graph is asked (INVALID_INPUT, LIMIT_EXCEEDED, FORBIDDEN), and the
    properties its note will hold."""
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
    return PreparedDraft(index, draft, props, parsed, owner)


Plan = tuple[int, Note | None, Owner, str]  # a draft's position, its stored note (None: new), owner and id


async def save_batch_tx(
    tx: AsyncManagedTransaction, principal: Principal, batch: list[PreparedDraft], pending: bool = False
) -> list[SaveResult | AppError]:
    """The outcomes of a prefix of `batch` (all of it unless a draft renames a note: a rename starts a batch,
    so links saved before it bind to the old name, as one by one). Slugs are claimed and released in draft
    order, as one save after another would. With `pending`, the new notes are created queued for the workers'
    indexing (graph/note_index.py `mark_pending`)."""
    tenant = principal.tenant_id
    ids = sorted({item.draft.id for item in batch if item.draft.id})
    stored = await cypher.notes_by_ids(tx, tenant, ids) if ids else {}
    outcomes: list[SaveResult | AppError | None] = []
    plans: list[Plan] = []
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
    if plans and all(existing is None for _, existing, _, _ in plans):
        notes = await _create_new(tx, principal, batch, plans, pending, outcomes)
    else:
        notes = await _write_plans(tx, principal, batch, plans, pending, outcomes)
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
        jobs.append((position, body_changed, LinkJob(note, links, bind_own_refs=binds, new=existing is None)))
    syncs = await sync_wikilinks_many(tx, [job for _, _, job in jobs])
    for (position, body_changed, job), sync in zip(jobs, syncs, strict=True):
        assert isinstance(job.item, Note)
        existing = existing_at[position]
        outcomes[position] = SaveResult(note=job.item, created=existing is None, body_changed=body_changed,
                                        sync=sync, renamed=existing is not None and existing.slug != job.item.slug)
    return [outcome for outcome in outcomes if outcome is not None]


def _slug_taken(slug: str, holder: tuple[str, str]) -> Conflict:
    return Conflict(f"the slug {slug!r} belongs to the note {holder[1]!r} ({holder[0]})", id=holder[0], slug=slug)


def _create_row(note_id: str, owner: Owner, props: dict[str, Any]) -> dict[str, Any]:
    return {"id": note_id, "scope": owner.scope.value, "agentId": owner.agent_id, "teamId": owner.team_id,
            "ownerKey": owner.key, "props": {"pinned": False, "kind": "note", **props}}


async def _create_new(
    tx: AsyncManagedTransaction, principal: Principal, batch: list[PreparedDraft], plans: list[Plan],
    pending: bool, outcomes: list[SaveResult | AppError | None],
) -> dict[int, Note]:
    """`_write_plans` for plans that are all new notes, in one statement where it takes two (the slugs' holders,
    then the notes): the first draft of each (owner, slug) is created unless a stored note holds that slug; a
    later one conflicts with whichever holds it then, as `_write_plans` decides."""
    first: dict[tuple[str, str], int] = {}  # (owner, slug) -> its row
    rows: list[dict[str, Any]] = []
    for position, _, owner, note_id in plans:
        props = batch[position].props
        if (owner.key, props["slug"]) not in first:
            first[(owner.key, props["slug"])] = len(rows)
            rows.append(_create_row(note_id, owner, props))
    answers = await cypher.create_unheld_notes(tx, principal.tenant_id, principal.agent_id, rows, pending)
    notes: dict[int, Note] = {}
    for position, _, owner, note_id in plans:
        slug = batch[position].props["slug"]
        answer = answers[first[(owner.key, slug)]]
        if isinstance(answer, Note) and answer.id == note_id:
            notes[position] = answer
        else:
            outcomes[position] = _slug_taken(slug, (answer.id, answer.title) if isinstance(answer, Note) else answer)
    return notes


async def _write_plans(
    tx: AsyncManagedTransaction, principal: Principal, batch: list[PreparedDraft], plans: list[Plan],
    pending: bool, outcomes: list[SaveResult | AppError | None],
) -> dict[int, Note]:
    """The notes of the plans that keep their slug or take a free one, by position; the others' outcomes are
    CONFLICT. Slugs are claimed and released in plan order."""
    tenant = principal.tenant_id
    keys = sorted({(owner.key, batch[position].props["slug"]) for position, _, owner, _ in plans})
    holders = await cypher.slug_holders(tx, tenant, keys) if keys else {}
    creates: list[tuple[int, dict[str, Any]]] = []
    updates: list[tuple[int, dict[str, Any]]] = []
    for position, existing, owner, note_id in plans:
        props = batch[position].props
        key = (owner.key, props["slug"])
        holder = holders.get(key)
        if holder is not None and holder[0] != note_id:
            outcomes[position] = _slug_taken(props["slug"], holder)
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
            creates.append((position, _create_row(note_id, owner, props)))
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
        created = await cypher.create_notes(tx, tenant, principal.agent_id, rows, pending)
        notes.update(zip((p for p, _ in creates), created, strict=True))
    return notes
