"""A randomized tenancy proof: several tenants with look-alike worlds, every principal sees exactly its share.

A seeded generator (VAULTGRAPH_TENANCY_SEED, printed in every failure) builds three tenants with the same agent and
team names, the same paths, slugs and titles, near-identical texts (so a foreign item is always a keyword hit and a
close vector neighbour), [[wikilinks]] across scopes, ghosts and manual links across scopes. Each principal's
visible set is computed here, from what the test created and the rule of the design (personal: its agent; team:
its members; shared: the whole tenant; an all-scopes key: everything of its tenant), never asked of the server.

Every answer is then scanned for item ids (`doc_…`, `note_…`), link ids (`lnk_…`) and topic ids (`topic_…`, which name
their document): one that the principal may not see is a leak, wherever it hides (a via, a canvas edge, a suggestion,
a ghost candidate, a search hit's topic, a subscription event).
Lists must equal the expected set, so the proof is not vacuous.

Each principal asks: documents (with their topics, exactly those the all-scopes key lists), notes, graph, tags,
ghosts, enrichmentProgress and contextPack; search in every mode (KEYWORD, VECTOR, HYBRID weighted and RRF, GRAPH
both ways), unfiltered and with a scope filter, each hit's topic its own document's (and a keyword hit names one);
node() with backlinks, outgoing links and suggestions for every item of its tenant and six foreign ones; node() of
every topic of its tenant and four foreign ones (found exactly when its document is visible); document(path) and
note(slug) for every shared path and slug; a traversal from all it sees; graph(center), canvas and traverse around
four visible items and two hidden ones (NOT_FOUND). Over a real graphql-transport-ws socket per key:
enrichmentEvents live while the world is built, a snapshot by the ids of every document of every tenant, and
enrichmentProgress."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import random
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.agents.mcp_client import mcp_session
from tests.resolvers.test_uploads_api import upload
from tests.support.graphql_ws import GraphQLWebSocket, graphql_ws
from tests.support.security import bearer
from tests.support.server import FRESH_CONNECTIONS, RunningServer, run_server, serve_tenants
from tests.support.tiers import sized
from vaultgraph.config import Settings
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.security, pytest.mark.api, pytest.mark.timeout(600)]  # a busy shared 2-core box

SEED = int(os.environ.get("VAULTGRAPH_TENANCY_SEED", "8"))
ITEM_ID = re.compile(r"\b(?:doc|note)_[0-9a-f]{32}\b")
LINK_ID = re.compile(r"\blnk_[0-9a-f]{32}\b")
# A topic's id names its document's (graph/topics.py `topic_id`): `topic_<the document's hex>_<position>`.
TOPIC_ID = re.compile(r"\btopic_([0-9a-f]{32})_[0-9]+\b")
TERMINAL = {"DONE", "FAILED", "SKIPPED"}

AGENTS = ["ann", "bob", "cy"]
TEAMS = ["red", "blue"]
OWNERS = ["shared", *(f"agent:{a}" for a in AGENTS), *(f"team:{t}" for t in TEAMS)]
TITLES = ["Hub", "Roadmap", "Solar inverter sizing", "Battery storage", "Meeting notes", "Weekly plan"]
PATHS = ["plans/roadmap.md", "notes/hub.md", "energy/solar.md", "energy/battery.md", "README.md"]
TEXT = ("Sizing the {roof} solar inverter and the lithium battery storage for the off-grid cabin: "
        "panels, charge controller and cabling. #solar")
QUERY = "solar inverter battery storage sizing"
LINK_TYPES = ["REFERENCES", "RELATED", "DEPENDS_ON"]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }"
CREATE = "mutation($input: DocumentInput!) { createDocument(input: $input) { id } }"
LINK = "mutation($input: LinkInput!) { createLink(input: $input) { id } }"
LINKS = "edges { node { id from { id } to { id } } }"
NODE = ("""node(id: "$ITEM") { id ... on Item { backlinks(first: 50) { LINKS } outgoing(first: 50) { LINKS } }
  ... on Note { suggestions(limit: 20) { target { id } } } }""".replace("LINKS", LINKS))
AROUND = ["""graph(center: "$ITEM", hops: 3, limit: 200) { nodes { id } edges { id from { id } to { id } }
  reached { item { id } viaLinkId fromId } }""", 'canvas(center: "$ITEM", hops: 2)',
          'traverse(from: ["$ITEM"], hops: 3, maxNodes: 200) { nodes { item { id } viaLinkId fromId } }']
LISTS = """{
  documents(first: 100) { totalCount edges { node { id enrichment { stage } topics(first: 5) { id } } } }
  notes(first: 100, includeArchived: true) { totalCount edges { node { id } } }
  graph(limit: 500) { nodes { id } edges { id from { id } to { id } } }
  tags { tag count }
  ghosts(first: 50) { ref sources { id } candidates { item { id } } }
  enrichmentProgress { total }
  contextPack(query: "QUERY", budgetTokens: 4000, maxItems: 20, threshold: 0.0) {
    text items { item { id } via { fromId linkId } } omitted { item { id } } } }"""
TOPICS_OF_ALL = "{ documents(first: 100) { edges { node { id topics(first: 50) { id } } } } }"
DOC_STAGES = "{ documents(first: 100) { edges { node { id enrichment { stage } } } } }"
SEARCH = """search(query: "QUERY", mode: $MODE, fusion: $FUSION, scope: $SCOPE, limit: 100) {
  item { id } via { linkId from { id } to { id } } topic { id document { id } } }"""
SEARCH_MODES = [("KEYWORD", "WEIGHTED"), ("VECTOR", "WEIGHTED"), ("HYBRID", "WEIGHTED"), ("HYBRID", "RRF"),
                ("GRAPH", "WEIGHTED"), ("GRAPH", "RRF")]
TOPIC_NODE = 'node(id: "$TOPIC") { id ... on Topic { name document { id } } }'
ALIASES = 15  # the server's alias cap: many questions a request, each under its own alias
EVENTS = "subscription($ids: [ID!]) { enrichmentEvents(documentIds: $ids) { documentId stage } }"
PROGRESS = "subscription { enrichmentProgress { total } }"


@dataclass(frozen=True)
class Who:
    """One key and the scopes it may read, as the design states them (computed here, not asked of the server)."""

    name: str
    tenant: str
    secret: str
    agent: str | None = None
    teams: tuple[str, ...] = ()
    admin: bool = False

    def sees(self, owner: str) -> bool:
        return self.admin or owner == "shared" or owner == f"agent:{self.agent}" or owner in {
            f"team:{t}" for t in self.teams}

    @property
    def headers(self) -> dict[str, str]:
        return bearer(self.secret)


@dataclass(frozen=True)
class Made:
    id: str
    tenant: str
    owner: str
    kind: str  # "doc" | "note"


@dataclass
class World:
    seed: int
    principals: list[Who] = field(default_factory=list)
    items: dict[str, Made] = field(default_factory=dict)
    links: dict[str, tuple[str, str, str | None]] = field(default_factory=dict)  # id -> (tenant, from, to)
    topics: dict[str, str] = field(default_factory=dict)  # topic id -> its document's id (every tenant's)

    def visible(self, who: Who, kind: str | None = None) -> set[str]:
        return {i.id for i in self.items.values()
                if i.tenant == who.tenant and who.sees(i.owner) and kind in (None, i.kind)}

    def visible_links(self, who: Who) -> set[str]:
        seen = self.visible(who)
        return {lid for lid, (tenant, src, dst) in self.links.items()
                if tenant == who.tenant and src in seen and (dst is None or dst in seen)}

    def check(self, who: Who, what: str, body: Any, sent: str | None = None) -> str:
        """No item or link id in `body` that `who` may not see (but the id it `sent`: a NOT_FOUND error names the
        id the caller asked for, nothing more); returns the body's text."""
        text = json.dumps(body)
        items = set(ITEM_ID.findall(text)) - {sent}
        unknown = items - set(self.items)
        assert not unknown, f"seed {self.seed}, {who.name}, {what}: unknown items {unknown}"
        leaked = items - self.visible(who)
        assert not leaked, f"seed {self.seed}: {who.name} sees {sorted(leaked)} in {what}: " + ", ".join(
            f"{self.items[i].tenant}/{self.items[i].owner}" for i in sorted(leaked))
        leaked_links = set(LINK_ID.findall(text)) - self.visible_links(who)
        assert not leaked_links, f"seed {self.seed}: {who.name} sees links {sorted(leaked_links)} in {what}"
        # A topic is its document's: one of a document the principal may not see is a leak, named or not.
        leaked_topics = {m.group(0) for m in TOPIC_ID.finditer(text) if m.group(0) != sent
                         and f"doc_{m.group(1)}" not in self.visible(who)}
        assert not leaked_topics, f"seed {self.seed}: {who.name} sees topics {sorted(leaked_topics)} in {what}"
        assert "Traceback" not in text
        return text


def _owner_input(owner: str) -> dict[str, str]:
    if owner == "shared":
        return {"scope": "SHARED"}
    kind, name = owner.split(":")
    return {"scope": "PERSONAL", "agentId": name} if kind == "agent" else {"scope": "TEAM", "teamId": name}


async def _bounded(calls: Iterable[Awaitable[Any]], limit: int = 8) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(call: Awaitable[Any]) -> Any:
        async with gate:
            return await call

    return list(await asyncio.gather(*(one(c) for c in calls)))


@pytest.fixture(scope="module")
async def open_server(settings: Settings) -> AsyncIterator[RunningServer]:
    """Keys required (development mode off), no rate limit: the proof asks a few hundred questions per key at once.
    Enrichment runs (offline model), so documents get vectors and stage events."""
    keyed = settings.model_copy(update={"dev_mode": False, "port": 0, "rate_limit_per_second": 0.0})
    # A slow answer on a busy machine is not a failure.
    async with run_server(keyed) as running, httpx.AsyncClient(base_url=running.url, timeout=120,
                                                               limits=FRESH_CONNECTIONS) as client:
        yield RunningServer(running.url, client, running.app)


async def _principals(keys: ApiKeyService, tenants: list[str], rng: random.Random) -> list[Who]:
    """Per tenant: an all-scopes key, an agent, an agent in teams, a team-only key and a key with neither. In
    `make test` the tenants after the first keep their all-scopes key and agent only: they are there to hold the
    look-alike world that must not leak, and the first tenant asks with every shape."""
    out = []
    for number, tenant in enumerate(tenants):
        shapes: list[tuple[str | None, list[str], bool]] = [
            (None, [], True), (rng.choice(AGENTS), [], False),
            (rng.choice(AGENTS), rng.sample(TEAMS, rng.randint(1, 2)), False),
            (None, rng.sample(TEAMS, 1), False), (None, [], False)]
        for n, (agent, teams, admin) in enumerate(shapes[:sized(2, 5) if number else 5]):
            secret = (await keys.create(tenant, agent=agent, teams=teams, all_scopes=admin)).secret
            out.append(Who(f"{tenant}/{n}:{'admin' if admin else agent or '-'}+{','.join(teams)}", tenant, secret,
                           agent, tuple(sorted(teams)), admin))
    return out


async def _build(server: RunningServer, world: World, admin: Who, rng: random.Random) -> None:
    """Notes and documents in random scopes, wikilinks across them, a ghost, manual links across scopes."""
    headers = admin.headers
    notes = {(rng.choice(OWNERS), rng.choice(TITLES)) for _ in range(9)}
    for owner, title in sorted(notes):
        targets = rng.sample([t for t in TITLES if t != title], 2)
        body = TEXT.format(roof=rng.choice(["rooftop", "roof", "garage roof"])) + \
            f" See [[{targets[0]}]] and [[{targets[1]}|the other]]" + (" and [[Nowhere land]]." if rng.random() < .3
                                                                        else ".")
        data = await server.data(SAVE, {"input": {"title": title, "body": body, **_owner_input(owner)}}, headers)
        made = Made(data["saveNote"]["note"]["id"], admin.tenant, owner, "note")
        world.items[made.id] = made
    docs = {(rng.choice(OWNERS), rng.choice(PATHS)) for _ in range(6)}
    for owner, path in sorted(docs):
        content = f"# {rng.choice(TITLES)}\n\n" + TEXT.format(roof="rooftop") + f" Linked to [[{rng.choice(TITLES)}]]."
        data = await server.data(CREATE, {"input": {"path": path, "content": content, **_owner_input(owner)}},
                                 headers)
        made = Made(data["createDocument"]["id"], admin.tenant, owner, "doc")
        world.items[made.id] = made
    mine = sorted(i for i in world.items if world.items[i].tenant == admin.tenant)
    for _ in range(5):
        src, dst = rng.sample(mine, 2)
        await server.data(LINK, {"input": {"from": src, "to": dst, "type": rng.choice(LINK_TYPES)}}, headers)


def _aliased(fields: list[str]) -> list[str]:
    """Operations of at most ALIASES aliased root fields each (`a0: …`)."""
    chunks = [fields[i:i + ALIASES] for i in range(0, len(fields), ALIASES)]
    return ["{ " + " ".join(f"a{n}: {field}" for n, field in enumerate(chunk)) + " }" for chunk in chunks]


async def _ask_each(server: RunningServer, fields: list[str], headers: dict[str, str]) -> list[Any]:
    """One answer per field (its data under its alias), asked ALIASES at a time."""
    out = []
    for body in await _bounded(server.data(query, headers=headers) for query in _aliased(fields)):
        out.extend(body[f"a{n}"] for n in range(len(body)))
    return out


async def _settle(server: RunningServer, admins: list[Who]) -> None:
    """Wait until every document reached a final enrichment stage (so vectors exist and events were sent)."""
    for _ in range(600):
        pages = await _bounded(server.data(DOC_STAGES, headers=a.headers) for a in admins)
        stages = [e["node"]["enrichment"]["stage"] for page in pages for e in page["documents"]["edges"]]
        if all(stage in TERMINAL for stage in stages):
            return
        await asyncio.sleep(0.25)
    pytest.fail(f"enrichment did not finish: {stages}")


async def _map_links(server: RunningServer, world: World, admins: list[Who]) -> None:
    """Every link of every tenant with its ends, from the all-scopes keys (who see all of their tenant)."""
    for admin in admins:
        ids = [i for i, m in world.items.items() if m.tenant == admin.tenant]
        for node in await _ask_each(server, [NODE.replace("$ITEM", i) for i in ids], admin.headers):
            for direction in ("backlinks", "outgoing"):
                for edge in node[direction]["edges"]:
                    link = edge["node"]
                    world.links[link["id"]] = (admin.tenant, link["from"]["id"], (link["to"] or {}).get("id"))
        # Every topic of the tenant, from its documents (the all-scopes key sees them all).
        page = await server.data(TOPICS_OF_ALL, headers=admin.headers)
        for edge in page["documents"]["edges"]:
            for topic in edge["node"]["topics"]:
                world.topics[topic["id"]] = edge["node"]["id"]


async def _drain(ws: GraphQLWebSocket, operation: str, expect: int, quiet: float = 0.5) -> list[dict[str, Any]]:
    """Every `next` payload of the operation: waits (up to 30 s) for `expect` of them, then for any extra one
    until the operation stays quiet for `quiet` seconds."""
    out = []
    while True:
        try:
            out.append(await asyncio.wait_for(ws.receive(operation), 30 if len(out) < expect else quiet))
        except TimeoutError:
            return out


async def _reads(server: RunningServer, world: World, who: Who, rng: random.Random) -> None:
    """Everything one principal can ask, each answer checked for foreign or invisible ids."""
    h = who.headers
    mine = world.visible(who)

    lists = world.check(who, "lists", await server.data(LISTS.replace("QUERY", QUERY), headers=h))
    body = json.loads(lists)
    docs = {e["node"]["id"] for e in body["documents"]["edges"]}
    notes = {e["node"]["id"] for e in body["notes"]["edges"]}
    assert docs == world.visible(who, "doc"), f"seed {world.seed}: {who.name} documents"
    assert notes == world.visible(who, "note"), f"seed {world.seed}: {who.name} notes"
    assert body["documents"]["totalCount"] == len(docs) and body["notes"]["totalCount"] == len(notes)
    assert body["enrichmentProgress"]["total"] == len(docs), f"{who.name} enrichmentProgress"
    assert {n["id"] for n in body["graph"]["nodes"]} <= mine
    # Document.topics: every topic of each document it sees, as the all-scopes key listed them.
    for edge in body["documents"]["edges"]:
        listed = {t["id"] for t in edge["node"]["topics"]}
        assert listed == {t for t, d in world.topics.items() if d == edge["node"]["id"]}, f"{who.name} topics"

    # Search in every mode, unfiltered and with one scope filter: the near-identical foreign texts never come back.
    scope = rng.choice(["SHARED", "PERSONAL", "TEAM"])
    modes = [(mode, fusion, s) for mode, fusion in SEARCH_MODES for s in ("null", scope)]
    fields = [SEARCH.replace("QUERY", QUERY).replace("$MODE", m).replace("$FUSION", f).replace("$SCOPE", s)
              for m, f, s in modes]
    answers = [hits for half in (fields[:6], fields[6:]) for hits in await _ask_each(server, half, h)]
    for (mode, fusion, s), hits in zip(modes, answers, strict=True):
        world.check(who, f"search {mode}/{fusion}/{s}", hits)
        if s == "null" and mine:
            assert hits, f"seed {world.seed}: {who.name} search {mode}/{fusion} found nothing of its own"
        for hit in hits:
            if hit["topic"] is not None:  # the topic is the hit's own document's
                assert hit["topic"]["document"]["id"] == hit["item"]["id"] == world.topics[hit["topic"]["id"]], hit
        if s == "null" and mode == "KEYWORD" and world.visible(who, "doc"):
            assert any(hit["topic"] for hit in hits), f"{who.name}: no keyword hit named its topic"

    # Single reads (backlinks, outgoing, suggestions) of every item of its tenant and a sample of the others':
    # found exactly when visible.
    own = sorted(i for i, m in world.items.items() if m.tenant == who.tenant)
    asked = own + rng.sample(sorted(set(world.items) - set(own)), 6)
    for item, node in zip(asked, await _ask_each(server, [NODE.replace("$ITEM", i) for i in asked], h),
                          strict=True):
        world.check(who, f"node({item})", node, sent=item)
        assert (node is not None) == (item in mine), f"seed {world.seed}: {who.name} node({item})"
    # node(id:) of every topic of its tenant and of four foreign ones: found exactly when its document is visible.
    topics = sorted(t for t, d in world.topics.items() if world.items[d].tenant == who.tenant)
    topics += rng.sample(sorted(set(world.topics) - set(topics)), min(4, len(world.topics) - len(topics)))
    for topic, node in zip(topics, await _ask_each(server, [TOPIC_NODE.replace("$TOPIC", t) for t in topics], h),
                           strict=True):
        world.check(who, f"node({topic})", node, sent=topic)
        assert (node is not None) == (world.topics[topic] in mine), f"seed {world.seed}: {who.name} node({topic})"
        assert node is None or node["document"]["id"] == world.topics[topic], node
    lookups = [f'document(path: "{p}") {{ id }}' for p in PATHS] + [
        f'note(slug: "{t.lower().replace(" ", "-")}") {{ id }}' for t in TITLES]
    world.check(who, "document(path)/note(slug)", await server.graphql(_aliased(lookups)[0], headers=h))

    # Neighbourhoods: a traversal from everything it sees, and graph view + JSON Canvas + traversal around a few.
    if mine:
        body = await server.data("query($ids: [ID!]!) { traverse(from: $ids, hops: 3, maxNodes: 200) { count "
                                 "nodes { item { id } viaLinkId fromId } } }", {"ids": sorted(mine)}, h)
        world.check(who, "traverse from all it sees", body)
    centers = rng.sample(sorted(mine), min(4, len(mine)))
    world.check(who, f"graph/canvas/traverse around {centers}",
                await _ask_each(server, [f.replace("$ITEM", c) for c in centers for f in AROUND], h))
    # A foreign or invisible center is simply not found, by each of the three (one request each: the first error of
    # a non-null root field ends the operation).
    asked = [(item, f) for item in rng.sample(sorted(set(world.items) - mine), 2) for f in AROUND]
    answers = await _bounded(server.graphql("{ " + f.replace("$ITEM", i) + " }", headers=h) for i, f in asked)
    for (item, f), answer in zip(asked, answers, strict=True):
        world.check(who, f"hidden center {f[:40]} {item}", answer, sent=item)
        assert answer["data"] is None and answer["errors"][0]["extensions"]["code"] == "NOT_FOUND", answer


async def test_every_principal_sees_exactly_its_share(open_server: RunningServer, keys: ApiKeyService,
                                                      tenant: str) -> None:
    rng = random.Random(SEED)
    world = World(SEED)
    # Two tenants are enough for one to hold what the other must not see; make test-all runs three.
    tenants = [f"{tenant}-{c}" for c in "abc"[:sized(2, 3)]]  # ids that share words, as `team-a` and `team-b` do
    serve_tenants(open_server.app, tenants)  # its workers enrich these tenants' documents, no other test's
    world.principals = await _principals(keys, tenants, rng)
    admins = [w for w in world.principals if w.admin]

    async with contextlib.AsyncExitStack() as stack:
        # Subscribers first: every stage event of the world's documents passes their filters.
        live: dict[Who, tuple[GraphQLWebSocket, str]] = {}
        for who in world.principals:
            ws = await stack.enter_async_context(graphql_ws(open_server.url, init_payload={
                "authorization": f"Bearer {who.secret}"}))
            live[who] = (ws, await ws.subscribe(EVENTS))
        for admin in admins:
            await _build(open_server, world, admin, rng)
        await _settle(open_server, admins)
        await _map_links(open_server, world, admins)

        async def live_events(who: Who, ws: GraphQLWebSocket, operation: str) -> None:
            events = await _drain(ws, operation, expect=len(world.visible(who, "doc")), quiet=1.0)
            world.check(who, "enrichmentEvents", events)
            done = {e["data"]["enrichmentEvents"]["documentId"] for e in events
                    if e["data"]["enrichmentEvents"]["stage"] in TERMINAL}
            assert done == world.visible(who, "doc"), f"seed {world.seed}: {who.name} missed stage events"

        async def snapshot(who: Who, ws: GraphQLWebSocket) -> None:
            # Asking for every document of every tenant by id: the snapshot holds only the visible ones.
            every_document = sorted(i for i, m in world.items.items() if m.kind == "doc")
            operation = await ws.subscribe(EVENTS, {"ids": every_document})
            events = await _drain(ws, operation, expect=len(world.visible(who, "doc")))
            world.check(who, "enrichmentEvents(documentIds: all)", events)
            assert {e["data"]["enrichmentEvents"]["documentId"] for e in events} == world.visible(who, "doc")
            progress = await ws.subscribe(PROGRESS)
            first = await asyncio.wait_for(ws.receive(progress), 30)
            assert first["data"]["enrichmentProgress"]["total"] == len(world.visible(who, "doc")), who.name

        await asyncio.gather(*(live_events(who, ws, operation) for who, (ws, operation) in live.items()))
        await asyncio.gather(*(snapshot(who, ws) for who, (ws, _) in live.items()))

    # A few principals at a time: each request holds up to fifteen searches or reads.
    await _bounded((_reads(open_server, world, who, random.Random(SEED * 1000 + n))
                    for n, who in enumerate(world.principals)), limit=3)


# ---------------------------------------------------------------------------------------------------------------
# Scopes inside one tenant under random writes (issue 19, "The net").
#
# Random principals of one tenant (an all-scopes key, agents, agents in teams, team-only and plain keys) run a random
# program of writes through the write paths: createDocument (also at paths reserved for other owners), updateDocument
# (its title; its text guarded by ifContentHash, a stale hash a CONFLICT that changes nothing), deleteDocument,
# uploadDocuments (also into reserved folders), a file written straight into the workspace and a rescan, saveNote and
# createLink. The model beside it says, from the design's rule alone, which writes are allowed and whose item each one
# makes (a workspace file's owner is the one its path names, whoever wrote it). Then: every answer was the expected
# one, the tenant holds exactly the model's items with the model's owners, titles, texts and content hashes (no
# refused write changed anything), and every principal's reads (documents, notes, graph, tags, node(id) with
# backlinks, outgoing links and a note's unlinked mentions, document(path), search, traverse) show no id, no link and
# no text marker of a scope it cannot see, and lists and counts equal its visible share; every note the program saves
# names a shared hub note in plain text, whose unlinked mentions are exactly the reader's share.
#
# Default: the attack of issue 19.1 plus two random programs of up to eight steps (16 s measured at a load average
# of 14 on two cores, 48 s at 20; a few seconds on a quiet machine). A long run:
#   VAULTGRAPH_SCOPES_EXAMPLES=200 VAULTGRAPH_SCOPES_STEPS=30 pytest tests/security/test_tenancy_random.py -k scopes
# ---------------------------------------------------------------------------------------------------------------

SCOPE_EXAMPLES = int(os.environ.get("VAULTGRAPH_SCOPES_EXAMPLES", "2"))
SCOPE_STEPS = int(os.environ.get("VAULTGRAPH_SCOPES_STEPS", "8"))
SCOPE_OWNERS = ["shared", "agent:ann", "agent:bob", "team:red", "team:blue"]
# (name, agent, teams, all scopes)
SCOPE_KEYS: list[tuple[str, str | None, list[str], bool]] = [
    ("admin", None, [], True), ("ann", "ann", [], False), ("bob", "bob", ["red"], False),
    ("red", None, ["red"], False), ("blue", None, ["blue"], False), ("plain", None, [], False)]
RESERVED = ["agents/ann/plan.md", "agents/bob", "agents", "teams/red/runbook.md", "teams/blue", "Agents/ann/x.md"]
FOLDERS = [None, "sub", "agents/ann", "teams/red"]
# Where a file written straight into the tenant's folder lands, and whose it is by the design's rule (None: nobody's).
FILE_PLACES = {"f.md": "shared", "deep/f.md": "shared", "agents/ann/f.md": "agent:ann",
               "agents/bob/x/f.md": "agent:bob", "teams/red/f.md": "team:red", "teams/blue/f.md": "team:blue",
               "agents/f.md": None, "teams/f.md": None}
MARKER = re.compile(r"\bmk[0-9]{1,4}x\b")
UPDATE = "mutation($id: ID!, $t: String!) { updateDocument(id: $id, input: {title: $t}) { id title } }"
DELETE = "mutation($id: ID!) { deleteDocument(id: $id) { deleted } }"
EDIT = ("mutation($id: ID!, $input: DocumentUpdateInput!) { updateDocument(id: $id, input: $input) "
        "{ id title contentHash content } }")
SCOPE_CREATE = "mutation($input: DocumentInput!) { createDocument(input: $input) { id scope agentId teamId } }"
SCOPE_RESCAN = "mutation { rescanWorkspace { new skipped { path reason } } }"
ADMIN_VIEW = """{ documents(first: 100) { edges { node { id title scope agentId teamId contentHash content } } }
  notes(first: 100, includeArchived: true) { edges { node { id scope agentId teamId } } } }"""
SCOPE_LISTS = """{ documents(first: 100) { totalCount edges { node { id path title } } }
  notes(first: 100, includeArchived: true) { totalCount edges { node { id title body } } }
  graph(limit: 500) { nodes { id } edges { id from { id } to { id } } }  tags { tag count } }"""
SCOPE_SEARCH = 'search(query: "QUERY", mode: MODE, limit: 100) { item { id } snippet }'
# The word by itself (Lucene answers) and a part of it, which no indexed word equals: the substring fallback answers
# through its own index of words as written (graph/search.py FALLBACK_HITS).
SCOPE_SEARCHES = [("zebracorn", "KEYWORD"), ("zebracorn", "HYBRID"), ("ebracor", "KEYWORD")]
DAYS = ["2026-06-09", "2026-06-10"]
DAY_NOTE = "id scope agentId teamId slug body"
DAILY = f'query($day: Date!) {{ dailyNote(day: $day) {{ {DAY_NOTE} }} }}'
CAPTURE = f'mutation($text: String!, $day: Date) {{ captureNote(text: $text, day: $day) {{ {DAY_NOTE} }} }}'
MEETING = f'mutation($input: MeetingInput!) {{ ingestMeeting(input: $input) {{ {DAY_NOTE} }} }}'
# MCP write_note's scope argument, with the team it names: personal is always the caller's own agent's.
MCP_SCOPES = [("SHARED", None), ("PERSONAL", None), ("TEAM", "red"), ("TEAM", "blue")]
# Every note the program saves names HUB in plain text, so the hub's unlinked mentions list notes of every scope
# and a reader must get exactly those it sees.
HUB = "Zebra Hub"
MENTIONS = "unlinkedMentions(first: 50) { edges { node { from { id title body } count mentions { snippet } } } }"
SCOPE_NODE = ('node(id: "$ITEM") { id ... on Item { title backlinks(first: 50) { LINKS } '
              'outgoing(first: 50) { LINKS } } ... on Document { content } ... on Note { body MENTIONS } }'
              ).replace("LINKS", LINKS).replace("MENTIONS", MENTIONS)

step_strategy = st.one_of(
    st.tuples(st.just("create"), st.integers(0, 5), st.sampled_from(SCOPE_OWNERS), st.sampled_from(["a.md", "b.txt"])),
    st.tuples(st.just("reserved"), st.integers(0, 5), st.sampled_from(RESERVED)),
    st.tuples(st.just("update"), st.integers(0, 5), st.integers(0, 99)),
    st.tuples(st.just("delete"), st.integers(0, 5), st.integers(0, 99)),
    # updateDocument(content, ifContentHash): the hash of the text it holds (True) or of an older one (False).
    st.tuples(st.just("edit"), st.integers(0, 5), st.integers(0, 99), st.booleans()),
    st.tuples(st.just("upload"), st.integers(0, 5), st.sampled_from(SCOPE_OWNERS), st.sampled_from(FOLDERS)),
    st.tuples(st.just("file"), st.sampled_from(sorted(FILE_PLACES))),
    st.tuples(st.just("note"), st.integers(0, 5), st.sampled_from(SCOPE_OWNERS)),
    st.tuples(st.just("link"), st.integers(0, 5), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("daily"), st.integers(0, 5), st.sampled_from(DAYS)),
    st.tuples(st.just("capture"), st.integers(0, 5), st.sampled_from(DAYS)),
    st.tuples(st.just("meeting"), st.integers(0, 5), st.sampled_from(["Standup", "Review"])),
    st.tuples(st.just("mcp_note"), st.integers(0, 5), st.sampled_from(MCP_SCOPES)),
)


def _owner_of(node: dict[str, Any]) -> str:
    if node["scope"] == "PERSONAL":
        return f"agent:{node['agentId']}"
    if node["scope"] == "TEAM":
        return f"team:{node['teamId']}"
    return "shared"


@dataclass
class ScopeModel:
    """The tenant as the design says it must be after the program: items, owners, titles, links, text markers."""

    world: World
    titles: dict[str, str] = field(default_factory=dict)  # document id -> title
    contents: dict[str, str] = field(default_factory=dict)  # document id -> the text of its file
    markers: dict[str, str] = field(default_factory=dict)  # marker -> owner of the item that holds it
    paths: dict[tuple[str, str], str] = field(default_factory=dict)  # (owner, path) -> document id
    slugs: dict[tuple[str, str], str] = field(default_factory=dict)  # (owner, slug) -> note id of days and meetings
    hub: str | None = None  # the shared note every note of the program names in plain text
    naming_hub: set[str] = field(default_factory=set)  # the notes whose body names it
    counter: int = 0

    def slug_lookup(self, who: Who, slug: str) -> tuple[set[str], str]:
        """The notes a read of `slug` by `who` may answer (its own space's first, then the shared one, then any it
        sees), and the owner a note made for it gets when there is none (the writer's agent, else shared)."""
        own = f"agent:{who.agent}" if who.agent else "shared"
        seen = {owner: note for (owner, s), note in self.slugs.items() if s == slug and who.sees(owner)}
        for first in (own, "shared"):
            if first in seen:
                return {seen[first]}, own
        return set(seen.values()), own

    def marker(self, owner: str) -> str:
        self.counter += 1
        mark = f"mk{self.counter}x"
        self.markers[mark] = owner
        return mark

    def add(self, item_id: str, owner: str, kind: str, tenant: str) -> None:
        self.world.items[item_id] = Made(item_id, tenant, owner, kind)

    def remove(self, item_id: str) -> None:
        del self.world.items[item_id]
        self.titles.pop(item_id, None)
        self.contents.pop(item_id, None)
        self.paths = {k: v for k, v in self.paths.items() if v != item_id}
        for lid, (tenant, src, dst) in list(self.world.links.items()):
            if src == item_id:
                del self.world.links[lid]
            elif dst == item_id:  # a hard delete turns inbound links into ghosts (same link id)
                self.world.links[lid] = (tenant, src, None)

    def pick(self, n: int, kind: str | None = None) -> Made | None:
        items = sorted((m for m in self.world.items.values() if kind in (None, m.kind)), key=lambda m: m.id)
        return items[n % len(items)] if items else None


def _code(body: dict[str, Any]) -> str | None:
    return body["errors"][0]["extensions"]["code"] if body.get("errors") else None


async def _day_like_step(server: RunningServer, model: ScopeModel, writer: Who, step: tuple[Any, ...],
                         what: str) -> None:
    """dailyNote, captureNote and ingestMeeting find the note of their slug the writer sees, else make one in the
    writer's own space: never in a space it cannot see (issue 19: "a shared write lands in another agent's
    personal space")."""
    op = step[0]
    slug = f"daily/{step[2]}" if op != "meeting" else f"meetings/2026-06-09-{step[2].lower()}"
    found, own = model.slug_lookup(writer, slug)
    mark = model.marker("pending")
    if op == "daily":
        body = await server.graphql(DAILY, {"day": step[2]}, writer.headers)
        field_name = "dailyNote"
    elif op == "capture":
        body = await server.graphql(CAPTURE, {"text": f"zebracorn {mark}", "day": step[2]}, writer.headers)
        field_name = "captureNote"
    else:
        meeting = {"title": step[2], "date": "2026-06-09", "body": f"zebracorn {mark}"}
        body = await server.graphql(MEETING, {"input": meeting}, writer.headers)
        field_name = "ingestMeeting"
    assert _code(body) is None, f"{what}: {body}"
    note = body["data"][field_name]
    owner = _owner_of(note)
    assert note["slug"] == slug, f"{what}: {note}"
    if found:
        assert note["id"] in found, f"{what}: wrote {note['id']} of {owner}, not the note it sees ({found})"
    else:
        assert owner == own and note["id"] not in model.world.items, f"{what}: made {note} instead of one of {own}"
        model.slugs[(owner, slug)] = note["id"]
        model.add(note["id"], owner, "note", writer.tenant)
    model.markers[mark] = owner
    model.world.check(writer, what, body)


async def _mcp_note_step(server: RunningServer, model: ScopeModel, writer: Who, step: tuple[Any, ...],
                         what: str) -> None:
    """MCP write_note in a scope: where GraphQL would put it, refused where GraphQL refuses, nothing else written."""
    scope, team = step[2]
    owner = {"SHARED": "shared", "PERSONAL": f"agent:{writer.agent}" if writer.agent else None,
             "TEAM": f"team:{team}"}[scope]
    mark = model.marker(owner or "nobody")
    arguments: dict[str, Any] = {"title": f"Note {mark}", "body": f"zebracorn {mark}", "scope": scope}
    if team:
        arguments["teamId"] = team
    async with mcp_session(server.url, writer.headers) as session:
        result = await session.call_tool("write_note", arguments)
    text = json.dumps([c.model_dump() for c in result.content])
    if owner is None or not writer.sees(owner):
        refusal = "INVALID_INPUT" if owner is None else "FORBIDDEN"
        assert result.is_error and refusal in text, f"{what}: {text}"
        del model.markers[mark]
        model.world.check(writer, what, text)
        return
    assert not result.is_error, f"{what}: {text}"
    made = result.structured_content
    assert isinstance(made, dict) and made["scope"] == scope, f"{what}: {made}"
    model.add(made["id"], owner, "note", writer.tenant)
    model.world.check(writer, what, made)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def _edit_step(server: RunningServer, model: ScopeModel, writer: Who, step: tuple[Any, ...], what: str) -> None:
    """updateDocument with a new text (and title) guarded by ifContentHash: the writer's own or a seen scope's
    document takes it; a stale hash is a CONFLICT naming the current hash, and changes nothing; a document the writer
    cannot see is NOT_FOUND, with no hash of it."""
    target, fresh = model.pick(step[2], "doc"), step[3]
    if target is None:
        return
    old = model.contents[target.id]
    mark = model.marker(target.owner)
    text = f"# Edit {mark}\nzebracorn {mark}, rewritten."
    guard = _sha256(old) if fresh else _sha256(f"{old} before an edit made meanwhile")
    body = await server.graphql(EDIT, {"id": target.id, "input": {"title": f"Doc {mark}", "content": text,
                                                                  "ifContentHash": guard}}, writer.headers)
    model.world.check(writer, what, body, sent=target.id)
    if not writer.sees(target.owner):
        assert _code(body) == "NOT_FOUND" and "contentHash" not in json.dumps(body), f"{what}: {body}"
        return
    if not fresh:
        assert _code(body) == "CONFLICT", f"{what}: {body}"
        assert body["errors"][0]["extensions"].get("contentHash") == _sha256(old), f"{what}: {body}"
        return
    assert _code(body) is None, f"{what}: {body}"
    assert body["data"]["updateDocument"] == {"id": target.id, "title": f"Doc {mark}", "contentHash": _sha256(text),
                                              "content": text}, f"{what}: {body}"
    model.titles[target.id], model.contents[target.id] = f"Doc {mark}", text


async def _scope_step(server: RunningServer, model: ScopeModel, who: list[Who], root: Path, step: tuple[Any, ...],
                      n: int) -> None:
    """Run one write and check its answer against the model; the model then records what it made or changed."""
    op = step[0]
    tenant = who[0].tenant
    what = f"step {n} {step}"
    if op in ("daily", "capture", "meeting"):
        await _day_like_step(server, model, who[step[1]], step, what)
    elif op == "mcp_note":
        await _mcp_note_step(server, model, who[step[1]], step, what)
    elif op in ("create", "upload", "note"):
        writer, owner = who[step[1]], step[2]
        mark = model.marker(owner)
        text = f"zebracorn {mark}" if op == "create" else f"# Up {mark}\nzebracorn {mark}"
        if op == "create":
            path = f"{n}-{step[3]}"
            body = await server.graphql(SCOPE_CREATE, {"input": {"path": path, "content": text,
                                                                  "title": f"Doc {mark}", **_owner_input(owner)}},
                                        writer.headers)
        elif op == "note":
            body = await server.graphql(SAVE, {"input": {"title": f"Note {mark}", "body": f"zebracorn {mark}, filed "
                                                         f"under {HUB.lower()}.", **_owner_input(owner)}},
                                        writer.headers)
        else:
            folder = step[3]
            variables = {**_owner_input(owner), "folder": folder}
            response = await upload(server, [(f"up{n}.md", text.encode())], variables,
                                    writer.headers)
            body = response.json()
        if not writer.sees(owner):
            assert _code(body) == "FORBIDDEN", f"{what}: {body}"
            model.world.check(writer, what, body)
            return
        if op == "upload" and owner == "shared" and folder in ("agents/ann", "teams/red"):
            assert _code(body) == "INVALID_INPUT", f"{what}: {body}"
            model.world.check(writer, what, body)
            return
        assert _code(body) is None, f"{what}: {body}"
        if op == "create":
            made = body["data"]["createDocument"]
            model.titles[made["id"]] = f"Doc {mark}"
            model.paths[(owner, path)] = made["id"]
            kind = "doc"
        elif op == "note":
            made = {"id": body["data"]["saveNote"]["note"]["id"]}
            model.naming_hub.add(made["id"])
            kind = "note"
        else:
            made = body["data"]["uploadDocuments"]["documents"][0]
            model.titles[made["id"]] = f"Up {mark}"
            kind = "doc"
        if kind == "doc":
            assert _owner_of(made) == owner, f"{what}: made {made}"
            model.contents[made["id"]] = text
        model.add(made["id"], owner, kind, tenant)
        model.world.check(writer, what, body)  # the answer names only what the writer sees, its new item included
    elif op == "reserved":
        writer = who[step[1]]
        body = await server.graphql(SCOPE_CREATE, {"input": {"path": step[2], "content": "zebracorn"}},
                                    writer.headers)
        refused = (body.get("errors") or [{}])[0].get("extensions")
        assert refused == {"code": "INVALID_INPUT", "field": "path"}, f"{what}: {body}"
    elif op in ("update", "delete"):
        writer, target = who[step[1]], model.pick(step[2], "doc")
        if target is None:
            return
        if op == "update":
            mark = model.marker(target.owner)
            body = await server.graphql(UPDATE, {"id": target.id, "t": f"Doc {mark}"}, writer.headers)
        else:
            body = await server.graphql(DELETE, {"id": target.id}, writer.headers)
        model.world.check(writer, what, body, sent=target.id)
        if not writer.sees(target.owner):
            assert _code(body) == "NOT_FOUND", f"{what}: {body}"
            return
        assert _code(body) is None, f"{what}: {body}"
        if op == "update":
            model.titles[target.id] = f"Doc {mark}"
        else:
            model.remove(target.id)
    elif op == "edit":
        await _edit_step(server, model, who[step[1]], step, what)
    elif op == "file":
        place, owner = step[1], FILE_PLACES[step[1]]
        place = place.replace("f.md", f"f{n}.md")
        mark = model.marker(owner or "nobody")
        (root / place).parent.mkdir(parents=True, exist_ok=True)
        (root / place).write_text(text := f"# File {mark}\nzebracorn {mark}")
        admin = who[0]
        before = set(model.world.items)
        report = (await server.data(SCOPE_RESCAN, headers=admin.headers))["rescanWorkspace"]
        if owner is None:  # in a reserved folder that names no owner: skipped (again on every later rescan)
            assert report["new"] == [] and place in {s["path"] for s in report["skipped"]}, f"{what}: {report}"
            del model.markers[mark]
            return
        assert report["new"] == [place], f"{what}: {report}"
        docs = (await server.data(ADMIN_VIEW, headers=admin.headers))["documents"]["edges"]
        [new] = [e["node"] for e in docs if e["node"]["id"] not in before]
        assert _owner_of(new) == owner, f"{what}: the file at {place} became {new}"
        model.titles[new["id"]] = f"File {mark}"
        model.contents[new["id"]] = text
        model.add(new["id"], owner, "doc", tenant)
    elif op == "link":
        writer, src, dst = who[step[1]], model.pick(step[2]), model.pick(step[3])
        if src is None or dst is None or src.id == dst.id:
            return
        body = await server.graphql(LINK, {"input": {"from": src.id, "to": dst.id, "type": "REFERENCES"}},
                                    writer.headers)
        if not (writer.sees(src.owner) and writer.sees(dst.owner)):
            assert _code(body) in ("NOT_FOUND", "FORBIDDEN"), f"{what}: {body}"
            named = set(ITEM_ID.findall(json.dumps(body))) | set(LINK_ID.findall(json.dumps(body)))
            assert named <= {src.id, dst.id}, f"{what}: the refusal names {named - {src.id, dst.id}}"
            return
        if any(s == src.id and d == dst.id for _, s, d in model.world.links.values()):
            assert _code(body) == "CONFLICT", f"{what}: {body}"
            model.world.check(writer, what, body)
            return
        assert _code(body) is None, f"{what}: {body}"
        model.world.links[body["data"]["createLink"]["id"]] = (tenant, src.id, dst.id)
        model.world.check(writer, what, body)  # after the model knows the new link: the answer names it


def _no_foreign_markers(model: ScopeModel, who: Who, what: str, text: str) -> None:
    leaked = {m for m in MARKER.findall(text) if m in model.markers and not who.sees(model.markers[m])}
    assert not leaked, f"{who.name} reads text of {sorted(model.markers[m] for m in leaked)} in {what}"


async def _scope_reads(server: RunningServer, model: ScopeModel, who: Who, tenant: str) -> None:
    world, h = model.world, who.headers
    mine = world.visible(who)
    text = world.check(who, "lists", body := await server.data(SCOPE_LISTS, headers=h))
    _no_foreign_markers(model, who, "lists", text)
    assert {e["node"]["id"] for e in body["documents"]["edges"]} == world.visible(who, "doc"), who.name
    assert {e["node"]["id"] for e in body["notes"]["edges"]} == world.visible(who, "note"), who.name
    assert body["documents"]["totalCount"] == len(world.visible(who, "doc"))
    assert body["notes"]["totalCount"] == len(world.visible(who, "note"))
    assert {n["id"] for n in body["graph"]["nodes"]} <= mine
    ids = sorted(i for i, m in world.items.items() if m.tenant == tenant)
    fields = [SCOPE_NODE.replace("$ITEM", i) for i in ids]
    fields += [SCOPE_SEARCH.replace("QUERY", query).replace("MODE", mode) for query, mode in SCOPE_SEARCHES]
    answers = await _ask_each(server, fields, h)
    for item, node in zip(ids, answers, strict=False):
        assert (node is not None) == (item in mine), f"{who.name} node({item})"
        if item == model.hub:  # shared: everyone sees it, and among its mentions exactly the notes they see
            mentioning = {e["node"]["from"]["id"] for e in node["unlinkedMentions"]["edges"]}
            assert mentioning == model.naming_hub & mine, f"{who.name}: {HUB}'s unlinked mentions"
    text = world.check(who, "node/search", answers)
    _no_foreign_markers(model, who, "node/search", text)
    word, _, part = answers[-3:]  # SCOPE_SEARCHES: a part of the word finds what the word finds, and no more
    assert {h["item"]["id"] for h in part} == {h["item"]["id"] for h in word}, f"{who.name}: 'ebracor' search"
    # By path: the document the reader may see at that path, else NOT_FOUND (never another owner's).
    for query in _aliased([f'document(path: "{p}") {{ id title }}' for p in sorted({p for _, p in model.paths})]):
        body = await server.graphql(query, headers=h)
        _no_foreign_markers(model, who, "document(path)", world.check(who, "document(path)", body))
        assert {e["extensions"]["code"] for e in body.get("errors", [])} <= {"NOT_FOUND"}, body
    if mine:
        body = await server.data("query($ids: [ID!]!) { traverse(from: $ids, hops: 3, maxNodes: 200) { count "
                                 "nodes { item { id } viaLinkId fromId } } }", {"ids": sorted(mine)}, h)
        world.check(who, "traverse from all it sees", body)


@pytest.fixture(scope="module")
async def scope_server(settings: Settings) -> AsyncIterator[RunningServer]:
    """Keys required, no rate limit, no enrichment workers: the proof is about who may write and read what, and a
    worker pool serving every tenant of the shared Neo4j would only slow it down."""
    keyed = settings.model_copy(update={"dev_mode": False, "port": 0, "rate_limit_per_second": 0.0,
                                        "enrichment_workers": False})
    async with run_server(keyed) as running:
        yield running


@hypothesis_settings(max_examples=SCOPE_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(program=st.lists(step_strategy, min_size=3, max_size=SCOPE_STEPS))
# The attack of issue 19.1, always run: bob, in the shared scope, at ann's and team red's paths and folders.
@example(program=[("create", 1, "agent:ann", "a.md"), ("reserved", 2, "agents/ann/plan.md"),
                  ("reserved", 2, "agents/bob"), ("upload", 2, "shared", "agents/ann"), ("file", "agents/f.md"),
                  ("file", "agents/ann/f.md"), ("edit", 2, 0, True), ("edit", 1, 0, False), ("edit", 1, 0, True),
                  ("update", 2, 0), ("delete", 2, 0)])
# The seeds' write paths that pick a note by slug: ann's day note stays hers, bob's capture makes his own, the admin's
# lands in the shared one, a meeting ingested twice is one note; MCP writes in every scope.
@example(program=[("daily", 1, DAYS[0]), ("capture", 2, DAYS[0]), ("capture", 0, DAYS[0]), ("capture", 1, DAYS[0]),
                  ("meeting", 3, "Standup"), ("meeting", 2, "Standup"), ("meeting", 1, "Standup"),
                  ("mcp_note", 2, ("TEAM", "red")), ("mcp_note", 2, ("TEAM", "blue")),
                  ("mcp_note", 5, ("PERSONAL", None)), ("mcp_note", 1, ("PERSONAL", None))])
async def test_scopes_hold_under_random_writes_by_random_principals(
    scope_server: RunningServer, keys: ApiKeyService, settings: Settings, program: list[tuple[Any, ...]]
) -> None:
    tenant = f"t{uuid.uuid4().hex[:16]}"
    who = [Who(name, tenant, (await keys.create(tenant, agent=agent, teams=teams, all_scopes=admin)).secret, agent,
               tuple(sorted(teams)), admin) for name, agent, teams, admin in SCOPE_KEYS]
    model = ScopeModel(World(seed=0, principals=who))
    root = Path(settings.workspace_dir) / tenant
    hub = await scope_server.data(SAVE, {"input": {"title": HUB, "body": f"zebracorn {model.marker('shared')}"}},
                                  who[0].headers)
    model.hub = hub["saveNote"]["note"]["id"]
    model.add(model.hub, "shared", "note", tenant)
    for n, step in enumerate(program):
        await _scope_step(scope_server, model, who, root, step, n)

    # The writes did exactly what the model says: the same items, owners and titles (nothing refused changed a thing).
    view = await scope_server.data(ADMIN_VIEW, headers=who[0].headers)
    docs = {e["node"]["id"]: e["node"] for e in view["documents"]["edges"]}
    notes = {e["node"]["id"]: e["node"] for e in view["notes"]["edges"]}
    assert set(docs) == model.world.visible(who[0], "doc") and set(notes) == model.world.visible(who[0], "note")
    for item_id, node in [*docs.items(), *notes.items()]:
        assert _owner_of(node) == model.world.items[item_id].owner, (item_id, node)
    assert {i: d["title"] for i, d in docs.items()} == model.titles
    # Each file holds the model's text and its hash (an edit refused for a stale hash wrote nothing).
    assert {i: (d["content"], d["contentHash"]) for i, d in docs.items()} == {
        i: (text, _sha256(text)) for i, text in model.contents.items()}

    await _bounded((_scope_reads(scope_server, model, w, tenant) for w in who), limit=3)
