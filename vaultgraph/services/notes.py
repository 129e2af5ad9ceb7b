"""Notes through one save pipeline, the only write path: slug, SHA-256 change detection, frontmatter, tags, and the
wikilink sync (diffed, three resolution passes), all in one transaction so a failed save changes nothing."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import Any

import frontmatter
import yaml
from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note, Owner, Page, Principal, Scope
from vaultgraph.errors import Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound
from vaultgraph.graph import notes as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.services.documents import owner_of
from vaultgraph.services.pagination import decode_cursor, encode_cursor, page_size
from vaultgraph.services.wikilink_sync import LinkSync, sync_wikilinks
from vaultgraph.text.slugify import slugify
from vaultgraph.text.wikilinks import parse
from vaultgraph.workspace import sha256_hex

MAX_BODY_BYTES = 5 * 1024 * 1024
MAX_TITLE_LENGTH = 500
CAPTURE_RETRIES = 5

Indexer = Callable[[Principal, Note], Awaitable[bool]]


@dataclass(frozen=True, slots=True)
class NoteDraft:
    title: str
    body: str = ""
    id: str | None = None
    slug: str | None = None
    kind: str = "note"
    pinned: bool | None = None
    note_date: date | None = None
    scope: Scope = Scope.SHARED
    agent_id: str | None = None
    team_id: str | None = None
    if_body_sha256: str | None = None  # optimistic concurrency: refuse when the stored body changed meanwhile
    vault_path: str | None = None  # the file this note came from in an Obsidian vault (kept for export)


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


def parse_frontmatter(body: str) -> dict[str, Any]:
    try:
        metadata = frontmatter.loads(body).metadata
    except yaml.YAMLError as exc:
        raise InvalidInput("body", f"the frontmatter is not valid YAML: {exc}".splitlines()[0]) from exc
    # JSON round trip: YAML dates and the like become strings, so the stored form is plain JSON.
    result: dict[str, Any] = json.loads(json.dumps(metadata, default=str))
    return result


class NoteService:
    def __init__(self, graph: Graph, max_page_size: int, indexer: Indexer | None = None) -> None:
        self.graph = graph
        self.max_page_size = max_page_size
        self.indexer = indexer

    async def save(self, principal: Principal, draft: NoteDraft) -> SaveResult:
        title = draft.title.strip()
        if not title:
            raise InvalidInput("title", "must not be empty")
        if len(title) > MAX_TITLE_LENGTH:
            raise InvalidInput("title", f"at most {MAX_TITLE_LENGTH} characters")
        if len(draft.body.encode()) > MAX_BODY_BYTES:
            raise LimitExceeded(f"body: a note holds at most {MAX_BODY_BYTES} bytes", field="body")
        if not draft.kind.strip() or len(draft.kind) > 40:
            raise InvalidInput("kind", "1-40 characters, e.g. note, daily, moc, literature, meeting")
        try:
            slug = slugify(draft.slug or title)
        except ValueError as exc:
            raise InvalidInput("slug" if draft.slug else "title", str(exc)) from exc
        parsed = parse(draft.body)
        props: dict[str, Any] = {
            "slug": slug, "slugName": slug.rsplit("/", 1)[-1], "title": title, "titleLower": title.casefold(),
            "body": draft.body,
            "bodySha256": sha256_hex(draft.body.encode()), "frontmatter": json.dumps(parse_frontmatter(draft.body)),
            "tags": list(parsed.unique_tags), "kind": draft.kind.strip(), "noteDate": draft.note_date,
        }
        if draft.pinned is not None:
            props["pinned"] = draft.pinned
        if draft.vault_path is not None:
            props["vaultPath"] = draft.vault_path
        owner = None if draft.id else owner_of(draft.scope, draft.agent_id, draft.team_id)
        if owner is not None and not principal.may_write(owner):
            raise Forbidden(f"you cannot write to {owner.key}")
        result = await self.graph.write(self._save_tx, principal, draft, owner, props, parsed)
        if self.indexer is not None and (result.body_changed or not result.note.indexed):
            indexed = await self.indexer(principal, result.note)
            if indexed != result.note.indexed:
                await self.graph.write(cypher.set_indexed, principal.tenant_id, result.note.id, indexed)
                result = replace(result, note=replace(result.note, indexed=indexed))
        return result

    async def _save_tx(
        self, tx: AsyncManagedTransaction, principal: Principal, draft: NoteDraft, owner: Owner | None,
        props: dict[str, Any], parsed: Any,
    ) -> SaveResult:
        tenant = principal.tenant_id
        existing = await cypher.note_by_id(tx, tenant, draft.id) if draft.id else None
        if draft.id and (existing is None or not principal.may_write(existing.owner)):
            raise NotFound(f"no note with id {draft.id!r}", id=draft.id)
        if existing is not None and draft.if_body_sha256 and existing.body_sha256 != draft.if_body_sha256:
            raise Conflict("the note changed since you read it; reload and save again", id=existing.id)
        note_owner = existing.owner if existing else owner
        assert note_owner is not None  # set above for new notes, taken from the stored note otherwise
        note_id = existing.id if existing else f"note_{uuid.uuid4().hex}"
        holder = await cypher.slug_holder(tx, tenant, note_owner.key, props["slug"], note_id)
        if holder is not None:
            raise Conflict(f"the slug {props['slug']!r} belongs to the note {holder['title']!r} ({holder['id']})",
                           id=holder["id"], slug=props["slug"])
        if existing is None:
            note = await cypher.create_note(
                tx, id=note_id, tenant=tenant, scope=note_owner.scope.value, agentId=note_owner.agent_id,
                teamId=note_owner.team_id, ownerKey=note_owner.key, createdBy=principal.agent_id,
                props={"pinned": False, **props},
            )
        elif existing.body_sha256 == props["bodySha256"]:
            # Unchanged body: refresh metadata only; no re-link, no re-index.
            meta = {k: v for k, v in props.items() if k not in ("body", "bodySha256", "tags", "frontmatter")}
            note = await cypher.update_note(tx, tenant, note_id, meta)
        else:
            note = await cypher.update_note(tx, tenant, note_id, props)
        body_changed = existing is None or existing.body_sha256 != props["bodySha256"]
        renamed = existing is None or existing.slug != note.slug
        sync = await sync_wikilinks(tx, note, parsed.all_links if body_changed else None, bind_own_refs=renamed)
        return SaveResult(note=note, created=existing is None, body_changed=body_changed, sync=sync)

    async def find(self, principal: Principal, note_id: str) -> Note | None:
        note = await self.graph.read(cypher.note_by_id, principal.tenant_id, note_id)
        return note if note is not None and principal.may_read(note.owner) else None

    async def get(self, principal: Principal, note_id: str) -> Note:
        note = await self.find(principal, note_id)
        if note is None:
            raise NotFound(f"no note with id {note_id!r}", id=note_id)
        return note

    async def get_by_slug(self, principal: Principal, slug: str) -> Note:
        prefer = f"agent:{principal.agent_id}" if principal.agent_id else "shared"
        note = await self.graph.read(
            cypher.note_by_slug, principal.tenant_id, slug, principal.visible_owner_keys(), prefer
        )
        if note is None:
            raise NotFound(f"no note with slug {slug!r}", slug=slug)
        return note

    async def page(self, principal: Principal, filters: NoteFilter, first: int | None, after: str | None) -> Page[Note]:
        limit = page_size(first, self.max_page_size)
        after_ts, after_id = decode_cursor(after, 2) if after else (None, None)
        params: dict[str, Any] = {
            "tenant": principal.tenant_id, "ownerKeys": principal.visible_owner_keys(),
            "includeArchived": filters.include_archived, "scope": filters.scope.value if filters.scope else None,
            "kind": filters.kind, "tag": filters.tag, "pinned": filters.pinned,
            "afterTs": after_ts, "afterId": after_id, "limit": limit + 1,
        }
        rows, total = await self.graph.read(cypher.notes_page_and_total, **params)
        items = [(encode_cursor(n.updated_at.isoformat(), n.id), n) for n in rows[:limit]]
        return Page(items=items, has_next_page=len(rows) > limit, total_count=total)

    async def archive(self, principal: Principal, note_id: str, archived: bool = True) -> Note:
        await self.get_writable(principal, note_id)
        note = await self.graph.write(cypher.set_archived, principal.tenant_id, note_id, archived)
        assert note is not None  # checked by _writable in the same request
        return note

    async def get_writable(self, principal: Principal, note_id: str) -> Note:
        note = await self.get(principal, note_id)
        if not principal.may_write(note.owner):
            raise NotFound(f"no note with id {note_id!r}", id=note_id)
        return note

    async def daily(self, principal: Principal, day: date | None = None) -> Note:
        """Today's (or `day`'s) daily note, created lazily from a minimal template."""
        day = day or datetime.now(UTC).date()
        slug = f"daily/{day.isoformat()}"
        try:
            return await self.get_by_slug(principal, slug)
        except NotFound:
            pass
        owner_scope = Scope.PERSONAL if principal.agent_id else Scope.SHARED
        draft = NoteDraft(title=day.isoformat(), slug=slug, body=f"# {day.isoformat()}\n", kind="daily",
                          note_date=day, scope=owner_scope, agent_id=principal.agent_id)
        try:
            return (await self.save(principal, draft)).note
        except Conflict:  # created by a concurrent call a moment ago
            return await self.get_by_slug(principal, slug)

    async def capture(self, principal: Principal, text: str, now: datetime | None = None) -> SaveResult:
        """Append a timestamped bullet to today's daily note, through the save pipeline."""
        text = text.strip()
        if not text:
            raise InvalidInput("text", "must not be empty")
        now = now or datetime.now(UTC)
        for _ in range(CAPTURE_RETRIES):
            note = await self.daily(principal, now.date())
            body = note.body if note.body.endswith("\n") or not note.body else note.body + "\n"
            bullet = f"- {now:%H:%M} " + text.replace("\n", "\n  ")
            draft = NoteDraft(id=note.id, title=note.title, slug=note.slug, body=body + bullet + "\n",
                              kind=note.kind, note_date=note.note_date, if_body_sha256=note.body_sha256)
            try:
                return await self.save(principal, draft)
            except Conflict as exc:
                if exc.details.get("slug"):
                    raise
        raise Conflict("today's note kept changing while capturing; try again")

    async def tags(self, principal: Principal) -> list[tuple[str, int]]:
        return await self.graph.read(cypher.tag_counts, principal.tenant_id, principal.visible_owner_keys())
