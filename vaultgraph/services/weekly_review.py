"""The weekly review: the chat model reads one ISO week's daily notes and the documents whose enrichment finished
that week, and writes a review note citing them with [[wikilinks]], saved through the note save pipeline (so the
links become edges and the sources show it among their backlinks).

Decisions:
- The note lives at `reviews/<yyyy>-w<ww>` (slugs are lower case) of the caller's own space (personal for an
  agent, else shared), so generating the same week again overwrites it (the save pipeline diffs the links).
- Bounded input: at most MAX_DAILY_NOTES daily notes and MAX_DOCUMENTS documents are read, each text is cut to
  whole lines within its character cap, and sources are sent in order until MAX_SOURCE_CHARS; every source of the
  week that was not sent is counted in `left_out` (and listed, when it was read, with `sent=False`).
- The model may only cite what it was given. A [[link]] to anything else is not a link in the saved note: it stays
  as plain text (its alias, else its target), so the sentence still reads, no ghost edge points at an invented
  item, and `dropped_links` says which refs were turned into text. A cited source written by its title or its bare
  name is rewritten to its exact ref so it resolves to that item and nothing else.
- No chat model configured: `UNAVAILABLE` before anything is read or written. An extractive fallback would be a
  list of the week's items, not a review, and would save a note that looks model-written; the error says how to
  configure a model. A model failure is `UNAVAILABLE` too, and nothing is saved.
- A week with nothing to review is `NOT_FOUND`: no model call, no note.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from pathlib import PurePosixPath

from vaultgraph.domain import Document, Item, Note, Principal, Scope
from vaultgraph.errors import InvalidInput, NotFound
from vaultgraph.graph import reviews as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.models import ModelClient, ModelUnavailable
from vaultgraph.services.notes import NoteDraft, NoteService, SaveResult
from vaultgraph.text.wikilinks import WikiLink, parse

MAX_DAILY_NOTES = 14  # a week has 7 days; personal and shared daily notes of one day can both be visible
MAX_DOCUMENTS = 40
MAX_DAILY_CHARS = 3000
MAX_DOCUMENT_CHARS = 800
MAX_SOURCE_CHARS = 24000
MAX_ANSWER_TOKENS = 2000
TEMPERATURE = 0.3
KIND = "review"
_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")
_FENCED = re.compile(r"^```[a-zA-Z]*\n(?P<body>.*)\n```$", re.DOTALL)

SYSTEM_PROMPT = """\
You write the weekly review note of a personal knowledge vault, in Markdown.
You are given the week's daily notes and the documents added or updated that week, each under a heading that
shows its wikilink, e.g. [[daily/2026-11-23]] or [[guides/setup.md]].
Write: a short summary of the week, then sections "Highlights", "Daily notes", "New documents" and "Open threads".
Cite a source whenever you use it, with its wikilink written exactly as shown (you may add an alias:
[[daily/2026-11-23|Monday]]). Use only the sources given: never link to anything else, never invent facts.
Answer with the note's Markdown body only, without a title line and without code fences."""


class SourceRole(enum.Enum):
    DAILY_NOTE = "DAILY_NOTE"
    DOCUMENT = "DOCUMENT"


@dataclass(frozen=True, slots=True)
class ReviewSource:
    item: Item
    role: SourceRole
    ref: str  # the wikilink target the model is told to use, and the saved note links with
    sent: bool
    truncated: bool
    cited: bool = False


@dataclass(frozen=True, slots=True)
class WeeklyReview:
    week: str
    start: date  # Monday
    end: date  # Sunday
    model: str
    save: SaveResult
    sources: list[ReviewSource]
    left_out: int  # sources of the week the model did not see (over the item caps or the character budget)
    dropped_links: list[str] = field(default_factory=list)


def parse_week(week: str | None, today: date | None = None) -> tuple[str, date]:
    """The canonical `YYYY-Www` and its Monday; the current ISO week (UTC) when `week` is None."""
    if week is None:
        today = today or datetime.now(UTC).date()
        year, number, _ = today.isocalendar()
        return f"{year}-W{number:02d}", date.fromisocalendar(year, number, 1)
    match = _WEEK.match(week.strip())
    if match is None:
        raise InvalidInput("week", f"an ISO week like 2026-W48, not {week!r}")
    year, number = int(match.group(1)), int(match.group(2))
    try:
        monday = date.fromisocalendar(year, number, 1)
    except ValueError as exc:
        raise InvalidInput("week", f"{week!r} is not a week of {year} ({exc})") from exc
    return f"{year}-W{number:02d}", monday


def source_ref(item: Item) -> str:
    """A note's slug; a document's path (wikilinks resolve documents by exact path)."""
    return item.slug if isinstance(item, Note) else item.path


def clip(text: str, limit: int) -> tuple[str, bool]:
    """`text` within `limit` characters, cut after a whole line (else a word) when it is longer."""
    text = text.strip()
    if len(text) <= limit:
        return text, False
    head = text[:limit]
    cut = head.rfind("\n")
    if cut < limit // 2:
        cut = head.rfind(" ")
    return (head[:cut] if cut > 0 else head).rstrip() + " …", True


def _aliases(item: Item, ref: str) -> set[str]:
    """Ways a model may write a source's target: its ref, its title, and (documents) its path without suffix."""
    names = {ref, item.title}
    if isinstance(item, Document):
        names.add(str(PurePosixPath(item.path).with_suffix("")))
    else:
        names.add(ref.rsplit("/", 1)[-1])
    return {name.strip().casefold() for name in names if name.strip()}


def check_links(text: str, sources: list[ReviewSource]) -> tuple[str, set[str], list[str]]:
    """The text with links to sources written as their exact refs and other links turned into plain text;
    the refs cited, and the targets dropped (in order, each once)."""
    known: dict[str, str] = {}
    for source in (s for s in sources if s.sent):
        for alias in _aliases(source.item, source.ref):
            known.setdefault(alias, source.ref)
    cited: set[str] = set()
    dropped: list[str] = []
    out: list[str] = []
    position = 0
    for link in sorted(parse(text).all_links, key=lambda link: link.start):
        if link.start < position:
            continue
        out.append(text[position:link.start])
        ref = known.get(link.target.strip().casefold()) if link.target else None
        if ref is None:
            shown = link.alias or link.target or (link.heading or "")
            out.append(shown)
            if link.target and link.target not in dropped:
                dropped.append(link.target)
        else:
            cited.add(ref)
            out.append(_link_text(ref, link))
        position = link.end
    out.append(text[position:])
    return "".join(out), cited, dropped


def _link_text(ref: str, link: WikiLink) -> str:
    anchor = f"#^{link.block}" if link.block else f"#{link.heading}" if link.heading else ""
    alias = link.alias or (link.target if link.target.casefold() != ref.casefold() else None)
    return f"[[{ref}{anchor}{'|' + alias if alias else ''}]]"


def _unfence(answer: str) -> str:
    answer = answer.strip()
    match = _FENCED.match(answer)
    return match.group("body").strip() if match else answer


def bounded_sources(label: str, monday: date, sunday: date, notes: list[Note],
                    documents: list[Document]) -> tuple[list[ReviewSource], str]:
    """The sources in the order sent (daily notes, then documents), each cut to its cap, until the character
    budget is spent; the rest are listed with `sent=False`. Returns them and the user message."""
    parts = [f"Week {label}: Monday {monday.isoformat()} to Sunday {sunday.isoformat()}."]
    budget = MAX_SOURCE_CHARS
    sources: list[ReviewSource] = []
    entries: list[tuple[Item, SourceRole, str, str, int]] = [
        (n, SourceRole.DAILY_NOTE, f"{n.note_date or n.title}", n.body, MAX_DAILY_CHARS) for n in notes
    ] + [
        (d, SourceRole.DOCUMENT, f"{d.title}" + (f", category {d.category}" if d.category else ""),
         d.summary or "(no summary)", MAX_DOCUMENT_CHARS) for d in documents
    ]
    heading_done: set[SourceRole] = set()
    for item, role, caption, text, cap in entries:
        ref = source_ref(item)
        content, truncated = clip(text, cap)
        section = "" if role in heading_done else (
            "\n\n## Daily notes" if role == SourceRole.DAILY_NOTE else "\n\n## Newly enriched documents")
        block = f"{section}\n\n### [[{ref}]] ({caption})\n{content}"
        if len(block) > budget:
            sources.append(ReviewSource(item, role, ref, sent=False, truncated=False))
            continue
        heading_done.add(role)
        budget -= len(block)
        parts.append(block)
        sources.append(ReviewSource(item, role, ref, sent=True, truncated=truncated))
    return sources, "".join(parts)


class WeeklyReviewService:
    def __init__(self, graph: Graph, notes: NoteService, models: ModelClient) -> None:
        self.graph = graph
        self.notes = notes
        self.models = models

    async def generate(self, principal: Principal, week: str | None = None) -> WeeklyReview:
        label, monday = parse_week(week)
        if not self.models.chat_available:
            raise ModelUnavailable(
                "generateWeeklyReview needs a chat model and none is configured: set OPENAI_BASE_URL (and "
                "OPENAI_API_KEY if the endpoint needs one) and VAULTGRAPH_CHAT_MODEL. Nothing was written.",
                operation="chat", model="", retryable=False,
            )
        sunday = monday + timedelta(days=6)
        keys = principal.visible_owner_keys()
        start = datetime.combine(monday, time(), UTC)
        notes, notes_total = await self.graph.read(
            cypher.daily_notes, principal.tenant_id, keys, monday, sunday, MAX_DAILY_NOTES)
        documents, documents_total = await self.graph.read(
            cypher.enriched_documents, principal.tenant_id, keys, start, start + timedelta(days=7), MAX_DOCUMENTS)
        if not notes and not documents:
            raise NotFound(f"nothing to review in {label}: no daily notes dated {monday}..{sunday} and no "
                           "document finished enrichment that week", week=label)
        sources, prompt = bounded_sources(label, monday, sunday, notes, documents)
        left_out = (notes_total - len(notes)) + (documents_total - len(documents)) + sum(
            1 for s in sources if not s.sent)
        if left_out:
            prompt += (f"\n\n({left_out} more source(s) of this week were left out to keep this request bounded; "
                       "do not guess about them.)")
        answer = await self.models.chat_text(SYSTEM_PROMPT, prompt, temperature=TEMPERATURE,
                                             max_tokens=MAX_ANSWER_TOKENS)
        body, cited, dropped = check_links(_unfence(answer), sources)
        sources = [ReviewSource(s.item, s.role, s.ref, s.sent, s.truncated, s.ref in cited) for s in sources]
        model = self.models.chat_model_name or ""
        saved = await self._save(principal, label, monday, sunday, model, body, left_out)
        return WeeklyReview(week=label, start=monday, end=sunday, model=model, save=saved, sources=sources,
                            left_out=left_out, dropped_links=dropped)

    async def _save(self, principal: Principal, label: str, monday: date, sunday: date, model: str, body: str,
                    left_out: int) -> SaveResult:
        slug = f"reviews/{label.lower()}"  # slugs are lower case: reviews/2026-w48
        scope = Scope.PERSONAL if principal.agent_id else Scope.SHARED
        owner_key = f"agent:{principal.agent_id}" if principal.agent_id else "shared"
        existing: Note | None
        try:
            existing = await self.notes.get_by_slug(principal, slug)
        except NotFound:
            existing = None
        if existing is not None and existing.owner.key != owner_key:
            existing = None  # someone else's review of that week: this caller writes its own
        header = (f"---\nweek: {label}\nstart: {monday.isoformat()}\nend: {sunday.isoformat()}\n"
                  f"generated_by: {json.dumps(model or 'model')}\nleft_out: {left_out}\n---\n")
        text = f"{header}# Weekly review {label}\n\n{body.strip()}\n"
        draft = NoteDraft(title=f"Weekly review {label}", body=text, id=existing.id if existing else None,
                          slug=slug, kind=KIND, note_date=monday, scope=scope, agent_id=principal.agent_id)
        return await self.notes.save(principal, draft)
