"""Input and payload types of the public API."""

from __future__ import annotations

from datetime import date

import strawberry
from strawberry.scalars import JSON

from vaultgraph.schema.types import Note, Scope


@strawberry.input(description="A new document: the file is written to the workspace and registered.")
class DocumentInput:
    path: str = strawberry.field(description="Workspace-relative path, e.g. `guides/setup.md`.")
    content: str
    title: str | None = None
    doc_type: str | None = strawberry.field(default=None, description="Defaults from the file suffix.")
    scope: Scope = Scope.SHARED
    agent_id: str | None = None
    team_id: str | None = None
    category: str | None = None
    metadata: JSON | None = None


@strawberry.input(description="Metadata to change on a document; fields left out stay as they are.")
class DocumentUpdateInput:
    title: str | None = None
    doc_type: str | None = None
    category: str | None = None
    metadata: JSON | None = None


@strawberry.input(description=(
    "A note to create (no id) or replace (with id), through the one save pipeline. Fields left out keep their "
    "stored value (kind, pinned and noteDate also follow the body's `kind`, `pinned`, `noteDate`/`date` "
    "front-matter properties); to change a field without resending the body, use `updateNote`."))
class NoteInput:
    title: str
    body: str | None = strawberry.field(default=None, description=(
        "The whole markdown body. Required with `id` (INVALID_INPUT otherwise: a missing body never blanks a note); "
        "a new note without one starts empty."))
    id: strawberry.ID | None = None
    slug: str | None = strawberry.field(default=None, description="Defaults to the slug of the title.")
    kind: str | None = strawberry.field(default=None, description=(
        "note, daily, moc, literature, meeting or any 1-40 characters; left out: the front matter's `kind`, else "
        "the stored kind, else note."))
    pinned: bool | None = None
    note_date: date | None = strawberry.field(default=strawberry.UNSET, description=(
        "The day the note is about; null clears it, left out keeps it (or takes the front matter's date)."))
    scope: Scope = Scope.SHARED
    agent_id: str | None = None
    team_id: str | None = None
    if_body_sha256: str | None = strawberry.field(
        default=None, description="Refuse with CONFLICT if the stored body changed since you read this hash.")


@strawberry.input(description=(
    "A partial update of a note: only the fields given change, the body and its links stay as they are unless "
    "`properties` edits its front matter."))
class NotePatch:
    pinned: bool | None = strawberry.field(default=None, description="Pin or unpin; null or left out: unchanged.")
    archived: bool | None = strawberry.field(default=None, description=(
        "Archive (soft delete: links and chunks stay) or restore; null or left out: unchanged."))
    kind: str | None = strawberry.field(default=None, description="1-40 characters; null or left out: unchanged.")
    note_date: date | None = strawberry.field(default=strawberry.UNSET, description=(
        "The day the note is about; null clears it, left out: unchanged."))
    properties: JSON | None = strawberry.field(default=None, description=(
        "Front-matter properties to set, as an object: each key given replaces that property, a null value "
        "deletes it, keys not given stay. Rewrites the front-matter block of the body (tags and [[links]] in it "
        "follow); `kind`, `pinned`, `noteDate`/`date` set those fields too."))


@strawberry.input(description="A manual link: to an item by id, or to a name (`ref`), which may be a ghost.")
class LinkInput:
    from_: strawberry.ID = strawberry.field(name="from")
    type: str = strawberry.field(description="REFERENCES, DEPENDS_ON, EXTENDS, RELATED, … or a new UPPER_SNAKE type.")
    to: strawberry.ID | None = None
    ref: str | None = None
    label: str | None = None
    heading: str | None = None
    context: str | None = None
    confidence: float | None = None


@strawberry.type
class SaveNotePayload:
    note: Note
    created: bool
    changed: bool = strawberry.field(description="False when the body was unchanged: nothing re-linked or re-indexed.")
    indexed: bool
    links_added: int
    links_removed: int
    link_writes: int = strawberry.field(description="Edge writes Neo4j counted for this save.")
    rewritten_notes: list[Note] = strawberry.field(description=(
        "After a rename with `rewriteLinks`: the notes whose [[links]] to the old name were rewritten to the new "
        "one, with their new bodies (those you can read: the rename rewrites the others too)."))


@strawberry.type
class DeletePayload:
    id: strawberry.ID
    deleted: bool
