"""The bulk save (`NoteService.save_many`) against the real graph: the same drafts saved one by one and in batches
give the same graph, the same outcomes and the same errors; embeddings go in one call per batch."""

from __future__ import annotations

import random
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from neo4j import AsyncManagedTransaction

from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from tests.support.tiers import sized
from vaultgraph.config import Settings
from vaultgraph.domain import Principal, Scope
from vaultgraph.errors import AppError
from vaultgraph.graph.session import Graph
from vaultgraph.models import ModelConfig, OpenAIModelClient
from vaultgraph.services.documents import DocumentDraft, DocumentService
from vaultgraph.services.indexing import Indexer
from vaultgraph.services.notes import NoteDraft, NoteService, SaveResult
from vaultgraph.text.chunking import ChunkingPolicy
from vaultgraph.workspace import Workspace

pytestmark = pytest.mark.graph

# A small name space, so drafts collide on slugs, link to each other, to folders' notes of the same name, to
# notes that come later, and to names nobody writes.
NAMES = ("Alpha", "Beta", "Gamma", "Delta", "Omega Point", "Project Plan", "Risks", "Setup", "Inbox", "Zeta")
FOLDERS = ("", "", "", "projects/", "archive/", "projects/old/")
MISSING = ("Nobody Wrote This", "Future Idea", "Ghost Town")


def _link(rng: random.Random) -> str:
    roll = rng.random()
    name = rng.choice(NAMES) if roll < 0.8 else rng.choice(MISSING)
    if rng.random() < 0.15:
        name = rng.choice(FOLDERS[3:]) + name  # a folder path: exact, or nothing
    form = rng.random()
    if form < 0.15:
        return f"[[{name}|{rng.choice(('the plan', 'see here', 'that one'))}]]"
    if form < 0.25:
        return f"[[{name}#Details]]"
    if form < 0.32:
        return f"![[{name}]]"
    if form < 0.36:
        return "[[#Details]]"
    if form < 0.40:
        return "[[setup.md]]"  # the document, by its file name
    return f"[[{name}]]"


def _body(rng: random.Random) -> str:
    lines = []
    if rng.random() < 0.3:
        tags = rng.sample(("meeting", "idea", "ops", "review"), 2)
        lines += ["---", f"tags: [{tags[0]}, {tags[1]}]", f"aliases: [{rng.choice(NAMES)} alias]", "---"]
    lines.append(f"# {rng.choice(NAMES)}")
    for _ in range(rng.randint(1, 4)):
        words = " ".join(rng.choice(("we", "plan", "ship", "the", "risk", "later", "notes")) for _ in range(6))
        lines.append(f"{words} {_link(rng)} and {_link(rng)} #{rng.choice(('todo', 'ops', 'idea'))}")
    lines += ["## Details", "More " + _link(rng)]
    return "\n".join(lines) + "\n"


def first_round(seed: int) -> list[NoteDraft]:
    rng = random.Random(seed)
    drafts: list[NoteDraft] = []
    for n in range(70):
        name = rng.choice(NAMES)
        folder = rng.choice(FOLDERS)
        roll = rng.random()
        if roll < 0.06:  # refused before any graph work
            drafts.append(rng.choice((NoteDraft(title="   "), NoteDraft(title="x" * 501), NoteDraft(title="K", kind=""),
                                      NoteDraft(title="Bad YAML", body="---\na: [unclosed\n---\nbody"),
                                      NoteDraft(title="Nobody", scope=Scope.PERSONAL))))
            continue
        if roll < 0.12:  # a personal note, with a name of its own
            drafts.append(NoteDraft(title=f"Mine {n}", body=_body(rng), scope=Scope.PERSONAL, agent_id="ada"))
            continue
        title = name if rng.random() < 0.7 else name.lower()  # "alpha" and "Alpha" make the same slug
        slug = f"{folder}{name}" if folder else None
        drafts.append(NoteDraft(title=title, slug=slug, body=_body(rng), pinned=rng.random() < 0.1 or None,
                                kind=rng.choice(("note", "note", "moc", "meeting")), vault_path=f"{folder}{name}.md"))
    return drafts


def second_round(seed: int, ids: dict[str, str], bodies: dict[str, str]) -> list[NoteDraft]:
    """Edits of the first round's notes (ids of this tenant, by slug): new bodies, unchanged ones, renames, stale
    `ifBodySha256`, unknown ids, and more new notes."""
    rng = random.Random(seed + 1)
    drafts: list[NoteDraft] = []
    for slug in sorted(ids):
        roll = rng.random()
        title = slug.rsplit("/", 1)[-1].replace("-", " ").title()
        if roll < 0.25:
            drafts.append(NoteDraft(id=ids[slug], title=title, slug=slug, body=_body(rng)))
        elif roll < 0.4:
            drafts.append(NoteDraft(id=ids[slug], title=title + " (renamed)", slug=slug, body=bodies[slug],
                                    pinned=True))
        elif roll < 0.47:
            drafts.append(NoteDraft(id=ids[slug], title=title, slug=f"moved/{slug}", body=bodies[slug]))
        elif roll < 0.52:
            drafts.append(NoteDraft(id=ids[slug], title=title, slug=slug, body="changed", if_body_sha256="0" * 64))
        elif roll < 0.55:
            drafts.append(NoteDraft(id=ids[slug], title=title, slug="alpha", body=_body(rng)))  # may be taken
    drafts.append(NoteDraft(id="note_nope", title="Unknown"))
    for _ in range(15):
        drafts.append(NoteDraft(title=rng.choice(NAMES + MISSING), slug=rng.choice((None, "moved/beta")),
                                body=_body(rng)))
    rng.shuffle(drafts)
    return drafts


def _outcome(outcome: SaveResult | AppError) -> tuple[Any, ...]:
    if isinstance(outcome, AppError):
        details = {k: v for k, v in outcome.details.items() if k != "id"}
        return ("error", outcome.code, tuple(sorted(details.items())))
    # `sync.writes` is left out: a link within a batch binds at once, one by one it binds when its target comes,
    # so the writes fall on another note (the end state is the same, and compared below).
    return ("saved", outcome.note.slug, outcome.created, outcome.body_changed, outcome.sync.added,
            outcome.sync.removed)


SNAPSHOT_NOTES = """
MATCH (n:Note {tenantId: $tenant})
RETURN n.slug AS slug, n.ownerKey AS owner, n.title AS title, n.body AS body, n.bodySha256 AS sha,
       n.frontmatter AS frontmatter, n.tags AS tags, n.kind AS kind, n.pinned AS pinned, n.vaultPath AS vaultPath,
       n.slugName AS slugName, n.titleLower AS titleLower, n.indexed AS indexed, n.noteDate AS noteDate
"""

SNAPSHOT_LINKS = """
MATCH (s:Item {tenantId: $tenant})-[r]->(t)
RETURN coalesce(s.slug, s.path) AS source, type(r) AS type,
       CASE WHEN t:Ghost THEN 'ghost:' + t.ref ELSE coalesce(t.slug, t.path) END AS target,
       r.ref AS ref, r.label AS label, r.heading AS heading, r.context AS context, r.target AS raw,
       r.embed AS embed, r.count AS count, r.origin AS origin
"""

SNAPSHOT_GHOSTS = "MATCH (g:Ghost {tenantId: $tenant}) RETURN g.ref AS ref, COUNT { (g)<--() } AS links"


async def snapshot(graph: Graph, tenant: str) -> dict[str, Any]:
    async def read(tx: AsyncManagedTransaction) -> dict[str, Any]:
        notes = [dict(r) async for r in await tx.run(SNAPSHOT_NOTES, tenant=tenant)]
        links = [tuple(sorted(dict(r).items())) async for r in await tx.run(SNAPSHOT_LINKS, tenant=tenant)]
        ghosts = [dict(r) async for r in await tx.run(SNAPSHOT_GHOSTS, tenant=tenant)]
        return {
            "notes": sorted((tuple(sorted(n.items())) for n in notes), key=repr),
            "links": Counter(links),
            "ghosts": sorted((g["ref"], g["links"]) for g in ghosts),
        }

    return await graph.read(read)


async def _ids(graph: Graph, tenant: str) -> tuple[dict[str, str], dict[str, str]]:
    async def read(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
        result = await tx.run("MATCH (n:Note {tenantId: $tenant, ownerKey: 'shared'}) RETURN n.slug AS slug, "
                              "n.id AS id, n.body AS body", tenant=tenant)
        return [dict(r) async for r in result]

    rows = await graph.read(read)
    return {r["slug"]: r["id"] for r in rows}, {r["slug"]: r["body"] for r in rows}


@pytest.fixture
def documents(graph: Graph, settings: Settings) -> DocumentService:
    return DocumentService(graph, Workspace(settings.workspace_dir), max_page_size=100)


async def _one_by_one(notes: NoteService, principal: Principal, drafts: list[NoteDraft]) -> list[tuple[Any, ...]]:
    outcomes = []
    for draft in drafts:
        try:
            outcomes.append(_outcome(await notes.save(principal, draft)))
        except AppError as exc:
            outcomes.append(_outcome(exc))
    return outcomes


async def _run(graph: Graph, documents: DocumentService, seed: int,
               save: Callable[[NoteService, Principal, list[NoteDraft]], Any], batch_size: int) -> dict[str, Any]:
    principal = Principal(f"t{uuid.uuid4().hex[:16]}", sees_all_scopes=True)
    await documents.create(principal, DocumentDraft(path="guides/setup.md", content="# Setup\nInstall it."))
    notes = NoteService(graph, 100, batch_size=batch_size)
    first = await save(notes, principal, first_round(seed))
    ids, bodies = await _ids(graph, principal.tenant_id)
    second = await save(notes, principal, second_round(seed, ids, bodies))
    return {"first": first, "second": second, "graph": await snapshot(graph, principal.tenant_id)}


async def _in_batches(notes: NoteService, principal: Principal, drafts: list[NoteDraft]) -> list[tuple[Any, ...]]:
    return [_outcome(outcome) for outcome in await notes.save_many(principal, drafts)]


# One random set of drafts in make test (refusals, conflicts, updates and ghosts: asserted below), three in test-all.
@pytest.mark.parametrize("seed", [1, 2, 3][:sized(1, 3)])
async def test_batches_give_the_graph_of_one_by_one(graph: Graph, documents: DocumentService, seed: int) -> None:
    expected = await _run(graph, documents, seed, _one_by_one, batch_size=1)
    assert sum(1 for o in expected["first"] if o[0] == "error") >= 3  # the set has refused drafts and conflicts
    assert any(o[0] == "saved" and not o[2] for o in expected["second"])  # and updates
    assert expected["graph"]["ghosts"]  # and links that stay unresolved
    for batch_size in (7, 1000):  # many batches (links across them), and all in one
        got = await _run(graph, documents, seed, _in_batches, batch_size=batch_size)
        assert got["first"] == expected["first"], batch_size
        assert got["second"] == expected["second"], batch_size
        assert got["graph"]["notes"] == expected["graph"]["notes"], batch_size
        assert got["graph"]["ghosts"] == expected["graph"]["ghosts"], batch_size
        missing = expected["graph"]["links"] - got["graph"]["links"]
        extra = got["graph"]["links"] - expected["graph"]["links"]
        assert not missing and not extra, (batch_size, list(missing)[:5], list(extra)[:5])


async def test_links_within_a_batch_bind_to_each_other_not_to_ghosts(graph: Graph, principal: Principal) -> None:
    notes = NoteService(graph, 100)
    drafts = [NoteDraft(title="First", body="Next: [[Second]] and [[Third|3]]."),
              NoteDraft(title="Second", body="Back to [[First]]."),
              NoteDraft(title="Third", body="Nothing [[Yet To Come]].")]
    outcomes = await notes.save_many(principal, drafts)
    assert all(isinstance(o, SaveResult) and o.created for o in outcomes)
    graph_now = await snapshot(graph, principal.tenant_id)
    targets = {(dict(link)["source"], dict(link)["target"]) for link in graph_now["links"]}
    assert targets == {("first", "second"), ("first", "third"), ("second", "first"), ("third", "ghost:yet-to-come")}
    assert graph_now["ghosts"] == [("yet-to-come", 1)]

    later = await notes.save_many(principal, [NoteDraft(title="Yet To Come")])
    assert isinstance(later[0], SaveResult)
    graph_now = await snapshot(graph, principal.tenant_id)
    assert graph_now["ghosts"] == []  # the ghost bound when its note arrived, and went
    assert ("third", "yet-to-come") in {(dict(link)["source"], dict(link)["target"]) for link in graph_now["links"]}


async def test_a_refused_draft_changes_nothing_and_says_why(graph: Graph, principal: Principal) -> None:
    notes = NoteService(graph, 100)
    outcomes = await notes.save_many(principal, [
        NoteDraft(title="Good", body="[[Other]]"), NoteDraft(title=""), NoteDraft(title="good"),
        NoteDraft(title="Big", body="x" * (5 * 1024 * 1024 + 1)),
    ])
    codes = [o.code if isinstance(o, AppError) else "OK" for o in outcomes]
    assert codes == ["OK", "INVALID_INPUT", "CONFLICT", "LIMIT_EXCEEDED"]
    conflict = outcomes[2]
    assert isinstance(conflict, AppError) and conflict.details["slug"] == "good"
    graph_now = await snapshot(graph, principal.tenant_id)
    assert [dict(n)["slug"] for n in graph_now["notes"]] == ["good"]


@pytest.fixture
def model_server() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server(embedding_dimensions=384) as running:
        yield running


@pytest.fixture
async def models(model_server: OpenAICompatibleServer) -> AsyncIterator[OpenAIModelClient]:
    client = OpenAIModelClient(ModelConfig(base_url=model_server.base_url, api_key="sk-test",
                                           embedding_model="test-embed", max_retries=0, timeout_seconds=5))
    yield client
    await client.aclose()


POLICY = ChunkingPolicy(max_chars=400, overlap_chars=50, min_chars=100)
LONG = "\n\n".join(f"## Part {p}\n" + " ".join(f"words of part {p} number {i}." for i in range(14)) for p in range(3))


async def test_a_batch_is_embedded_in_one_call_and_a_failure_leaves_notes_unindexed(
    graph: Graph, models: OpenAIModelClient, model_server: OpenAICompatibleServer, principal: Principal
) -> None:
    notes = NoteService(graph, 100, indexer=Indexer(graph, models, POLICY).index_notes)
    drafts = [NoteDraft(title=f"Note {i}", body=LONG if i == 0 else f"Short body {i}.") for i in range(5)]
    outcomes = await notes.save_many(principal, drafts)
    assert all(isinstance(o, SaveResult) and o.note.indexed for o in outcomes)
    requests = model_server.requests("embeddings")
    assert len(requests) == 1  # five notes' vectors and the long one's chunks, in one call
    assert len(requests[0].body["input"]) > 5

    model_server.reset()
    model_server.fail(times=1, status=503, route="embeddings")
    more = await notes.save_many(principal, [NoteDraft(title=f"Later {i}", body=f"Later {i}.") for i in range(3)])
    assert all(isinstance(o, SaveResult) and not o.note.indexed for o in more)
    stored = await snapshot(graph, principal.tenant_id)
    assert sorted(dict(n)["slug"] for n in stored["notes"] if not dict(n)["indexed"]) == ["later-0", "later-1",
                                                                                          "later-2"]
    again = await notes.save_many(principal, [NoteDraft(id=o.note.id, title=o.note.title, body=o.note.body)
                                              for o in more if isinstance(o, SaveResult)])
    assert all(isinstance(o, SaveResult) and o.note.indexed and not o.body_changed for o in again)
