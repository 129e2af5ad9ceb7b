"""What a note save is given and gives back: drafts, partial updates, list filters, results, and the note fields
the front matter sets. Plain data and pure functions; the pipeline itself is services/notes.py."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from vaultgraph.domain import Note, Principal, Scope
from vaultgraph.errors import InvalidInput
from vaultgraph.services.wikilink_sync import LinkSync
from vaultgraph.text.frontmatter import FrontmatterError, parse_frontmatter

MAX_KIND_LENGTH = 40


class Keep(enum.Enum):
    """A draft field left out: the stored value stays (for a field where None means "clear")."""

    KEEP = "keep"


KEEP = Keep.KEEP
DayField = date | None | Keep


@dataclass(frozen=True, slots=True)
class NoteDraft:
    """What a save writes. The whole body is replaced; a field left out (None, KEEP) keeps the stored value, or
    for kind, noteDate and pinned takes the body's front-matter property (`kind`, `noteDate` or `date`, `pinned`)
    when it has one. An explicit value wins over the front matter."""

    title: str
    body: str | None = None  # None: "" for a new note; refused for an existing one (it would blank it)
    id: str | None = None
    slug: str | None = None
    kind: str | None = None
    pinned: bool | None = None
    note_date: DayField = KEEP  # None clears the date
    archived: bool | None = None
    scope: Scope = Scope.SHARED
    agent_id: str | None = None
    team_id: str | None = None
    if_body_sha256: str | None = None  # optimistic concurrency: refuse when the stored body changed meanwhile
    vault_path: str | None = None  # the file this note came from in an Obsidian vault (kept for export)
    rewrite_links: bool = True  # a rename rewrites the [[links]] to this note in their bodies; else they go ghost


@dataclass(frozen=True, slots=True)
class NotePatch:
    """A partial update: only the fields given change. `properties` sets the given front-matter keys (None
    deletes one) and keeps the others; the body is otherwise untouched."""

    pinned: bool | None = None
    archived: bool | None = None
    kind: str | None = None
    note_date: DayField = KEEP
    properties: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class NoteFilter:
    scope: Scope | None = None
    kind: str | None = None
    tag: str | None = None
    pinned: bool | None = None
    include_archived: bool = False


@dataclass(frozen=True, slots=True)
class SaveResult:
    note: Note
    created: bool
    body_changed: bool
    sync: LinkSync = field(default_factory=LinkSync)
    renamed: bool = False  # an existing note whose slug changed
    rewritten: tuple[Note, ...] = ()  # notes whose links to this one the rename rewrote (every owner)

    def readable_rewritten(self, principal: Principal) -> list[Note]:
        """The rewritten notes `principal` may read (the rename rewrites every owner's, and lists those)."""
        return [note for note in self.rewritten if principal.may_read(note.owner)]


def is_kind(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip()) and len(value) <= MAX_KIND_LENGTH


def _as_date(value: object) -> date | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(value).date()
    except ValueError:
        return None


def frontmatter_fields(metadata: dict[str, Any]) -> dict[str, Any]:
    """The note fields the front matter sets (Obsidian keeps them as properties; an exported note carries them):
    `kind` (a 1-40 character string), `noteDate` or else `date` (an ISO date), `pinned` (a boolean). A value of
    another shape stays a property only."""
    fields: dict[str, Any] = {}
    if is_kind(kind := metadata.get("kind")):
        fields["kind"] = str(kind).strip()
    for key in ("noteDate", "date"):
        if (day := _as_date(metadata.get(key))) is not None:
            fields["noteDate"] = day
            break
    if isinstance(pinned := metadata.get("pinned"), bool):
        fields["pinned"] = pinned
    return fields


def frontmatter_properties(body: str) -> dict[str, Any]:
    """The body's frontmatter properties; INVALID_INPUT on `body`, with the line (`extensions.line`), if unreadable."""
    try:
        return parse_frontmatter(body)
    except FrontmatterError as exc:
        error = InvalidInput("body", f"the frontmatter at line {exc.line}: {exc.reason}")
        error.details["line"] = exc.line
        raise error from exc
