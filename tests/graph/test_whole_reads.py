"""The whole-request reads (graph/whole_reads.py, services/whole_reads.py) against the statements they stand for.

One statement now answers what several did: a note with its link pages and counts, a page of notes with their
counts, a bounded BFS with all its levels. These tests build a tenant with every case those statements filter on
(owners, ghosts, documents, archived and deleted items, link types, ties in `createdAt`) and check, for many
arguments and principals, that the answers are equal, value for value and in order, to what the per-statement
path gives: `NoteService.get_by_slug`/`get`/`page`, `LinkService.pages`/`counts`, and the BFS one level
statement at a time (links.py's `bfs_level`, the way `LinkService` ran it before).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from neo4j import AsyncManagedTransaction

from tests.support.tiers import THOROUGH, sized
from vaultgraph.config import Settings
from vaultgraph.domain import Direction, Item, Link, Principal, Reached
from vaultgraph.errors import InvalidInput, LimitExceeded, NotFound
from vaultgraph.graph import items as item_cypher
from vaultgraph.graph import links as link_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.services.links import LinkService
from vaultgraph.services.notes import NoteFilter, NoteService
from vaultgraph.services.whole_reads import MAX_ASKS, ConnectionAsk, WholeReads
from vaultgraph.workspace import Workspace

pytestmark = pytest.mark.graph

SIZE = 70
TYPES = ("WIKILINK", "RELATED", "DEPENDS_ON")

NOTES = """
UNWIND $rows AS row
CREATE (n:Item:Note {tenantId: $tenant, id: row.id, slug: row.slug, slugName: row.slug, title: row.title,
                     scope: row.scope, agentId: row.agentId, teamId: row.teamId, ownerKey: row.ownerKey,
                     body: row.body, bodySha256: '', kind: row.kind, tags: row.tags, pinned: row.pinned,
                     indexed: false, createdAt: datetime(row.createdAt), updatedAt: datetime(row.updatedAt)})
SET n.archivedAt = CASE WHEN row.archived THEN datetime(row.updatedAt) END,
    n.deletedAt = CASE WHEN row.deleted THEN datetime(row.updatedAt) END
"""

DOCUMENTS = """
UNWIND $rows AS row
CREATE (:Item:Document {tenantId: $tenant, id: row.id, path: row.path, title: row.path, docType: 'text',
                        scope: 'shared', ownerKey: 'shared', sizeBytes: 1, metadata: '{}',
                        enrichmentStage: 'DONE', createdAt: datetime(row.at), updatedAt: datetime(row.at)})
"""

LINKS = """
CYPHER 25
UNWIND $rows AS row
MATCH (s:Item {tenantId: $tenant, id: row.source})
CALL (s, row) {
  OPTIONAL MATCH (t:Item {tenantId: $tenant, id: row.target})
  WITH s, row, t
  CALL (s, row, t) {
    WITH s, row, t WHERE t IS NOT NULL
    CREATE (s)-[r:$(row.type)]->(t)
    SET r.id = row.id, r.ref = row.target, r.key = row.target, r.origin = 'wikilink', r.context = row.context,
        r.createdAt = datetime(row.at)
  }
  CALL (s, row, t) {
    WITH s, row, t WHERE t IS NULL
    MERGE (g:Ghost {tenantId: $tenant, ref: row.target})
    CREATE (s)-[r:$(row.type)]->(g)
    SET r.id = row.id, r.ref = row.target, r.key = row.target, r.origin = 'wikilink', r.context = row.context,
        r.createdAt = datetime(row.at)
  }
}
"""


def _owner(i: int) -> dict[str, Any]:
    if i >= 60:  # the slug of note i - 60 again, in another owner: `note(slug)` prefers one of them
        i = 5 if _owner(i - 60)["scope"] != "team" else 3
    if i % 7 == 3:
        return {"scope": "personal", "agentId": "a1", "teamId": None, "ownerKey": "agent:a1"}
    if i % 11 == 5:
        return {"scope": "team", "agentId": None, "teamId": "t1", "ownerKey": "team:t1"}
    return {"scope": "shared", "agentId": None, "teamId": None, "ownerKey": "shared"}


async def _build(graph: Graph, tenant: str) -> None:
    rng = random.Random(20261129)
    instants = [f"2026-11-0{d}T10:00:00Z" for d in range(1, 5)]  # few instants: many ties, broken by id
    notes = []
    for i in range(SIZE):
        notes.append({
            "id": f"note_{i:03d}", "slug": f"s{i % 60}", "title": f"Note {i}", "body": f"body {i}",
            "kind": "moc" if i % 9 == 0 else "note", "tags": ["even"] if i % 2 == 0 else [], "pinned": i % 5 == 0,
            "createdAt": rng.choice(instants), "updatedAt": rng.choice(instants),
            "archived": i % 13 == 12, "deleted": i == 40, **_owner(i),
        })
    documents = [{"id": f"doc_{i}", "path": f"d{i}.md", "at": rng.choice(instants)} for i in range(4)]
    items = [n["id"] for n in notes] + [d["id"] for d in documents]
    hubs = ["note_001", "note_002", "note_003"]
    links = []
    for source in items:
        targets = {rng.choice(hubs) if rng.random() < 0.4 else rng.choice(items) for _ in range(rng.randrange(1, 6))}
        if rng.random() < 0.2:
            targets.add(f"ghost-{rng.randrange(5)}")
        for j, target in enumerate(sorted(targets - {source})):
            links.append({"id": f"lnk_{source}_{j}", "source": source, "target": target, "type": rng.choice(TYPES),
                          "context": f"{source} → {target}", "at": rng.choice(instants)})

    async def load(tx: AsyncManagedTransaction) -> None:
        await (await tx.run(NOTES, tenant=tenant, rows=notes)).consume()
        await (await tx.run(DOCUMENTS, tenant=tenant, rows=documents)).consume()
        await (await tx.run(LINKS, tenant=tenant, rows=links)).consume()

    await graph.write(load)


@pytest.fixture
async def built(graph: Graph, tenant: str) -> str:
    await _build(graph, tenant)
    return tenant


@pytest.fixture
def services(graph: Graph, settings: Settings) -> tuple[NoteService, LinkService, WholeReads]:
    return (NoteService(graph, max_page_size=100), LinkService(graph, Workspace(settings.workspace_dir), 100),
            WholeReads(graph, 100))


def _principals(tenant: str) -> list[Principal]:
    return [Principal(tenant, sees_all_scopes=True), Principal(tenant), Principal(tenant, agent_id="a1"),
            Principal(tenant, agent_id="a2", team_ids=frozenset({"t1"}))]


# The slugs `make test` reads (test-all: every third): shared, personal (i % 7 == 3) and team (i % 11 == 5) notes,
# slugs two owners hold (below 10), archived (i % 13 == 12) ones, the deleted one (40) and mocs (i % 9 == 0).
QUICK_SLUGS = (0, 3, 5, 12, 16, 24, 38, 40, 45)

ASKS = [
    ConnectionAsk(outgoing=False, types=None, first=50, after=None, page=True, count=True),
    ConnectionAsk(outgoing=True, types=None, first=None, after=None, page=True, count=False),
    ConnectionAsk(outgoing=False, types=None, first=None, after=None, page=False, count=True),
    ConnectionAsk(outgoing=True, types=["related", "DEPENDS_ON"], first=2, after=None, page=True, count=True),
    ConnectionAsk(outgoing=False, types=["WIKILINK"], first=3, after=None, page=True, count=True),
]


async def _expected(links: LinkService, principal: Principal, item_id: str,
                    ask: ConnectionAsk) -> tuple[Any, int | None]:
    """What the loaders' statements give for one connection of one item."""
    return (await _expected_many(links, principal, [item_id], ask))[item_id]


async def _expected_many(links: LinkService, principal: Principal, item_ids: list[str],
                         ask: ConnectionAsk) -> dict[str, tuple[Any, int | None]]:
    """The same for many items at once, as the loaders batch them: one statement per ask, not one per item."""
    if not item_ids:
        return {}
    pages = (await links.pages(principal, item_ids, ask.outgoing, ask.types, ask.first, ask.after,
                               with_totals=ask.count)) if ask.page else {}
    totals = (await links.counts(principal, item_ids, ask.outgoing, ask.types)) if ask.count else {}
    return {item_id: (pages[item_id] if ask.page else None, totals.get(item_id, 0) if ask.count else None)
            for item_id in item_ids}


async def test_a_note_with_its_connections_is_what_the_separate_statements_give(
    built: str, services: tuple[NoteService, LinkService, WholeReads]
) -> None:
    notes, links, whole = services
    checked = 0
    for principal in _principals(built):
        found: dict[str, list[Any]] = {}  # note id -> the answers to ASKS, checked against the loaders below
        for i in QUICK_SLUGS if not THOROUGH else range(0, 60, 3):
            slug = f"s{i}"
            try:
                expected_note = await notes.get_by_slug(principal, slug)
            except NotFound:
                with pytest.raises(NotFound):
                    await whole.note(principal, ASKS, slug=slug)
                continue
            note, answers = await whole.note(principal, ASKS, slug=slug)
            assert note == expected_note
            assert answers[MAX_ASKS:] == [None] * (len(ASKS) - MAX_ASKS)  # past MAX_ASKS: left to the loaders
            by_id, by_id_answers = await whole.note(principal, ASKS, id=note.id)
            assert by_id == note and by_id_answers == answers
            answers = answers[:MAX_ASKS] + (await whole.note(principal, ASKS[MAX_ASKS:], slug=slug))[1]
            found[note.id] = answers
            # the next page, through the cursor the first one gave
            first = answers[0]
            assert first is not None and first.page is not None
            if first.page.has_next_page or len(first.page.items) > 1:
                after = first.page.items[0][0]
                ask = ConnectionAsk(False, None, 2, after, page=True, count=True)
                [answer] = (await whole.note(principal, [ask], slug=slug))[1]
                assert answer is not None and (answer.page, answer.total) == await _expected(
                    links, principal, note.id, ask)
        for i, ask in enumerate(ASKS):
            expected = await _expected_many(links, principal, list(found), ask)
            for note_id, answers in found.items():
                answer = answers[i]
                assert answer is not None
                assert (answer.page, answer.total) == expected[note_id], (principal, note_id, ask)
                checked += 1
    assert checked > 100


async def test_the_same_not_found_and_invalid_arguments_left_to_the_fields(
    built: str, services: tuple[NoteService, LinkService, WholeReads]
) -> None:
    notes, links, whole = services
    stranger = Principal(built, agent_id="a2")
    private = "note_003"  # agent:a1's own
    with pytest.raises(NotFound) as by_id:
        await whole.note(stranger, ASKS, id=private)
    with pytest.raises(NotFound) as expected:
        await notes.get(stranger, private)
    assert str(by_id.value) == str(expected.value)
    with pytest.raises(NotFound):
        await whole.note(stranger, ASKS, slug="no-such-slug")
    bad = [ConnectionAsk(False, None, 0, None, True, True), ConnectionAsk(False, ["no such"], 5, None, True, False),
           ConnectionAsk(True, None, 5, "not-a-cursor", True, True), ConnectionAsk(True, None, 101, None, True, True),
           ASKS[0]]
    for ask in bad[:4]:
        with pytest.raises(InvalidInput):
            await _expected(links, stranger, "note_001", ask)
    _, answers = await whole.note(stranger, [*bad[:3], ASKS[0]], slug="s1")
    assert answers[:3] == [None] * 3 and answers[3] is not None
    _, answers = await whole.note(stranger, bad[3:], slug="s1")
    assert answers[0] is None and answers[1] is not None


async def test_a_page_of_notes_with_connections_is_what_the_separate_statements_give(
    built: str, services: tuple[NoteService, LinkService, WholeReads]
) -> None:
    notes, links, whole = services
    filters = [NoteFilter(), NoteFilter(include_archived=True), NoteFilter(kind="moc"), NoteFilter(tag="even"),
               NoteFilter(pinned=True), NoteFilter(tag="nothing")]
    # Every (principal, filter, page size) in `make test-all`; in `make test` every fifth of them
    # (eight, that still take in each principal, each filter and both page sizes).
    combinations = list(itertools.product(_principals(built)[:3], filters, (7, 100)))
    for principal, flt, first in combinations[::sized(5, 1)]:
        after = None
        for _ in range(3):  # a few pages through the cursors
            expected = await notes.page(principal, flt, first, after)
            page, answers = await whole.notes_page(principal, flt, first, after, ASKS[:3])
            assert page == expected
            assert list(answers) == [note.id for _, note in expected.items]
            for i, ask in enumerate(ASKS[:3]):
                expected_answers = await _expected_many(links, principal, list(answers), ask)
                for note_id, note_answers in answers.items():
                    answer = note_answers[i]
                    assert answer is not None
                    assert (answer.page, answer.total) == expected_answers[note_id]
            if not page.has_next_page:
                break
            after = page.items[-1][0]
    empty, none = await whole.notes_page(_principals(built)[0], NoteFilter(tag="nothing"), 5, None, [])
    assert (empty.items, empty.total_count, none) == ([], 0, {})


async def _reference_traverse(
    tx: AsyncManagedTransaction, principal: Principal, seeds: list[str], hops: int, direction: Direction,
    types: list[str] | None, max_nodes: int, truncate: bool,
) -> tuple[list[Item], list[Reached], bool]:
    """The BFS as LinkService ran it before: the seed check, then one `bfs_level` statement per level."""
    found = await item_cypher.items_by_ids(tx, principal.tenant_id, list(dict.fromkeys(seeds)))
    roots: list[Item] = []
    for seed in seeds:
        item = found.get(seed)
        if item is None or not principal.may_read(item.owner):
            raise NotFound(f"no item with id {seed!r}", id=seed)
        roots.append(item)
    visited = set(seeds)
    frontier = list(dict.fromkeys(seeds))
    reached: list[Reached] = []
    for depth in range(1, hops + 1):
        rows = await link_cypher.bfs_level(
            tx, direction, tenant=principal.tenant_id, frontier=frontier, visited=list(visited), types=types,
            ownerKeys=principal.visible_owner_keys(), limit=max_nodes - len(reached) + 1)
        frontier = []
        for row in rows:
            item = row["item"]
            if item.id in visited:
                continue
            if len(reached) == max_nodes:
                if truncate:
                    return roots, reached, True
                raise LimitExceeded("over", field="maxNodes", limit=max_nodes)
            visited.add(item.id)
            frontier.append(item.id)
            reached.append(Reached(item=item, depth=depth, via_link_id=row["linkId"], via_type=row["type"],
                                   via_direction=Direction.OUT if row["outgoing"] else Direction.IN,
                                   from_id=row["fid"]))
        if not frontier:
            break
    return roots, reached, False


async def test_the_bfs_in_one_statement_is_the_bfs_level_by_level(
    built: str, graph: Graph, services: tuple[NoteService, LinkService, WholeReads]
) -> None:
    _, links, _ = services
    rng = random.Random(5)
    compared = cut = refused = 0
    for round_ in range(sized(14, 60)):
        principal = rng.choice(_principals(built))
        seeds = rng.sample([f"note_{i:03d}" for i in range(SIZE)] + ["doc_1"], rng.choice((1, 1, 2, 3)))
        hops = rng.choice((1, 2, 2, 3))
        direction = rng.choice(list(Direction))
        types = rng.choice((None, None, ["WIKILINK"], ["RELATED", "DEPENDS_ON"]))
        max_nodes = rng.choice((1, 3, 10, 25, 200))
        truncate = round_ % 2 == 0
        try:
            expected = await graph.read(_reference_traverse, principal, seeds, hops, direction, types, max_nodes,
                                        truncate)
        except NotFound:
            with pytest.raises(NotFound):
                await links.traverse(principal, seeds, hops, direction, types, max_nodes, truncate)
            continue
        except LimitExceeded:
            with pytest.raises(LimitExceeded):
                await links.traverse(principal, seeds, hops, direction, types, max_nodes, truncate)
            refused += 1
            continue
        reached, truncated = await links.traverse(principal, seeds, hops, direction, types, max_nodes, truncate)
        assert (reached, truncated) == (expected[1], expected[2]), (principal, seeds, hops, direction, types)
        compared += 1
        cut += truncated
    assert compared > sized(4, 20) and cut > 0 and refused > 0


async def test_the_graph_view_is_the_capped_bfs_and_the_edges_among_it(
    built: str, graph: Graph, services: tuple[NoteService, LinkService, WholeReads]
) -> None:
    _, links, _ = services
    principal = _principals(built)[0]
    async def reference(
        tx: AsyncManagedTransaction, center: str, hops: int, limit: int
    ) -> tuple[list[Item], list[Link], bool, list[Reached]]:
        [root], reached, truncated = await _reference_traverse(
            tx, principal, [center], hops, Direction.BOTH, None, max(1, limit - 1), True)
        nodes = [root, *(r.item for r in reached)]
        edges, _ = await link_cypher.edges_among(tx, principal.tenant_id, nodes, 5000)
        return nodes, edges, truncated, reached

    for center, hops, limit in (("note_001", 2, 201), ("note_001", 2, 6), ("note_010", 1, 50), ("doc_2", 3, 30)):
        view = await links.graph_view(principal, center, hops, limit)
        nodes, edges, truncated, reached = await graph.read(reference, center, hops, limit)
        assert (view.nodes, view.edges, view.truncated, view.reached) == (nodes, edges, truncated, reached)
        assert view.edges, center
