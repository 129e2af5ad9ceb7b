"""Days: the daily note `daily/YYYY-MM-DD`, created lazily from a minimal template, and capture, which appends a
timestamped bullet to a day's note through the save pipeline (so its links and tags are wired at once)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from vaultgraph.domain import Note, Principal, Scope
from vaultgraph.errors import Conflict, InvalidInput, NotFound
from vaultgraph.services.notes import NoteDraft, NoteService, SaveResult

CAPTURE_RETRIES = 5
# Days exist for these years only (daily notes, meetings): a day outside is a typo or a probe, not a journal.
FIRST_DAY, LAST_DAY = date(1900, 1, 1), date(2200, 12, 31)


def check_day(day: date, field: str = "day") -> date:
    """`day`, or INVALID_INPUT naming `field` when it is outside FIRST_DAY..LAST_DAY."""
    if not FIRST_DAY <= day <= LAST_DAY:
        raise InvalidInput(field, f"a day from {FIRST_DAY} to {LAST_DAY}")
    return day


def daily_template(day: date) -> str:
    """The body a new daily note starts with: its day as the heading (kind and date are fields of the note)."""
    return f"# {day.isoformat()}\n"


class DayService:
    def __init__(self, notes: NoteService) -> None:
        self.notes = notes

    async def daily(self, principal: Principal, day: date | None = None) -> Note:
        """`day`'s daily note (today's, UTC, by default). The one the caller already sees is used (its own first,
        then the shared one, then a team's, as every slug lookup); else it is made in the caller's own space (an
        agent's personal one, else shared). Concurrent first calls make one note: the others find it."""
        day = check_day(day or datetime.now(UTC).date())
        slug = f"daily/{day.isoformat()}"
        try:
            return await self.notes.get_by_slug(principal, slug)
        except NotFound:
            pass
        owner_scope = Scope.PERSONAL if principal.agent_id else Scope.SHARED
        draft = NoteDraft(title=day.isoformat(), slug=slug, body=daily_template(day), kind="daily",
                          note_date=day, scope=owner_scope, agent_id=principal.agent_id)
        try:
            return (await self.notes.save(principal, draft)).note
        except Conflict:  # created by a concurrent call a moment ago
            return await self.notes.get_by_slug(principal, slug)

    async def capture(self, principal: Principal, text: str, now: datetime | None = None,
                      day: date | None = None) -> SaveResult:
        """Append a bullet stamped with the time (UTC) to `day`'s daily note (today's by default)."""
        text = text.strip()
        if not text:
            raise InvalidInput("text", "must not be empty")
        now = now or datetime.now(UTC)
        for _ in range(CAPTURE_RETRIES):
            note = await self.daily(principal, day or now.date())
            body = note.body if note.body.endswith("\n") or not note.body else note.body + "\n"
            bullet = f"- {now:%H:%M} " + text.replace("\n", "\n  ")
            draft = NoteDraft(id=note.id, title=note.title, slug=note.slug, body=body + bullet + "\n",
                              kind=note.kind, note_date=note.note_date, if_body_sha256=note.body_sha256)
            try:
                return await self.notes.save(principal, draft)
            except Conflict as exc:
                if exc.details.get("slug"):
                    raise
        raise Conflict("the day's note kept changing while capturing; try again")
