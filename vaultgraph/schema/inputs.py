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


@strawberry.input(description="A note to create (no id) or update (with id), through the one save pipeline.")
class NoteInput:
    title: str
    body: str = ""
    id: strawberry.ID | None = None
    slug: str | None = strawberry.field(default=None, description="Defaults to the slug of the title.")
    kind: str = "note"
    pinned: bool | None = None
    note_date: date | None = None
    scope: Scope = Scope.SHARED
    agent_id: str | None = None
    team_id: str | None = None
    if_body_sha256: str | None = strawberry.field(
        default=None, description="Refuse with CONFLICT if the stored body changed since you read this hash.")


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


@strawberry.type
class DeletePayload:
    id: strawberry.ID
    deleted: bool
