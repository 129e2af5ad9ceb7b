"""Meetings, Octipus's way: a note of kind `meeting` plus one ATTENDED edge per person who was in the room.

The slug is the date and the title (`meetings/2026-12-01-weekly-sync`), so ingesting the same meeting again (a
morning calendar import) updates one note instead of adding a copy. An attendee binds exactly or not at all: to
the person note (kind `person`) whose front-matter `email` is theirs, else to the person note their name names
(the name's slug, as a [[link]] to it would resolve); otherwise the edge waits on a ghost keyed by that slug, and
the ordinary incoming pass of the save pipeline binds it when the person note is created (or a note of that name
becomes a person), for every past meeting at once (services/wikilink_sync.py, `BINDS_ONLY_TO_KIND`). "Ada" never
binds to "Ada Lovelace": a wrong edge on a meeting record is worse than an unresolved one.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import partial
from typing import Any

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note, Principal, Scope
from vaultgraph.errors import Conflict, InvalidInput, NotFound
from vaultgraph.graph import meetings as cypher
from vaultgraph.graph.links import WriteCount
from vaultgraph.graph.wikilinks import create_links, move_edges
from vaultgraph.services.days import check_day
from vaultgraph.services.notes import NoteDraft, NoteService
from vaultgraph.services.wikilink_sync import resolve_refs, target_owners
from vaultgraph.text.properties import PropertiesError, set_properties
from vaultgraph.text.slugify import slugify

MAX_ATTENDEES = 100
MAX_NAME_LENGTH = 200
MAX_EMAIL_LENGTH = 320
EDGE = "ATTENDED"


@dataclass(frozen=True, slots=True)
class Attendee:
    name: str
    email: str | None = None


@dataclass(frozen=True, slots=True)
class MeetingDraft:
    title: str
    day: date
    attendees: Sequence[Attendee] = ()
    body: str = ""


def attendee_key(name: str) -> str:
    """The key an attendee's edge is bound by: their name's slug, one segment (a `/` in a name is no folder)."""
    return slugify(name.replace("/", " "))


def meeting_slug(day: date, title: str) -> str:
    return f"meetings/{day.isoformat()}-{slugify(title.replace('/', ' '))}"


def _checked(draft: MeetingDraft) -> dict[str, Attendee]:
    """The attendees by key (one edge each: the first spelling wins), once the draft passed every check."""
    if not draft.title.strip():
        raise InvalidInput("title", "must not be empty")
    check_day(draft.day, "date")
    if len(draft.attendees) > MAX_ATTENDEES:
        raise InvalidInput("attendees", f"at most {MAX_ATTENDEES}")
    by_key: dict[str, Attendee] = {}
    for i, attendee in enumerate(draft.attendees):
        name = attendee.name.strip()
        if not 1 <= len(name) <= MAX_NAME_LENGTH:
            raise InvalidInput(f"attendees[{i}].name", f"1-{MAX_NAME_LENGTH} characters")
        try:
            key = attendee_key(name)
        except ValueError as exc:
            raise InvalidInput(f"attendees[{i}].name", "needs at least one letter or digit") from exc
        email = attendee.email.strip().lower() if attendee.email else None
        if email is not None and (len(email) > MAX_EMAIL_LENGTH or "@" not in email.strip("@")):
            raise InvalidInput(f"attendees[{i}].email", "an email address, e.g. ada@example.com")
        by_key.setdefault(key, Attendee(name, email))
    return by_key


class MeetingService:
    def __init__(self, notes: NoteService) -> None:
        self.notes = notes

    async def ingest(self, principal: Principal, draft: MeetingDraft) -> Note:
        """Save the meeting note (new, or the one of the same date and title) and its attendee edges, in one
        transaction: a refused or failed call writes nothing."""
        attendees = _checked(draft)
        try:
            body = set_properties(draft.body, {"kind": "meeting", "date": draft.day.isoformat(),
                                               "attendees": [a.name for a in attendees.values()]})
        except PropertiesError as exc:
            raise InvalidInput("body", str(exc)) from exc
        slug = meeting_slug(draft.day, draft.title)
        after = partial(self._attend_tx, principal, attendees)
        for attempt in range(2):
            try:
                existing: Note | None = await self.notes.get_by_slug(principal, slug)
            except NotFound:
                existing = None
            note = NoteDraft(
                title=draft.title.strip(), body=body, slug=slug, kind="meeting", note_date=draft.day,
                id=existing.id if existing else None, agent_id=principal.agent_id,
                scope=Scope.PERSONAL if principal.agent_id else Scope.SHARED,
            )
            try:
                return (await self.notes.save(principal, note, after)).note
            except Conflict:
                if existing is not None or attempt:  # not a concurrent first ingest of the same meeting
                    raise
        raise AssertionError("unreachable")

    async def _attend_tx(self, principal: Principal, attendees: dict[str, Attendee], tx: AsyncManagedTransaction,
                         note: Note) -> None:
        """The meeting's ATTENDED edges made equal to `attendees`: those no longer listed go, new ones bind (or
        go to their ghost), and a ghost edge that now binds (the person exists, or their email is given) moves."""
        tenant = note.tenant_id
        await cypher.remove_attended(tx, tenant, note.id, list(attendees))
        stored = {row["key"]: row for row in await cypher.attended_edges(tx, tenant, note.id)}
        open_keys = [key for key in attendees if key not in stored or stored[key]["ghost"]]
        if not open_keys:
            return
        targets = await self._targets(tx, note, {key: attendees[key] for key in open_keys})
        writes = WriteCount()
        moves = [{"sourceId": note.id, "linkId": stored[key]["linkId"], "targetId": targets[key], "reclaim": False}
                 for key in open_keys if key in stored and key in targets]
        if moves:
            await move_edges(tx, writes, tenant, moves)
        resolved: list[dict[str, Any]] = []
        ghosted: list[dict[str, Any]] = []
        for key in open_keys:
            if key in stored:
                continue
            attendee = attendees[key]
            props = {"id": f"lnk_{uuid.uuid4().hex}", "ref": attendee.name, "key": key, "email": attendee.email,
                     "origin": "agent" if principal.agent_id else "user", "createdByAgentId": principal.agent_id}
            row = {"sourceId": note.id, "type": EDGE, "key": key, "targetId": targets.get(key), "props": props}
            (resolved if key in targets else ghosted).append(row)
        await create_links(tx, writes, tenant, resolved, ghosted)

    async def _targets(self, tx: AsyncManagedTransaction, note: Note, attendees: dict[str, Attendee]) -> dict[str, str]:
        """key → the person note each attendee binds to: by email first, else by their name's slug."""
        owners = target_owners(note)
        emails = sorted({a.email for a in attendees.values() if a.email})
        by_email: dict[str, str] = {}
        if emails:
            rank = {owner: i for i, owner in enumerate([note.owner.key, "shared"])}
            rows = await cypher.persons_by_email(tx, note.tenant_id, emails, owners)
            for row in sorted(rows, key=lambda r: (rank.get(r["ownerKey"], 2), r["ownerKey"], r["id"])):
                by_email.setdefault(row["email"], row["id"])
        targets = {key: by_email[a.email] for key, a in attendees.items() if a.email in by_email}
        by_name = [key for key in attendees if key not in targets]
        if by_name:
            targets.update(await resolve_refs(tx, note, by_name, EDGE))
        return targets
