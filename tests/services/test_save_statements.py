"""What a save sends to Neo4j: the statements of its transaction, each a round trip, for each shape of save the
link sync reads differently (a new note, a note a ghost names, a rename that drops a link, an edit), with the graph
each one leaves. The end states are those of tests/services/test_notes.py; here the statements are the subject."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import pytest
from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note, Principal
from vaultgraph.errors import Conflict
from vaultgraph.graph import links as link_cypher
from vaultgraph.graph import note_index, wikilinks
from vaultgraph.graph import notes as note_cypher
from vaultgraph.graph.session import Graph
from vaultgraph.services.notes import NoteDraft, NoteService, SaveResult

pytestmark = pytest.mark.graph

T = TypeVar("T")


class _Recording:
    """A transaction that notes each statement it runs."""

    def __init__(self, tx: AsyncManagedTransaction, statements: list[str]) -> None:
        self.tx = tx
        self.statements = statements

    async def run(self, query: str, *args: Any, **kwargs: Any) -> Any:
        self.statements.append(query)
        return await self.tx.run(query, *args, **kwargs)


class RecordingGraph(Graph):
    """The suite's driver; every write transaction's statements in `statements`."""

    def __init__(self, graph: Graph) -> None:
        super().__init__(graph.driver, graph.database)
        self.statements: list[str] = []

    async def write(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        async def recorded(tx: AsyncManagedTransaction, *inner: Any, **named: Any) -> T:
            return await fn(_Recording(tx, self.statements), *inner, **named)

        return await super().write(recorded, *args, **kwargs)


async def _not_indexed(principal: Principal, notes: Sequence[Note]) -> list[bool]:
    return [False] * len(notes)


@pytest.fixture
def recording(graph: Graph) -> RecordingGraph:
    return RecordingGraph(graph)


@pytest.fixture
def queued() -> list[tuple[str, int]]:
    return []


@pytest.fixture
def notes(recording: RecordingGraph, queued: list[tuple[str, int]]) -> NoteService:
    async def on_deferred(tenant: str, count: int) -> None:
        queued.append((tenant, count))

    return NoteService(recording, max_page_size=100, indexer=_not_indexed, on_deferred=on_deferred)


async def _edges(graph: Graph, tenant: str) -> set[tuple[str, str, str]]:
    """(source title, key, target title or `ghost:<ref>`) of every wikilink of the tenant."""

    async def read(tx: AsyncManagedTransaction) -> set[tuple[str, str, str]]:
        result = await tx.run("""
            MATCH (s:Item {tenantId: $tenant})-[r:WIKILINK]->(t {tenantId: $tenant})
            RETURN s.title AS source, r.key AS key, CASE WHEN t:Ghost THEN 'ghost:' + t.ref ELSE t.title END AS target
            """, tenant=tenant)
        return {(record["source"], record["key"], record["target"]) async for record in result}

    return await graph.read(read)


async def _pending(graph: Graph, tenant: str) -> dict[str, tuple[bool, bool]]:
    """title -> (queued for the workers, indexed) of every note of the tenant."""

    async def read(tx: AsyncManagedTransaction) -> dict[str, tuple[bool, bool]]:
        result = await tx.run("MATCH (n:Note {tenantId: $tenant}) RETURN n.title AS title, n:IndexPending AS pending,"
                              " n.indexed AS indexed", tenant=tenant)
        return {record["title"]: (record["pending"], record["indexed"]) async for record in result}

    return await graph.read(read)


async def test_a_deferred_new_note_with_links_is_three_statements(
    notes: NoteService, recording: RecordingGraph, principal: Principal, queued: list[tuple[str, int]]
) -> None:
    await notes.save(principal, NoteDraft(title="Known", body="Here."), defer=True)
    await notes.save(principal, NoteDraft(title="Earlier", body="Waits for [[Newcomer]]."), defer=True)
    recording.statements.clear()

    saved = await notes.save(principal, NoteDraft(title="Newcomer", body="See [[Known]] and [[Nobody]]."), defer=True)

    # The note unless its slug is taken (queued as it is created), the names' locks with what is read under them,
    # and the writes: both new edges, then the ghost edge naming it moved to it; then the commit.
    assert recording.statements == [note_cypher.CREATE_UNHELD_NOTES, wikilinks.LOCKED_TARGETS_AND_EDGES,
                                    wikilinks.WRITE_EDGES]
    assert (saved.created, saved.note.indexed, saved.sync.added) == (True, False, 2)
    assert await _edges(recording, principal.tenant_id) == {
        ("Earlier", "newcomer", "Newcomer"), ("Newcomer", "known", "Known"), ("Newcomer", "nobody", "ghost:nobody")}
    assert await _pending(recording, principal.tenant_id) == {
        "Known": (True, False), "Earlier": (True, False), "Newcomer": (True, False)}
    assert queued == [(principal.tenant_id, 1)] * 3


async def test_a_new_note_without_links_that_a_ghost_names_locks_and_reads_in_one_statement(
    notes: NoteService, recording: RecordingGraph, principal: Principal
) -> None:
    await notes.save(principal, NoteDraft(title="Earlier", body="Waits for [[Quiet]]."))
    recording.statements.clear()

    await notes.save(principal, NoteDraft(title="Quiet", body="No links."))

    assert recording.statements == [note_cypher.CREATE_UNHELD_NOTES, wikilinks.LOCKED_EDGES, wikilinks.MOVE_EDGES]
    assert await _edges(recording, principal.tenant_id) == {("Earlier", "quiet", "Quiet")}
    assert await _pending(recording, principal.tenant_id) == {"Earlier": (False, False), "Quiet": (False, False)}


async def test_a_rename_that_drops_a_link_reads_what_names_it_after_the_removal(
    notes: NoteService, recording: RecordingGraph, principal: Principal
) -> None:
    old = (await notes.save(principal, NoteDraft(title="Old", body="[[Gone]] and [[Stay]]"))).note
    await notes.save(principal, NoteDraft(title="Waiting", body="Waits for [[New Name]]."))
    recording.statements.clear()

    saved = await notes.save(principal, NoteDraft(id=old.id, title="New Name", body="[[Stay]] and [[Fresh]]"),
                             defer=True)

    statements = recording.statements
    assert wikilinks.REMOVE_WIKILINKS in statements and wikilinks.LOCKED_TARGETS in statements
    assert statements.index(wikilinks.REMOVE_WIKILINKS) < statements.index(wikilinks.EDGES_NAMING)
    assert wikilinks.LOCKED_TARGETS_AND_EDGES not in statements
    assert note_index.MARK_PENDING in statements  # an update is queued by its own statement
    assert (saved.renamed, saved.sync.added, saved.sync.removed) == (True, 1, 1)
    assert await _edges(recording, principal.tenant_id) == {
        ("Waiting", "new-name", "New Name"), ("New Name", "stay", "ghost:stay"), ("New Name", "fresh", "ghost:fresh")}
    assert (await _pending(recording, principal.tenant_id))["New Name"] == (True, False)


async def test_an_edit_that_adds_a_link_looks_up_its_target_under_the_lock(
    notes: NoteService, recording: RecordingGraph, principal: Principal
) -> None:
    target = (await notes.save(principal, NoteDraft(title="Target", body="Here."))).note
    note = (await notes.save(principal, NoteDraft(title="Editing", body="Nothing yet."))).note
    recording.statements.clear()

    saved = await notes.save(principal, NoteDraft(id=note.id, title="Editing", body="Now [[Target]]."), defer=True)

    assert recording.statements == [note_cypher.NOTES_BY_IDS, note_cypher.SLUG_HOLDERS, note_cypher.UPDATE_NOTES,
                                    wikilinks.WIKILINK_KEYS, wikilinks.LOCKED_TARGETS, link_cypher.CREATE_RESOLVED,
                                    note_index.MARK_PENDING]
    assert (saved.created, saved.body_changed, saved.sync.added) == (False, True, 1)
    assert await _edges(recording, principal.tenant_id) == {("Editing", "target", "Target")}
    assert await _pending(recording, principal.tenant_id) == {"Target": (False, False), "Editing": (True, False)}
    assert target.id != note.id


async def test_new_notes_whose_slug_is_taken_conflict_with_its_holder_in_one_statement(
    notes: NoteService, recording: RecordingGraph, principal: Principal
) -> None:
    taken = (await notes.save(principal, NoteDraft(title="Taken", body="Stored."))).note
    recording.statements.clear()

    outcomes = await notes.save_many(principal, [
        NoteDraft(title="Taken", body="Again."), NoteDraft(title="Fresh", body="First."),
        NoteDraft(title="Fresh", body="Second."), NoteDraft(title="Taken", slug="elsewhere/taken", body="Free.")])

    assert recording.statements[0] == note_cypher.CREATE_UNHELD_NOTES
    assert note_cypher.SLUG_HOLDERS not in recording.statements
    first_taken, fresh, second_fresh, elsewhere = outcomes
    assert isinstance(fresh, SaveResult) and isinstance(elsewhere, SaveResult)
    assert isinstance(first_taken, Conflict) and isinstance(second_fresh, Conflict)
    assert first_taken.message == f"the slug 'taken' belongs to the note 'Taken' ({taken.id})"
    assert first_taken.details == {"id": taken.id, "slug": "taken"}
    assert second_fresh.message == f"the slug 'fresh' belongs to the note 'Fresh' ({fresh.note.id})"
    assert second_fresh.details == {"id": fresh.note.id, "slug": "fresh"}
    assert (fresh.note.body, elsewhere.note.slug) == ("First.", "elsewhere/taken")
    assert set(await _pending(recording, principal.tenant_id)) == {"Taken", "Fresh"}
