"""Two tenants of a real vaultgraph, driven over GraphQL (HTTP) and MCP, next to their models (tests/model/obsidian.py).

Every write goes to the server and to the model; `check` then compares what the server says, through every surface,
with what the model says it must. The state machine (test_link_graph.py) and the replayed examples
(test_link_graph_examples.py) both drive a `World`, so an example is the machine's steps written out.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.agents.mcp_client import call, mcp_session
from tests.model.obsidian import Document, Note, TypedLink, Vault, body_links, key_of, note_slug
from tests.support.server import RunningServer, serve_tenants
from tests.support.waiting import eventually

# `Link.key` (the resolution key, issue 18) is not in the schema on main yet; links-core adds it. Until then the key
# is read as the slug of `ref`, which is what `ref` holds on main. The lead flips this after merging links-core.
KEY_FIELD = True
# `saveNote(…, rewriteLinks:)` (issue 18 item 10) comes with notes-writes; without it a rename is sent with the
# default (rewrite). The lead flips this after merging notes-writes.
REWRITE_LINKS_ARGUMENT = True
# Issue 18 item 7: everything the schema exposes survives exportVault → importVault, archived notes (archivedAt)
# included.
ARCHIVED_NOTES_EXPORTED = True

LINK = "id type ref " + ("key " if KEY_FIELD else "") + "label heading origin isGhost from { id } to { id }"
PAGE = 100
BOTH_WAYS = (f"outgoing(first: {PAGE}) {{ totalCount nodes {{ {LINK} }} }} "
             f"backlinks(first: {PAGE}) {{ totalCount nodes {{ {LINK} }} }}")
ITEMS = f"""query($after: String) {{
  notes(first: 50, includeArchived: true, after: $after) {{ pageInfo {{ hasNextPage endCursor }}
    nodes {{ id title slug body archivedAt {BOTH_WAYS} }} }}
  documents(first: 100) {{ totalCount nodes {{ id path content contentHash {BOTH_WAYS} }} }} }}"""
IDS = "{ notes(first: 100, includeArchived: true) { nodes { id slug } } documents(first: 100) { nodes { id path } } }"
SAVE = """mutation($input: NoteInput!) { saveNote(input: $input) { note { id slug title body } } }"""
RENAME = ("""mutation($input: NoteInput!, $rewrite: Boolean!) {
  saveNote(input: $input, rewriteLinks: $rewrite) { note { id slug title } } }""" if REWRITE_LINKS_ARGUMENT else
          """mutation($input: NoteInput!) { saveNote(input: $input) { note { id slug title } } }""")
UPDATE = "mutation($id: ID!, $patch: NotePatch!) { updateNote(id: $id, input: $patch) { id body } }"
ARCHIVE = "mutation($id: ID!, $a: Boolean!) { archiveNote(id: $id, archived: $a) { id archivedAt } }"
DELETE_NOTE = "mutation($id: ID!) { deleteNote(id: $id, hard: true) { deleted } }"
CREATE_DOCUMENT = "mutation($input: DocumentInput!) { createDocument(input: $input) { id path } }"
UPDATE_DOCUMENT = ("mutation($id: ID!, $input: DocumentUpdateInput!) { updateDocument(id: $id, input: $input) "
                   "{ id path content contentHash } }")
DOCUMENT_STAGES = "{ documents(first: 100) { nodes { id enrichment { stage } } } }"
# The report says whether the full-text index answered or the substring scan it falls back to (which reads the
# properties themselves, and so would hide a full-text entry left stale).
FOUND_BY = '''query($q: String!) { searchReport(query: $q, mode: KEYWORD, limit: 20) {
  keyword { fallback } hits { item { id } } } }'''
CREATE_LINK = f"mutation($input: LinkInput!) {{ createLink(input: $input) {{ {LINK} }} }}"
DELETE_LINK = "mutation($id: ID!) { deleteLink(id: $id) { deleted } }"
IMPORT = """mutation($path: String!, $force: Boolean!) { importVault(path: $path, force: $force) {
  files created updated unchanged conflicts attachments skipped { path reason } } }"""
EXPORT = "mutation($path: String!) { exportVault(path: $path) { written } }"
CAPTURE = "mutation($text: String!, $day: Date) { captureNote(text: $text, day: $day) { id slug title body } }"
ITEM_ID = re.compile(r"\b(?:doc|note)_[0-9a-f]{32}\b")
LINK_ID = re.compile(r"\blnk_[0-9a-f]{32}\b")

# The vocabulary: few names, so that links collide, resolve, move and break often.
NOTE_NAMES = [("", "Alpha"), ("", "ALPHA"), ("", "Beta"), ("projects", "Beta"), ("projects", "Delta"),
              ("", "Gamma Ray"), ("", "Setup")]
DOCUMENT_PATHS = ["guides/setup.md", "specs/api.txt"]
ATTACHMENT = "assets/diagram.png"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)
# Daily notes (captureNote) are `daily/<day>`, titled by the day.
DAYS = ["2026-06-09", "2026-06-10"]
TARGETS = ["Alpha", "Beta", "projects/Beta", "Delta", "projects/Delta", "Gamma Ray", "Setup", "Nowhere",
           "guides/setup", "setup", "api.txt", "specs/api", "specs/api.txt", "diagram.png", DAYS[0]]
LINK_TYPES = ["REFERENCES", "RELATED", "DEPENDS_ON"]
# Where enrichment ends: the model compares a document's wikilinks once it is DONE.
TERMINAL = {"DONE", "FAILED", "SKIPPED"}


class ServerDisagrees(AssertionError):
    """The server's answer differs from the model's."""


def expect(condition: bool, what: str, *details: Any) -> None:
    if not condition:
        raise ServerDisagrees(what + "".join(f"\n  {d!r}" for d in details))


@dataclass(frozen=True)
class LinkRead:
    """A link as one surface gave it: the fields every surface must agree on."""

    id: str
    type: str
    ref: str
    key: str
    label: str | None
    heading: str | None
    origin: str
    source: str
    target: str | None
    ghost: bool

    @classmethod
    def of(cls, node: dict[str, Any]) -> LinkRead:
        return cls(node["id"], node["type"], node["ref"], node["key"] if KEY_FIELD else key_of(node["ref"]),
                   node["label"], node["heading"], node["origin"], node["from"]["id"],
                   (node["to"] or {}).get("id"), node["isGhost"])


@dataclass
class Snapshot:
    """One tenant as the server lists it: its items and every link, each read identically wherever it showed."""

    notes: dict[str, dict[str, Any]] = field(default_factory=dict)
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: dict[str, LinkRead] = field(default_factory=dict)
    outgoing: dict[str, list[str]] = field(default_factory=dict)
    backlinks: dict[str, list[str]] = field(default_factory=dict)

    def slug_or_path(self, item_id: str) -> str:
        return str(self.notes[item_id]["slug"] if item_id in self.notes else self.documents[item_id]["path"])

    def link_set(self, wikilinks_only: bool = False) -> Counter[tuple[Any, ...]]:
        """Links by names, not ids, to compare tenants: (from, to or the ghost's key, type, ref of a wikilink)."""
        out: Counter[tuple[Any, ...]] = Counter()
        for link in self.links.values():
            if wikilinks_only and link.origin != "WIKILINK":
                continue
            to = self.slug_or_path(link.target) if link.target else ("ghost", link.key)
            out[(self.slug_or_path(link.source), to, link.type,
                 link.ref if link.origin == "WIKILINK" else None)] += 1
        return out


@dataclass
class Tenant:
    name: str
    vault: Vault = field(default_factory=Vault)
    seen_links: set[str] = field(default_factory=set)  # every link id this tenant's reads ever gave
    listed: set[str] = field(default_factory=set)  # item ids of a tenant without a model (an import's copy)
    last: Snapshot | None = None

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Vaultgraph-Tenant": self.name}


def front_matter(body: str) -> tuple[dict[str, Any], str]:
    """The properties and the text after them, read as Obsidian does: a YAML block fenced by `---` lines at the top
    (the model's own reading, not the server's parser)."""
    match = re.match(r"---\r?\n(.*?)^---[ \t]*(?:\r?\n|$)", body, re.DOTALL | re.MULTILINE)
    if match is None:
        return {}, body
    loaded = yaml.safe_load(match.group(1)) or {}
    expect(isinstance(loaded, dict), "front matter is a mapping", body)
    return loaded, body[match.end():]


def fresh_tenant_name() -> str:
    return f"m{uuid.uuid4().hex[:16]}"


class World:
    def __init__(self, server: RunningServer, vault_root: Path, tenants: int = 2) -> None:
        self.server = server
        self.vault_root = vault_root
        self.tenants = [self.new_tenant() for _ in range(tenants)]
        self.words = 0  # the full-text words written into documents so far (each once)

    def new_tenant(self) -> Tenant:
        """A fresh tenant, whose documents the server's enrichment workers take (their wikilinks come from it)."""
        t = Tenant(fresh_tenant_name())
        serve_tenants(self.server.app, [t.name])
        return t

    def fresh_word(self) -> str:
        """A word no text of the run holds yet (letters only, one full-text token)."""
        self.words += 1
        return "zq" + "".join("abcdefghij"[int(d)] for d in str(self.words)) + "word"

    # --- talking to the server ------------------------------------------------------------------------------

    async def ask(self, t: Tenant, query: str, variables: dict[str, Any] | None = None,
                  creates: bool = False) -> dict[str, Any]:
        """An operation that must succeed; its answer is scanned for ids of the other tenants first (a write that
        `creates` an item may name one the model does not know yet)."""
        body = await self.server.graphql(query, variables, t.headers)
        self.scan(t, body, creates)
        expect("errors" not in body, f"{t.name}: the server refused", query[:80], variables, body.get("errors"))
        data: dict[str, Any] = body["data"]
        return data

    async def refused(self, t: Tenant, query: str, variables: dict[str, Any], code: str) -> None:
        body = await self.server.graphql(query, variables, t.headers)
        self.scan(t, body)
        codes = [e.get("extensions", {}).get("code") for e in body.get("errors", [])]
        expect(codes == [code], f"{t.name}: expected {code}", query[:80], variables, body)

    def scan(self, t: Tenant, body: Any, creates: bool = False) -> None:
        """No read in one tenant returns an id of another: items not in the model, links another tenant read."""
        text = json.dumps(body)
        foreign = set(ITEM_ID.findall(text)) - t.vault.item_ids() - t.listed
        if creates:
            foreign = {i for i in foreign if any(i in o.vault.item_ids() | o.listed for o in self.tenants)}
        expect(not foreign, f"{t.name}: ids of no item of this tenant", sorted(foreign))
        links = set(LINK_ID.findall(text))
        for other in self.tenants:
            if other is not t:
                expect(not links & other.seen_links, f"{t.name}: link ids of {other.name}", links & other.seen_links)
        t.seen_links |= links

    # --- writes: each to the server and the model ----------------------------------------------------------

    async def save_note(self, n: int, name: tuple[str, str], body: str, by_id: bool = True) -> None:
        """Create the note `name` (folder, title), or update the one holding its slug (by id; without the id
        the slug is taken: CONFLICT)."""
        t = self.tenants[n]
        folder, title = name
        existing = t.vault.by_slug(note_slug(folder, title))
        note_input: dict[str, Any] = {"title": title, "slug": note_slug(folder, title), "body": body}
        if existing is not None and not by_id:
            await self.refused(t, SAVE, {"input": note_input}, "CONFLICT")
            return
        if existing is not None:
            note_input["id"] = existing.id
        saved = (await self.ask(t, SAVE, {"input": note_input}, creates=True))["saveNote"]["note"]
        expect(saved["slug"] == note_input["slug"] and saved["body"] == body, "saveNote answered", saved)
        if existing is None:
            t.vault.notes[saved["id"]] = Note(saved["id"], folder, title, body)
        else:
            existing.title, existing.body = title, body

    async def save_at_once(self, n: int, drafts: list[tuple[tuple[str, str], str]]) -> None:
        """Saves of distinct notes sent at the same time end as the same saves one after another (issue 18 item 4:
        the graph does not depend on the write order)."""
        unique = {note_slug(*name): (name, body) for name, body in drafts}
        await asyncio.gather(*(self.save_note(n, name, body) for name, body in unique.values()))

    async def capture(self, n: int, day: str, text: str) -> None:
        """captureNote appends a bullet to the day's note `daily/<day>` (made from its template when there is none);
        the links are those of the new body. Blank text is refused (INVALID_INPUT) and changes nothing."""
        t = self.tenants[n]
        note = t.vault.by_slug(note_slug("daily", day))
        if not text.strip():  # nothing to capture: refused, and the day's note is not made for it
            await self.refused(t, CAPTURE, {"text": text, "day": day}, "INVALID_INPUT")
            return
        saved = (await self.ask(t, CAPTURE, {"text": text, "day": day}, creates=True))["captureNote"]
        before = note.body if note is not None else f"# {day}\n"
        body: str = saved["body"]
        expect(saved["slug"] == f"daily/{day}" and saved["title"] == day, "captureNote answered", saved)
        expect(body.startswith(before) and body[len(before):].lstrip("\n").startswith("- "),
               "captureNote did not append one bullet to the day's note", before, body)
        if note is None:
            t.vault.notes[saved["id"]] = Note(saved["id"], "daily", day, body)
        else:
            expect(saved["id"] == note.id, "captureNote wrote another note than the day's", saved, note)
            note.body = body

    async def edit_through_mcp(self, n: int, name: tuple[str, str], body: str) -> None:
        """MCP `write_note` with the id and the same title (it sends no slug): the body is replaced in place, the
        note keeps its folder and slug. The new body ends with a fresh word, which keyword search then finds it by
        (unless archived), and the old body's fresh word no longer."""
        t = self.tenants[n]
        note = t.vault.by_slug(note_slug(*name))
        if note is None:
            return
        old, word = note.body, self.fresh_word()
        body = f"{body}\n\n{word}\n"
        async with mcp_session(self.server.url, t.headers) as session:
            written = await call(session, "write_note", id=note.id, title=note.title, body=body)
        self.scan(t, written)
        expect((written["id"], written["slug"]) == (note.id, note.slug), "MCP write_note moved the note", written,
               note)
        note.body = body
        await self.check_found_by(t, note.id, note.slug, word, old, findable=not note.archived)

    async def set_property(self, n: int, name: tuple[str, str], key: str, value: str | None) -> None:
        """updateNote with one front-matter property (a [[link]] in it, or null to delete it): the front matter is
        rewritten, the text after it stays, and the links are those of the new body, front matter included."""
        t = self.tenants[n]
        note = t.vault.by_slug(note_slug(*name))
        if note is None:
            return
        updated = (await self.ask(t, UPDATE, {"id": note.id, "patch": {"properties": {key: value}}}))["updateNote"]
        body: str = updated["body"]
        properties, rest = front_matter(body)
        if value is None:
            expect(key not in properties, f"updateNote left the deleted property {key!r}", body)
        else:
            expect(properties.get(key) == value, f"updateNote did not set {key!r}", body)
        expect(rest.strip() == front_matter(note.body)[1].strip(), "updateNote changed the text after the front matter",
               note.body, body)
        note.body = body

    async def rename(self, n: int, name: tuple[str, str], new_title: str, rewrite: bool = True) -> None:
        """saveNote with the id, a new title and its slug (same folder, same body)."""
        t = self.tenants[n]
        note = t.vault.by_slug(note_slug(*name))
        if note is None:
            return
        if not REWRITE_LINKS_ARGUMENT:
            rewrite = True
        new_slug = note_slug(note.folder, new_title)
        if new_slug == note.slug:  # a new title, the same slug: no rename
            await self.save_note(n, (note.folder, new_title), note.body)
            return
        note_input = {"id": note.id, "title": new_title, "slug": new_slug, "body": note.body}
        variables: dict[str, Any] = {"input": note_input, "rewrite": rewrite} if REWRITE_LINKS_ARGUMENT else {
            "input": note_input}
        holder = t.vault.by_slug(new_slug)
        if holder is not None and holder is not note:
            await self.refused(t, RENAME, variables, "CONFLICT")
            return
        # The notes' bodies and the workspace documents' texts that link to it (a rename rewrites both).
        sources = {other.id: other for other in t.vault.sources()}
        pointed = {other.id: [t.vault.resolve(link.target, other.folder) == note.id
                              for link in body_links(other.body)] for other in sources.values()}
        old_bodies = {i: other.body for i, other in sources.items()}
        renamed = (await self.ask(t, RENAME, variables))["saveNote"]["note"]
        expect(renamed["slug"] == new_slug, "the rename answered", renamed)
        note.title = new_title
        bodies = await self.bodies(t)
        for source_id, old in old_bodies.items():
            new = bodies[source_id]
            if not rewrite or old == new:
                expect(old == new, f"rewriteLinks: false changed the text of {sources[source_id].slug}", old, new)
                continue
            self.check_rewrite(t, sources[source_id], old, new, pointed[source_id], note.id)
            if isinstance(source := sources[source_id], Note):
                source.body = new
            else:
                source.content = new
        if rewrite:
            for source_id, flags in pointed.items():
                if source_id != note.id and any(flags):
                    expect(bodies[source_id] != old_bodies[source_id],
                           f"the rename left [[{name[1]}]] in {sources[source_id].slug}", old_bodies[source_id])

    @staticmethod
    def check_rewrite(t: Tenant, source: Note | Document, old: str, new: str, pointed: list[bool],
                      renamed: str) -> None:
        """A rewritten body differs from the old one only in the targets of the links that pointed at the renamed
        note, which point at it again; alias, heading, block and embed are kept."""
        before, after = body_links(old), body_links(new)
        expect(len(before) == len(after), f"the rename changed the links of {source.slug}", old, new)

        def skeleton(body: str, links: list[Any]) -> str:
            out, at = [], 0
            for link in sorted(links, key=lambda link: link.start):
                out.append(body[at:link.start])
                at = link.end
            return "\0".join([*out, body[at:]])

        expect(skeleton(old, before) == skeleton(new, after), f"the rename changed text of {source.slug}", old, new)
        for was, now, flag in zip(before, after, pointed, strict=True):
            kept = (was.alias, was.heading, was.block, was.embed) == (now.alias, now.heading, now.block, now.embed)
            expect(kept, f"the rename lost alias, heading or embed in {source.slug}", was, now)
            if flag:
                expect(source.id == renamed and was.target == now.target
                       or t.vault.resolve(now.target, source.folder) == renamed,
                       f"rewritten [[{now.target}]] in {source.slug} does not point at the renamed note", old, new)
            else:
                expect(was.target == now.target, f"the rename rewrote an unrelated link in {source.slug}", was, now)

    async def bodies(self, t: Tenant) -> dict[str, str]:
        """Every note's body and every workspace document's text, by id."""
        query = ("{ notes(first: 100, includeArchived: true) { nodes { id body } } "
                 "documents(first: 100) { nodes { id content } } }")
        data = await self.ask(t, query)
        return {**{n["id"]: n["body"] for n in data["notes"]["nodes"]},
                **{d["id"]: d["content"] for d in data["documents"]["nodes"]
                   if d["id"] in t.vault.documents and not t.vault.documents[d["id"]].attachment}}

    async def archive(self, n: int, name: tuple[str, str], archived: bool = True) -> None:
        t = self.tenants[n]
        note = t.vault.by_slug(note_slug(*name))
        if note is None:
            return
        answer = (await self.ask(t, ARCHIVE, {"id": note.id, "a": archived}))["archiveNote"]
        expect((answer["archivedAt"] is not None) == archived, "archiveNote answered", answer)
        note.archived = archived

    async def hard_delete(self, n: int, name: tuple[str, str]) -> None:
        t = self.tenants[n]
        note = t.vault.by_slug(note_slug(*name))
        if note is None:
            return
        expect((await self.ask(t, DELETE_NOTE, {"id": note.id}))["deleteNote"]["deleted"], "deleteNote answered")
        t.vault.hard_delete(note.id)

    async def create_document(self, n: int, path: str, content: str | None = None) -> None:
        t = self.tenants[n]
        document_input = {"path": path, "content": f"The {path} file, without links.\n" if content is None else content}
        if t.vault.by_path(path) is not None:
            await self.refused(t, CREATE_DOCUMENT, {"input": document_input}, "CONFLICT")
            return
        made = (await self.ask(t, CREATE_DOCUMENT, {"input": document_input}, creates=True))["createDocument"]
        t.vault.documents[made["id"]] = Document(made["id"], made["path"], False, document_input["content"])

    async def edit_document(self, n: int, path: str, text: str, fresh: bool = True) -> None:
        """updateDocument(content) guarded by ifContentHash: with the hash of the text it holds, the file takes the
        new text (and a word of its own, so the full-text entry can be asked for), its hash follows, and enrichment
        syncs its wikilinks; with a stale hash, CONFLICT, and nothing changes. Then the full-text index finds the
        document by its new word and no longer by the one its old text had."""
        t = self.tenants[n]
        document = t.vault.by_path(path)
        if document is None or document.attachment:
            return
        old = document.content
        word = self.fresh_word() if text.strip() else None  # a blank text stays blank: nothing to enrich
        content = f"{text}\n\n{word}\n" if word else text
        held = hashlib.sha256(old.encode()).hexdigest()
        guard = held if fresh else hashlib.sha256(f"{old}, before an edit made meanwhile".encode()).hexdigest()
        variables = {"id": document.id, "input": {"content": content, "ifContentHash": guard}}
        if not fresh:
            await self.refused(t, UPDATE_DOCUMENT, variables, "CONFLICT")
            return
        updated = (await self.ask(t, UPDATE_DOCUMENT, variables))["updateDocument"]
        expect(updated == {"id": document.id, "path": path, "content": content,
                           "contentHash": hashlib.sha256(content.encode()).hexdigest()}, "updateDocument answered",
               updated)
        document.content = content
        await self.settle(t)
        await self.check_found_by(t, document.id, path, word, old)

    async def check_found_by(self, t: Tenant, item_id: str, name: str, word: str | None, old: str,
                             findable: bool = True) -> None:
        """Keyword search finds the item by the fresh word its new text holds (when `findable`: not archived) and
        no longer by the fresh words only its old text held."""
        old_words = set(re.findall(r"\bzq[a-j]+word\b", old))
        for query, want in [*([(word, findable)] if word else []), *((w, False) for w in old_words)]:
            report = (await self.ask(t, FOUND_BY, {"q": query}))["searchReport"]
            found = {hit["item"]["id"] for hit in report["hits"]}
            expect((item_id in found) == want, f"{t.name}: keyword search for {query!r} "
                   f"{'misses' if want else 'still finds'} {name}", found)
            expect(not (want and report["keyword"]["fallback"]), f"{t.name}: {query!r} finds {name} only by the "
                   "substring scan: its full-text entry is stale", report)

    def item_named(self, t: Tenant, name: str | tuple[str, str]) -> str | None:
        item = t.vault.by_slug(note_slug(*name)) if isinstance(name, tuple) else t.vault.by_path(name)
        return item.id if item is not None else None

    def canonical_key(self, t: Tenant, item_id: str) -> str:
        if item_id in t.vault.notes:
            return t.vault.notes[item_id].slug
        return key_of(t.vault.documents[item_id].path.rsplit(".", 1)[0])

    async def create_link(self, n: int, source: str | tuple[str, str], target: str | tuple[str, str],
                          link_type: str) -> None:
        t = self.tenants[n]
        source_id, target_id = self.item_named(t, source), self.item_named(t, target)
        if source_id is None or target_id is None or source_id == target_id:
            return
        same = [link for link in t.vault.typed.values() if link.source == source_id and link.type == link_type]
        variables = {"input": {"from": source_id, "to": target_id, "type": link_type}}
        if any(link.target == target_id for link in same):
            await self.refused(t, CREATE_LINK, variables, "CONFLICT")
            return
        if any(link.key == self.canonical_key(t, target_id) for link in same):
            return  # a link of that name whose target was renamed or deleted: which answer is right is not settled
        made = LinkRead.of((await self.ask(t, CREATE_LINK, variables))["createLink"])
        expect((made.source, made.target, made.type, made.ghost) == (source_id, target_id, link_type, False),
               "createLink answered", made)
        t.vault.typed[made.id] = TypedLink(made.id, source_id, link_type, target_id, made.key)

    def links_in_order(self, t: Tenant) -> list[tuple[str, str, str]]:
        """Every link the model holds, in an order that does not depend on ids: (kind, source id, key or id)."""
        slug = {**{i: n.slug for i, n in t.vault.notes.items()}, **{i: d.path for i, d in t.vault.documents.items()}}
        wikilinks = [("wikilink", e.source, e.key) for e in t.vault.all_wikilinks()]
        typed = [("typed", link.source, link.id) for link in t.vault.typed.values()]
        return sorted(wikilinks, key=lambda w: (slug[w[1]], w[2])) + sorted(
            typed, key=lambda w: (slug[w[1]], t.vault.typed[w[2]].type, t.vault.typed[w[2]].key))

    async def delete_link(self, n: int, index: int) -> None:
        """Delete the index-th link (modulo): a typed link goes; a wikilink its body holds is refused."""
        t = self.tenants[n]
        links = self.links_in_order(t)
        if not links:
            return
        kind, source, which = links[index % len(links)]
        if kind == "typed":
            expect((await self.ask(t, DELETE_LINK, {"id": which}))["deleteLink"]["deleted"], "deleteLink answered")
            del t.vault.typed[which]
            return
        snapshot = t.last or await self.snapshot(t)
        ids = [link.id for link in snapshot.links.values()
               if link.source == source and link.origin == "WIKILINK" and link.key == which]
        expect(len(ids) == 1, f"{t.name}: the wikilink {which!r} from {source} to delete", ids)
        link_id = ids[0]
        await self.refused(t, DELETE_LINK, {"id": link_id}, "LINK_OWNED_BY_BODY")

    async def import_vault(self, n: int, files: list[tuple[tuple[str, str], str]], attachment: bool = False,
                           force: bool = False) -> None:
        """importVault of a generated folder: `files` as ((folder, title), body), one per slug; the attachment."""
        t = self.tenants[n]
        root = self.vault_root / uuid.uuid4().hex
        expected: dict[str, set[str]] = {k: set() for k in ("created", "updated", "unchanged", "conflicts",
                                                              "attachments")}
        wanted: dict[str, tuple[str, str, str]] = {}
        for (folder, title), body in files:
            slug = note_slug(folder, title)
            if slug in wanted:
                continue
            relative = f"{folder}/{title}.md" if folder else f"{title}.md"
            wanted[slug] = (relative, title, body)
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(body, encoding="utf-8")
            note = t.vault.by_slug(slug)
            if note is None:
                expected["created"].add(relative)
            elif note.body == body and note.title == title:  # a file named otherwise (`ALPHA.md`) would rename it
                expected["unchanged"].add(relative)
            else:
                expected["updated" if force else "conflicts"].add(relative)
        if attachment:
            (root / ATTACHMENT).parent.mkdir(parents=True, exist_ok=True)
            (root / ATTACHMENT).write_bytes(PNG)
            expected["unchanged" if t.vault.by_path(ATTACHMENT) else "attachments"].add(ATTACHMENT)
        root.mkdir(parents=True, exist_ok=True)
        report = (await self.ask(t, IMPORT, {"path": str(root), "force": force}))["importVault"]
        got = {k: set(report[k]) for k in expected}
        expect(got == expected and not report["skipped"], f"{t.name}: importVault reported", expected, report)
        ids = await self.ids(t)
        for slug, (relative, title, body) in wanted.items():
            note = t.vault.by_slug(slug)
            if note is None:
                folder = relative.rsplit("/", 1)[0] if "/" in relative else ""
                t.vault.notes[ids[slug]] = Note(ids[slug], folder, title, body)
            elif relative in expected["updated"]:
                note.title, note.body = title, body
        if ATTACHMENT in expected["attachments"]:
            t.vault.documents[ids[ATTACHMENT]] = Document(ids[ATTACHMENT], ATTACHMENT, attachment=True)

    async def ids(self, t: Tenant) -> dict[str, str]:
        """slug or path → id, for items a write made without naming them (an import)."""
        data = await self.server.data(IDS, headers=t.headers)
        self.scan(t, data, creates=True)
        return {**{n["slug"]: n["id"] for n in data["notes"]["nodes"]},
                **{d["path"]: d["id"] for d in data["documents"]["nodes"]}}

    # --- reads -----------------------------------------------------------------------------------------------

    async def settle(self, t: Tenant) -> None:
        """Wait until every document of the tenant was enriched (its wikilinks synced): a workspace document must end
        DONE (an attachment's bytes are no text, and a blank text holds nothing to enrich: SKIPPED)."""
        nodes = (await eventually(lambda: self.ask(t, DOCUMENT_STAGES),
                                  lambda data: all(d["enrichment"]["stage"] in TERMINAL
                                                   for d in data["documents"]["nodes"]),
                                  60, f"{t.name}: the documents' enrichment ends"))["documents"]["nodes"]
        texts = {i for i, d in t.vault.documents.items() if not d.attachment and d.content.strip()}
        expect(all(d["enrichment"]["stage"] == "DONE" for d in nodes if d["id"] in texts),
               f"{t.name}: a document's enrichment", nodes)

    async def snapshot(self, t: Tenant) -> Snapshot:
        """Every item with its outgoing links and backlinks (notes paged), each link read the same everywhere, once
        the documents' enrichment has ended."""
        if t.vault.documents or t.listed:
            await self.settle(t)
        snap = Snapshot()
        after: str | None = None
        while True:
            data = await self.ask(t, ITEMS, {"after": after})
            for kind, rows in (("notes", data["notes"]["nodes"]), ("documents", data["documents"]["nodes"])):
                for row in rows:
                    (snap.notes if kind == "notes" else snap.documents)[row["id"]] = row
                    for direction in ("outgoing", "backlinks"):
                        page = row[direction]
                        expect(page["totalCount"] == len(page["nodes"]) < PAGE, "a page of links was cut", row["id"])
                        ids = []
                        for node in page["nodes"]:
                            link = LinkRead.of(node)
                            seen = snap.links.setdefault(link.id, link)
                            expect(seen == link, f"{t.name}: one link read two ways (outgoing, backlinks)", seen, link)
                            ids.append(link.id)
                        getattr(snap, direction)[row["id"]] = ids
            if not data["notes"]["pageInfo"]["hasNextPage"]:
                break
            after = data["notes"]["pageInfo"]["endCursor"]
        t.last = snap
        return snap

    async def check(self, n: int, surfaces: bool = True) -> Snapshot:
        """The tenant equals its model: items, every link and its target, every note's wikilinks; with `surfaces`,
        every link reads the same through node(id), traverse, graph and canvas too."""
        t = self.tenants[n]
        snap = await self.snapshot(t)
        self.check_against_model(t, snap)
        if surfaces:
            await self.check_surfaces(t, snap)
        return snap

    def check_against_model(self, t: Tenant, snap: Snapshot) -> None:
        vault = t.vault
        expect({i: (r["slug"], r["title"], r["body"], r["archivedAt"] is not None) for i, r in snap.notes.items()}
               == {i: (n.slug, n.title, n.body, n.archived) for i, n in vault.notes.items()},
               f"{t.name}: the notes", snap.notes.keys(), vault.notes)
        expect({i: r["path"] for i, r in snap.documents.items()} == {i: d.path for i, d in vault.documents.items()},
               f"{t.name}: the documents")
        for document in vault.documents.values():  # a workspace document holds its text, and the hash of it
            if not document.attachment:
                row = snap.documents[document.id]
                expect((row["content"], row["contentHash"]) == (
                    document.content, hashlib.sha256(document.content.encode()).hexdigest()),
                    f"{t.name}: the text of {document.path}", row["content"], document.content)
        for link in snap.links.values():
            expect(link.id in snap.outgoing.get(link.source, []), f"{t.name}: a link missing from its source's "
                   "outgoing", link)
            expect(link.ghost == (link.target is None), f"{t.name}: isGhost and to disagree", link)
            if link.target is not None:
                expect(link.id in snap.backlinks.get(link.target, []), f"{t.name}: a resolved link missing from "
                       "its target's backlinks", link)
        for item_id, ids in snap.backlinks.items():
            for link_id in ids:
                expect(snap.links[link_id].target == item_id, f"{t.name}: a backlink of {item_id} points elsewhere",
                       snap.links[link_id])
        for item_id, ids in snap.outgoing.items():
            for link_id in ids:
                expect(snap.links[link_id].source == item_id, f"{t.name}: an outgoing link of {item_id} starts "
                       "elsewhere", snap.links[link_id])
        # Every note's (and document's) wikilinks are exactly those of its text, each pointing where Obsidian's
        # rules say (an attachment's bytes hold none).
        for source in [*vault.notes.values(), *vault.documents.values()]:
            got = {link.key: (link.ref, link.label, link.heading, link.target)
                   for link in (snap.links[i] for i in snap.outgoing.get(source.id, []))
                   if link.origin == "WIKILINK"}
            want = {e.key: (e.ref, e.label, e.heading, e.target) for e in vault.wikilinks(source).values()}
            expect(got == want, f"{t.name}: the wikilinks of {source.slug} (key: ref, label, heading, to)",
                   source.body, {"server": got, "model": want}, self.names(t))
        typed = {link.id: link for link in snap.links.values() if link.origin != "WIKILINK"}
        expect(set(typed) == set(vault.typed), f"{t.name}: the typed links", sorted(typed), sorted(vault.typed))
        for link_id, model in vault.typed.items():
            got_link = typed[link_id]
            expect((got_link.source, got_link.type) == (model.source, model.type), f"{t.name}: a typed link",
                   got_link, model)
            if model.target is not None:
                expect(got_link.target == model.target, f"{t.name}: a typed link lost its target", got_link, model)
            else:  # loose: bound to something of its name, and a ghost while nothing answers to it
                answers = vault.answers_to(model.key)
                expect(got_link.target in answers if got_link.target else not answers or got_link.ghost,
                       f"{t.name}: a typed link whose target was deleted", got_link, answers)
                expect(got_link.target is not None or got_link.ghost, f"{t.name}: a typed ghost", got_link)
                if not answers:
                    expect(got_link.target is None, f"{t.name}: a typed link bound to nothing of its name", got_link)

    @staticmethod
    def vault_path(t: Tenant, item_id: str) -> str:
        """Where the item is in an Obsidian vault: a document's path; a note's folder and title (its file name)."""
        if item_id in t.vault.documents:
            return t.vault.documents[item_id].path
        note = t.vault.notes[item_id]
        return f"{note.folder}/{note.title}.md" if note.folder else f"{note.title}.md"

    def names(self, t: Tenant) -> dict[str, str]:
        return {**{i: n.slug for i, n in t.vault.notes.items()}, **{i: d.path for i, d in t.vault.documents.items()}}

    async def check_surfaces(self, t: Tenant, snap: Snapshot) -> None:
        """node(id) of every link, traverse (one hop out) and canvas around every active item, and the graph."""
        active = sorted(t.vault.active())
        resolved = [link for link in snap.links.values() if link.target is not None]
        fields = [f'l{i}: node(id: "{link_id}") {{ ... on Link {{ {LINK} }} }}' for i, link_id in enumerate(snap.links)]
        fields += [f'''t{i}: traverse(from: ["{item}"], hops: 1, direction: OUT, maxNodes: 100) {{
                     nodes {{ item {{ id }} depth viaLinkId viaType direction fromId }} }}''' for i, item in
                   enumerate(active)]
        fields += [f'c{i}: canvas(center: "{item}", hops: 1)' for i, item in enumerate(active)]
        fields.append(f"g: graph(limit: 500) {{ truncated nodes {{ id }} edges {{ {LINK} }} }}")
        fields.append("gh: ghosts(first: 50) { ref links sources { id } }")
        # The same lists through node(id) of each item and note(slug) of each note (the slug read reads ahead).
        items = sorted(t.vault.item_ids())
        fields += [f'i{i}: node(id: "{item}") {{ ... on Item {{ {BOTH_WAYS} }} }}' for i, item in enumerate(items)]
        notes = sorted(t.vault.notes)
        fields += [f'n{i}: note(slug: "{t.vault.notes[note].slug}") {{ {BOTH_WAYS} }}' for i, note in enumerate(notes)]
        data = await self.ask(t, "{ " + "\n".join(fields) + " }")
        for alias, item in [*((f"i{i}", x) for i, x in enumerate(items)), *((f"n{i}", x) for i, x in enumerate(notes))]:
            for direction in ("outgoing", "backlinks"):
                reads = [LinkRead.of(node) for node in data[alias][direction]["nodes"]]
                expect(reads == [snap.links[i] for i in getattr(snap, direction)[item]],
                       f"{t.name}: {'node(id)' if alias[0] == 'i' else 'note(slug)'} {direction} of "
                       f"{self.names(t)[item]} read otherwise", reads)
        for i, link_id in enumerate(snap.links):
            node = data[f"l{i}"]
            expect(node is not None and LinkRead.of(node) == snap.links[link_id],
                   f"{t.name}: node(id) reads a link otherwise", snap.links[link_id], node)
        between_active = {link.id for link in resolved if link.source in active and link.target in active}
        for i, item in enumerate(active):
            out = {link.target: link for link in resolved if link.source == item and link.target != item
                   and link.target in active}
            reached = data[f"t{i}"]["nodes"]
            expect({r["item"]["id"] for r in reached} == set(out), f"{t.name}: traverse out of {self.names(t)[item]}",
                   reached, out)
            for r in reached:
                via = snap.links.get(r["viaLinkId"])
                expect(via is not None and (via.source, via.target, via.type) == (item, r["item"]["id"], r["viaType"])
                       and (r["depth"], r["direction"], r["fromId"]) == (1, "OUT", item),
                       f"{t.name}: traverse came by a link that reads otherwise", r, via)
            canvas = data[f"c{i}"]
            near = {item} | {link.target for link in resolved if link.source == item} | {
                link.source for link in resolved if link.target == item}
            near &= set(active)
            expect({node["id"] for node in canvas["nodes"]} == near, f"{t.name}: canvas nodes around "
                   f"{self.names(t)[item]}", canvas["nodes"], near)
            for node in canvas["nodes"]:
                expect(node["file"] == self.vault_path(t, node["id"]), "a canvas file node names its vault path",
                       node, self.vault_path(t, node["id"]))
            edges = {edge["id"]: edge for edge in canvas["edges"]}
            expect(set(edges) == {link.id for link in resolved if link.source in near and link.target in near},
                   f"{t.name}: canvas edges around {self.names(t)[item]}", edges)
            for edge_id, edge in edges.items():
                link = snap.links[edge_id]
                expect((edge["fromNode"], edge["toNode"], edge["label"]) == (link.source, link.target,
                                                                              link.label or link.type),
                       f"{t.name}: a canvas edge reads otherwise", edge, link)
        self.check_ghosts(t, snap, data["gh"])
        graph = data["g"]
        expect(not graph["truncated"] and {n["id"] for n in graph["nodes"]} == set(active),
               f"{t.name}: graph nodes", graph["nodes"], active)
        edges = {edge["id"]: LinkRead.of(edge) for edge in graph["edges"]}
        expect(set(edges) == between_active, f"{t.name}: graph edges (resolved links between active items)",
               set(edges), between_active)
        for edge_id, edge in edges.items():
            expect(edge == snap.links[edge_id], f"{t.name}: graph reads a link otherwise", edge, snap.links[edge_id])

    def check_ghosts(self, t: Tenant, snap: Snapshot, refs: list[dict[str, Any]]) -> None:
        """`ghosts` is the unresolved links of active items grouped by their key: how many, and from whom (each
        source once, the first ten), most linked first."""
        active = t.vault.active()
        counts: Counter[str] = Counter()
        sources: dict[str, set[str]] = {}
        for link in snap.links.values():
            if link.ghost and link.source in active:
                counts[link.key] += 1
                sources.setdefault(link.key, set()).add(link.source)
        if len(counts) > 50:  # the query's bound: only the most linked are listed
            return
        expect([(-r["links"], r["ref"]) for r in refs] == sorted((-n, ref) for ref, n in counts.items()),
               f"{t.name}: ghosts, most linked first", refs, counts)
        for ref in refs:
            listed = [s["id"] for s in ref["sources"]]
            want = sources.get(ref["ref"], set())
            expect(len(listed) == len(set(listed)) and (set(listed) == want if len(want) <= 10 else
                                                      len(listed) == 10 and set(listed) <= want),
                   f"{t.name}: the sources of the ghost {ref['ref']!r}", listed, want)

    async def check_mcp(self, n: int, name: str | tuple[str, str]) -> None:
        """MCP `backlinks` and `traverse` (one hop out) of one item agree with GraphQL (checked just before)."""
        t = self.tenants[n]
        item = self.item_named(t, name)
        if item is None:
            return
        snap = t.last or await self.check(n, surfaces=False)
        async with mcp_session(self.server.url, t.headers) as session:
            back = await call(session, "backlinks", id=item, first=100)
            reached = await call(session, "traverse", id=item, hops=1, direction="out", maxNodes=200)
        self.scan(t, [back, reached])
        want = {i: snap.links[i] for i in snap.backlinks[item]}
        got = {b["id"]: b for b in back["backlinks"]}
        expect(set(got) == set(want) and not back["more"], f"{t.name}: MCP backlinks of {self.names(t)[item]}",
               got, want)
        for link_id, b in got.items():
            link = want[link_id]
            expect((b["type"], b["ref"], b["from"]["id"], b["toId"]) == (link.type, link.ref, link.source, link.target),
                   f"{t.name}: MCP backlinks reads a link otherwise", b, link)
        active = t.vault.active()
        out = {link.target for link in snap.links.values()
               if link.source == item and link.target is not None and link.target != item and link.target in active}
        expect({r["id"] for r in reached["items"]} == out,
               f"{t.name}: MCP traverse out of {self.names(t)[item]}", reached, out)
        for r in reached["items"]:
            via = snap.links.get(r["linkId"])
            expect(via is not None and (via.source, via.target, via.type, r["fromId"], r["direction"])
                   == (item, r["id"], r["linkType"], item, "OUT"), f"{t.name}: MCP traverse came by", r, via)

    # --- the final comparisons ----------------------------------------------------------------------------------

    async def round_trips(self, n: int) -> None:
        """The same bodies written into a fresh tenant in another order give the same wikilinks; exportVault then
        importVault into a fresh tenant gives the same items and links (nothing lost, nothing duplicated)."""
        source = self.tenants[n]
        snap = await self.check(n, surfaces=False)
        vault = source.vault
        seed = int(hashlib.sha256(json.dumps(sorted(self.names(source).values())).encode()).hexdigest()[:8], 16)
        order = random.Random(seed)

        # Another order: the notes shuffled, the documents somewhere among them, attachments through an import.
        again = self.new_tenant()
        self.tenants.append(again)
        steps: list[Any] = [note for note in vault.notes.values()]
        steps += [d for d in vault.documents.values() if not d.attachment]
        order.shuffle(steps)
        attachments = [d for d in vault.documents.values() if d.attachment]
        if attachments:
            steps.insert(order.randint(0, len(steps)), "attachments")
        for step in steps:
            if isinstance(step, Note):
                saved = (await self.ask(again, SAVE, {"input": {"title": step.title, "slug": step.slug,
                                                                "body": step.body}}, creates=True))["saveNote"]["note"]
                again.vault.notes[saved["id"]] = Note(saved["id"], step.folder, step.title, step.body)
            elif isinstance(step, Document):
                await self.create_document(len(self.tenants) - 1, step.path, step.content)
            else:
                await self.import_vault(len(self.tenants) - 1, [], attachment=True)
        other = await self.check(len(self.tenants) - 1, surfaces=False)
        expect(other.link_set(wikilinks_only=True) == snap.link_set(wikilinks_only=True),
               f"{source.name}: the same bodies in another order give other wikilinks",
               other.link_set(True) - snap.link_set(True), snap.link_set(True) - other.link_set(True))

        # Export, then import into a fresh tenant that holds the same workspace documents.
        folder = self.vault_root / uuid.uuid4().hex
        await self.ask(source, EXPORT, {"path": str(folder)})
        copy = self.new_tenant()
        self.tenants.append(copy)
        for document in vault.documents.values():
            if not document.attachment:
                await self.create_document(len(self.tenants) - 1, document.path, document.content)
        report = (await self.ask(copy, IMPORT, {"path": str(folder), "force": False}))["importVault"]
        expect(not report["skipped"] and not report["conflicts"], "importVault of an export", report)
        copy.listed = set((await self.ids(copy)).values())  # no model of the copy: its own listing is its ids
        back = await self.snapshot(copy)
        kept = [note for note in vault.notes.values() if ARCHIVED_NOTES_EXPORTED or not note.archived]
        expect(Counter((r["slug"], r["title"], r["archivedAt"] is not None) for r in back.notes.values())
               == Counter((n.slug, n.title, n.archived) for n in kept),
               f"{source.name}: the notes after export and import", back.notes, kept)
        expect(Counter(r["path"] for r in back.documents.values()) == Counter(d.path for d in vault.documents.values()),
               f"{source.name}: the documents after export and import", back.documents)
        expect(back.link_set() == snap.link_set(), f"{source.name}: the links after export and import",
               {"lost": snap.link_set() - back.link_set(), "added": back.link_set() - snap.link_set()})
