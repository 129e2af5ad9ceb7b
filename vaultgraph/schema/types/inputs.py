"""Input and payload types of the public API."""

from __future__ import annotations

from datetime import date

import strawberry
from strawberry.scalars import JSON

from vaultgraph.schema.arguments import OWNER_AGENT, OWNER_SCOPE, OWNER_TEAM
from vaultgraph.schema.types.items import Note, Scope

# Input fields with a default are nullable, null meaning the default: a non-null field with a default is optional
# to a client yet typed as required, and code generators (ariadne-codegen) then demand it.
DEFAULT_SCOPE = Scope.SHARED


def owner_scope(scope: Scope | None) -> Scope:
    """The scope an input names; null is the default."""
    return DEFAULT_SCOPE if scope is None else scope


@strawberry.input(description="A new document: the file is written to the workspace and registered.")
class DocumentInput:
    path: str = strawberry.field(description="Workspace-relative path, e.g. `guides/setup.md`.")
    content: str = strawberry.field(description=(
        "The file's text, UTF-8, at most 50 MB (LIMIT_EXCEEDED beyond); the path's suffix must be a text format "
        "(.md .txt .json .yaml .csv .tsv .html…, UNSUPPORTED_FORMAT otherwise)."))
    title: str | None = strawberry.field(default=None, description=(
        "At most 500 characters; defaults to the first heading, else the file name."))
    doc_type: str | None = strawberry.field(default=None, description="Defaults from the file suffix.")
    scope: Scope | None = strawberry.field(default=DEFAULT_SCOPE, description=OWNER_SCOPE + " Null: SHARED.")
    agent_id: str | None = strawberry.field(default=None, description=OWNER_AGENT)
    team_id: str | None = strawberry.field(default=None, description=OWNER_TEAM)
    category: str | None = strawberry.field(default=None, description=(
        "A category of the workspace taxonomy (INVALID_INPUT for another); left out: enrichment classifies it."))
    metadata: JSON | None = strawberry.field(default=None, description=(
        "Any JSON object (INVALID_INPUT for another JSON value)."))


@strawberry.input(description="Metadata to change on a document; fields left out stay as they are.")
class DocumentUpdateInput:
    title: str | None = strawberry.field(default=None, description="1-500 characters; null or left out: unchanged.")
    doc_type: str | None = strawberry.field(default=None, description="The new docType; null or left out: unchanged.")
    category: str | None = strawberry.field(default=None, description=(
        "A category of the workspace taxonomy (INVALID_INPUT for another); null or left out: unchanged."))
    metadata: JSON | None = strawberry.field(default=None, description=(
        "A JSON object replacing the metadata whole; null or left out: unchanged."))
    content: str | None = strawberry.field(default=None, description=(
        "The file's new text, UTF-8, at most 50 MB (LIMIT_EXCEEDED beyond), for a document of a text format "
        "(UNSUPPORTED_FORMAT for an attachment): the file is rewritten and, if its text changed, the document is "
        "QUEUED for enrichment again. Null or left out: the file is untouched."))
    if_content_hash: str | None = strawberry.field(default=None, description=(
        "With `content`: the `contentHash` of the text you edited. CONFLICT, and nothing changes, when the file "
        "holds other text by now (someone saved it meanwhile); null or left out: the last write wins."))


@strawberry.input(description=(
    "A note to create (no id) or replace (with id), through the one save pipeline. Fields left out keep their "
    "stored value (kind, pinned and noteDate also follow the body's `kind`, `pinned`, `noteDate`/`date` "
    "front-matter properties); to change a field without resending the body, use `updateNote`."))
class NoteInput:
    title: str = strawberry.field(description="1-500 characters; the slug derives from it unless `slug` is given.")
    body: str | None = strawberry.field(default=None, description=(
        "The whole markdown body. Required with `id` (INVALID_INPUT otherwise: a missing body never blanks a note); "
        "a new note without one starts empty."))
    id: strawberry.ID | None = strawberry.field(default=None, description=(
        "The note to replace (NOT_FOUND if you cannot write it); left out: a new note (CONFLICT if its slug is "
        "taken)."))
    slug: str | None = strawberry.field(default=None, description=(
        "A new note: defaults to the slug of the title. An update that leaves it out keeps the stored slug, or "
        "renames the note in its folder when the title changes."))
    kind: str | None = strawberry.field(default=None, description=(
        "note, daily, moc, literature, meeting or any 1-40 characters; left out: the front matter's `kind`, else "
        "the stored kind, else note."))
    pinned: bool | None = strawberry.field(default=None, description=(
        "Pin or unpin; left out: the front matter's `pinned`, else the stored value, else false."))
    note_date: date | None = strawberry.field(default=strawberry.UNSET, description=(
        "The day the note is about; null clears it, left out keeps it (or takes the front matter's date)."))
    scope: Scope | None = strawberry.field(default=DEFAULT_SCOPE, description=OWNER_SCOPE + " Null: SHARED.")
    agent_id: str | None = strawberry.field(default=None, description=OWNER_AGENT)
    team_id: str | None = strawberry.field(default=None, description=OWNER_TEAM)
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
    from_: strawberry.ID = strawberry.field(name="from", description=(
        "The source item's id; NOT_FOUND if you cannot see it, FORBIDDEN if you cannot write it."))
    type: str = strawberry.field(description="REFERENCES, DEPENDS_ON, EXTENDS, RELATED, … or a new UPPER_SNAKE type.")
    to: strawberry.ID | None = strawberry.field(default=None, description=(
        "The target item's id; give exactly one of `to` and `ref` (INVALID_INPUT otherwise)."))
    ref: str | None = strawberry.field(default=None, description=(
        "A target by name, resolved like a [[wikilink]]; unmatched, the link is a ghost until the name appears."))
    label: str | None = strawberry.field(default=None, description="An alias to show for the link.")
    heading: str | None = strawberry.field(default=None, description="A heading of the target it points at.")
    context: str | None = strawberry.field(default=None, description="A snippet of source text around the link.")
    confidence: float | None = strawberry.field(default=None, description=(
        "0-1 for a guessed link (INVALID_INPUT outside); null for a certain one."))


@strawberry.type(description="What saveNote did: the note as saved, and how its links changed.")
class SaveNotePayload:
    note: Note = strawberry.field(description="The note as stored after the save.")
    created: bool = strawberry.field(description="True when the save made a new note.")
    changed: bool = strawberry.field(description="False when the body was unchanged: nothing re-linked or re-indexed.")
    indexed: bool = strawberry.field(description=(
        "False when the note's vector is not in place: its indexing was deferred (`deferIndexing`, the workers "
        "embed it soon) or no embedding model worked. Keyword-searchable either way."))
    links_added: int = strawberry.field(description="Links the body gained.")
    links_removed: int = strawberry.field(description="Links the body lost.")
    link_writes: int = strawberry.field(description="Edge writes Neo4j counted for this save.")
    rewritten_notes: list[Note] = strawberry.field(description=(
        "After a rename with `rewriteLinks`: the notes whose [[links]] to the old name were rewritten to the new "
        "one, with their new bodies (those you can read: the rename rewrites the others too)."))


@strawberry.type(description="Why one input of saveNotes was refused; that input changed nothing.")
class SaveNoteError:
    code: str = strawberry.field(description=(
        "What saveNote would answer in `extensions.code`: INVALID_INPUT, LIMIT_EXCEEDED, CONFLICT, NOT_FOUND, "
        "FORBIDDEN."))
    message: str = strawberry.field(description="What was wrong, for a person to act on.")
    field: str | None = strawberry.field(description="The input field at fault, when one is.")


@strawberry.type(description=(
    "One input of saveNotes, in the order sent: what its save did, or why it was refused (exactly one is set)."))
class SaveNotesResult:
    index: int = strawberry.field(description="Its 0-based position in `inputs`.")
    saved: SaveNotePayload | None = strawberry.field(description="What the save did; null when refused.")
    error: SaveNoteError | None = strawberry.field(description="Why it was refused; null when saved.")


@strawberry.type(description=(
    "What saveNotes did, input by input: a refused input is reported in its result and changes nothing; the "
    "others are saved."))
class SaveNotesPayload:
    results: list[SaveNotesResult] = strawberry.field(description="One per input, in the order sent.")
    saved: int = strawberry.field(description="Inputs saved (created, changed or unchanged).")
    failed: int = strawberry.field(description="Inputs refused, each with its `error`.")


@strawberry.type(description="What a delete removed.")
class DeletePayload:
    id: strawberry.ID = strawberry.field(description="The id of what was deleted (or archived, for a soft deleteNote).")
    deleted: bool = strawberry.field(description="Always true: a delete that cannot happen is an error instead.")
