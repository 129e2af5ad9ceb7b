"""The save pipeline and links against the real graph: the issue's scenario, measured."""

from __future__ import annotations

import asyncio

import pytest
from neo4j import AsyncManagedTransaction

from vaultgraph.config import Settings
from vaultgraph.domain import Direction, Principal, Scope
from vaultgraph.errors import Conflict, InvalidInput, NotFound
from vaultgraph.graph.session import Graph
from vaultgraph.services.days import DayService
from vaultgraph.services.documents import DocumentDraft, DocumentService
from vaultgraph.services.links import LinkDraft, LinkService
from vaultgraph.services.notes import NoteDraft, NoteFilter, NoteService
from vaultgraph.text.resolve import note_rank
from vaultgraph.workspace import Workspace

pytestmark = pytest.mark.graph


@pytest.fixture
def notes(graph: Graph) -> NoteService:
    return NoteService(graph, max_page_size=100)


@pytest.fixture
def links(graph: Graph, settings: Settings) -> LinkService:
    return LinkService(graph, Workspace(settings.workspace_dir), max_page_size=100)


@pytest.fixture
def documents(graph: Graph, settings: Settings) -> DocumentService:
    return DocumentService(graph, Workspace(settings.workspace_dir), max_page_size=100)


async def _outgoing(links: LinkService, principal: Principal, item_id: str) -> list:  # type: ignore[type-arg]
    page = (await links.pages(principal, [item_id], True, None, 100, None))[item_id]
    return [link for _, link in page.items]


async def _backlinks(links: LinkService, principal: Principal, item_id: str) -> list:  # type: ignore[type-arg]
    page = (await links.pages(principal, [item_id], False, None, 100, None))[item_id]
    return [link for _, link in page.items]


async def test_ghost_binds_when_the_target_appears(
    notes: NoteService, links: LinkService, principal: Principal
) -> None:
    a = (await notes.save(principal, NoteDraft(title="A", body="We follow [[Project Plan|the plan]] closely."))).note
    [ghost] = await _outgoing(links, principal, a.id)
    assert (ghost.key, ghost.ref, ghost.label, ghost.target_id) == ("project-plan", "Project Plan", "the plan", None)
    assert ghost.origin.value == "wikilink"

    plan = (await notes.save(principal, NoteDraft(title="Project Plan", body="The plan."))).note
    [bound] = await _outgoing(links, principal, a.id)
    assert bound.target_id == plan.id and bound.id == ghost.id and bound.key == "project-plan"
    [back] = await _backlinks(links, principal, plan.id)
    assert back.source_id == a.id
    assert "[[Project Plan|the plan]]" in (back.context or "")


async def test_outgoing_pass_binds_at_save(notes: NoteService, links: LinkService, principal: Principal) -> None:
    target = (await notes.save(principal, NoteDraft(title="Target"))).note
    source = (await notes.save(principal, NoteDraft(title="Source", body="see [[target]] and [[Target#Intro]]"))).note
    [link] = await _outgoing(links, principal, source.id)  # one edge per ref; the heading is display only
    assert link.target_id == target.id


async def test_unchanged_resave_writes_no_links(notes: NoteService, principal: Principal) -> None:
    draft = NoteDraft(title="Hub", body="[[One]] [[Two]] [[Three]] #tag")
    first = await notes.save(principal, draft)
    assert first.sync.added == 3 and first.sync.writes > 0
    again = await notes.save(principal, NoteDraft(id=first.note.id, title="Hub", body=draft.body))
    assert not again.body_changed
    assert again.sync.writes == 0 and again.sync.added == 0 and again.sync.removed == 0


async def test_edges_are_diffed_not_rewritten(notes: NoteService, links: LinkService, principal: Principal) -> None:
    saved = (await notes.save(principal, NoteDraft(title="N", body="[[One]] [[Two]]"))).note
    before = {link.key: link.id for link in await _outgoing(links, principal, saved.id)}
    result = await notes.save(principal, NoteDraft(id=saved.id, title="N", body="[[Two]] [[Three]]"))
    after = {link.key: link.id for link in await _outgoing(links, principal, saved.id)}
    assert set(after) == {"two", "three"}
    assert after["two"] == before["two"]
    assert (result.sync.added, result.sync.removed) == (1, 1)


async def test_manual_links_survive_resave(notes: NoteService, links: LinkService, principal: Principal) -> None:
    a = (await notes.save(principal, NoteDraft(title="A", body="[[B]]"))).note
    b = (await notes.save(principal, NoteDraft(title="B"))).note
    manual = await links.create(principal, LinkDraft(source_id=a.id, target_id=b.id, type="depends_on"))
    assert manual.type == "DEPENDS_ON" and manual.origin.value == "user"
    await notes.save(principal, NoteDraft(id=a.id, title="A", body="nothing now"))
    assert [link.id for link in await _outgoing(links, principal, a.id)] == [manual.id]
    with pytest.raises(Conflict):
        await links.create(principal, LinkDraft(source_id=a.id, target_id=b.id, type="DEPENDS_ON"))
    with pytest.raises(InvalidInput):
        await links.create(principal, LinkDraft(source_id=a.id, target_id=b.id, type="drop table"))


async def test_rename_binds_ghosts_of_the_new_slug(
    notes: NoteService, links: LinkService, principal: Principal
) -> None:
    a = (await notes.save(principal, NoteDraft(title="A", body="[[New Name]]"))).note
    b = (await notes.save(principal, NoteDraft(title="Old Name"))).note
    renamed = (await notes.save(principal, NoteDraft(id=b.id, title="New Name", body=""))).note
    assert renamed.slug == "new-name"
    [link] = await _outgoing(links, principal, a.id)
    assert link.target_id == b.id


async def test_hard_delete_turns_backlinks_into_ghosts(
    notes: NoteService, links: LinkService, principal: Principal
) -> None:
    a = (await notes.save(principal, NoteDraft(title="A", body="[[B]]"))).note
    b = (await notes.save(principal, NoteDraft(title="B", body="[[A]]"))).note
    await links.hard_delete(principal, b)
    [ghost] = await _outgoing(links, principal, a.id)
    assert ghost.target_id is None and ghost.key == "b"
    with pytest.raises(NotFound):
        await notes.get(principal, b.id)
    again = (await notes.save(principal, NoteDraft(title="B"))).note
    [bound] = await _outgoing(links, principal, a.id)
    assert bound.target_id == again.id and bound.id == ghost.id


async def test_archive_keeps_everything(notes: NoteService, links: LinkService, principal: Principal) -> None:
    a = (await notes.save(principal, NoteDraft(title="A", body="[[B]]"))).note
    b = (await notes.save(principal, NoteDraft(title="B"))).note
    await notes.archive(principal, b.id)
    assert [link.target_id for link in await _outgoing(links, principal, a.id)] == [b.id]
    active = await notes.page(principal, NoteFilter(), None, None)
    assert [n.id for _, n in active.items] == [a.id]
    everything = await notes.page(principal, NoteFilter(include_archived=True), None, None)
    assert {n.id for _, n in everything.items} == {a.id, b.id}


async def test_wikilinks_resolve_to_documents_in_goclaw_order(
    notes: NoteService, documents: DocumentService, links: LinkService, principal: Principal
) -> None:
    doc = await documents.create(principal, DocumentDraft(path="guides/setup.md", content="# Setup"))
    n = (await notes.save(principal, NoteDraft(title="N", body="[[setup]] and [[guides/setup.md]]"))).note
    assert {link.target_id for link in await _outgoing(links, principal, n.id)} == {doc.id}


async def test_document_created_later_binds_ghosts(
    notes: NoteService, documents: DocumentService, links: LinkService, principal: Principal
) -> None:
    n = (await notes.save(principal, NoteDraft(title="N", body="read [[runbook]]"))).note
    doc = await documents.create(principal, DocumentDraft(path="ops/runbook.md", content="# Runbook"))
    [link] = await _outgoing(links, principal, n.id)
    assert link.target_id == doc.id


async def test_frontmatter_tags_and_bad_yaml(notes: NoteService, principal: Principal) -> None:
    body = "---\ntags: [alpha]\nstatus: draft\n---\nText #beta and #123 and `#code`\n"
    note = (await notes.save(principal, NoteDraft(title="F", body=body))).note
    assert note.frontmatter == {"tags": ["alpha"], "status": "draft"}
    assert note.tags == ("alpha", "beta")
    with pytest.raises(InvalidInput) as caught:
        await notes.save(principal, NoteDraft(title="G", body="---\na: [unclosed\n---\n"))
    assert caught.value.field == "body"


async def test_duplicate_slug_is_a_conflict_naming_the_note(notes: NoteService, principal: Principal) -> None:
    first = (await notes.save(principal, NoteDraft(title="Same"))).note
    with pytest.raises(Conflict) as caught:
        await notes.save(principal, NoteDraft(title="same!"))
    assert caught.value.details["id"] == first.id


async def test_daily_and_capture(notes: NoteService, links: LinkService, principal: Principal) -> None:
    days = DayService(notes)
    first = await days.capture(principal, "met [[Alice]] about #hiring")
    second = await days.capture(principal, "second thought")
    daily = second.note
    assert daily.slug.startswith("daily/") and daily.kind == "daily" and daily.id == first.note.id
    bullets = [line for line in daily.body.splitlines() if line.startswith("- ")]
    assert len(bullets) == 2 and bullets[0].endswith("met [[Alice]] about #hiring")
    assert "hiring" in daily.tags
    assert [link.key for link in await _outgoing(links, principal, daily.id)] == ["alice"]


async def test_scopes_in_links(notes: NoteService, links: LinkService, principal: Principal) -> None:
    team_note = (await notes.save(principal, NoteDraft(title="Team Doc", scope=Scope.TEAM, team_id="ops"))).note
    mine = (await notes.save(principal, NoteDraft(title="Mine", scope=Scope.PERSONAL, agent_id="bot"))).note
    link = await links.create(principal, LinkDraft(source_id=mine.id, target_id=team_note.id, type="REFERENCES"))
    outsider = Principal(principal.tenant_id, agent_id="other")
    with pytest.raises(NotFound):
        await links.get(outsider, link.id)
    with pytest.raises(NotFound):
        await links.traverse(outsider, [mine.id])
    stranger = Principal(principal.tenant_id + "z", sees_all_scopes=True)
    with pytest.raises(NotFound):
        await links.create(stranger, LinkDraft(source_id=mine.id, target_id=team_note.id, type="RELATED"))
    member = Principal(principal.tenant_id, agent_id="bot", team_ids=frozenset({"ops"}))
    reached, _ = await links.traverse(member, [mine.id], hops=1, direction=Direction.OUT)
    assert [r.item.id for r in reached] == [team_note.id]


def choose_note(key: str, source: str, candidates: list[tuple[str, str]]) -> str | None:
    ranked = [(rank, id) for slug, id in candidates if (rank := note_rank(key, source, slug)) is not None]
    return min(ranked)[1] if ranked else None


def test_note_rank_follows_obsidian_order() -> None:
    candidates = [("filters/explain-filters", "a"), ("other/explain-filters", "b"), ("explain-filters-x", "c")]
    assert choose_note("explain-filters", "filters/index", candidates) == "a"  # the source's own folder
    assert choose_note("explain-filters", "readme", candidates) == "b"  # shortest path
    assert choose_note("other/explain-filters", "filters/index", candidates) == "b"  # exact path
    assert choose_note("nothing", "readme", candidates) is None


async def test_links_resolve_by_name_across_folders(
    notes: NoteService, links: LinkService, principal: Principal
) -> None:
    deep = (await notes.save(principal, NoteDraft(title="Explain Filters", slug="Filters/Explain Filters"))).note
    body = "[[Explain Filters]] [[explain filters]]"
    source = (await notes.save(principal, NoteDraft(title="Index", body=body))).note
    [link] = await _outgoing(links, principal, source.id)
    assert link.target_id == deep.id and deep.slug == "filters/explain-filters"
    ghost = (await notes.save(principal, NoteDraft(title="Later", body="[[Runbooks]]"))).note
    created = (await notes.save(principal, NoteDraft(title="Runbooks", slug="ops/runbooks"))).note
    [bound] = await _outgoing(links, principal, ghost.id)
    assert bound.target_id == created.id


async def test_a_better_named_note_claims_existing_bindings(
    notes: NoteService, links: LinkService, principal: Principal
) -> None:
    far = (await notes.save(principal, NoteDraft(title="Plan", slug="archive/old/plan"))).note
    source = (await notes.save(principal, NoteDraft(title="Index", slug="work/index", body="[[Plan]]"))).note
    [link] = await _outgoing(links, principal, source.id)
    assert link.target_id == far.id
    near = (await notes.save(principal, NoteDraft(title="Plan", slug="work/plan"))).note  # the source's own folder
    [moved] = await _outgoing(links, principal, source.id)
    assert moved.target_id == near.id and moved.id == link.id
    farther = (await notes.save(principal, NoteDraft(title="Plan", slug="x/y/z/plan"))).note
    [kept] = await _outgoing(links, principal, source.id)
    assert kept.target_id == near.id != farther.id


async def test_unbound_backlinks_get_a_fresh_fuzzy_look(
    notes: NoteService, links: LinkService, graph: Graph, principal: Principal
) -> None:
    a = (await notes.save(principal, NoteDraft(title="A", body="[[B]]"))).note
    b = (await notes.save(principal, NoteDraft(title="B"))).note

    async def mark(tx: AsyncManagedTransaction) -> None:
        await tx.run("MATCH (:Item {tenantId: $t, id: $id})-[r:WIKILINK]->() SET r.fuzzyCheckedAt = datetime()",
                     t=principal.tenant_id, id=a.id)

    async def checked(tx: AsyncManagedTransaction) -> list[object]:
        result = await tx.run("MATCH (:Item {tenantId: $t, id: $id})-[r:WIKILINK]->() RETURN r.fuzzyCheckedAt AS c",
                              t=principal.tenant_id, id=a.id)
        return [record["c"] async for record in result]

    await graph.write(mark)
    await links.hard_delete(principal, b)
    assert await graph.read(checked) == [None]


async def test_concurrent_saves_that_link_and_unlink_one_ghost_all_succeed(
    notes: NoteService, links: LinkService, principal: Principal
) -> None:
    # Saves that drop the last link to a ghost delete it, while others link to it: each deletion must see a link
    # committed meanwhile (it locks the ghost before it looks), so no save fails and every link ends where it should.
    writers = [(await notes.save(principal, NoteDraft(title=f"Writer {n}", body="nothing yet"))).note for n in range(8)]

    async def flip(n: int, rounds: int) -> None:
        for r in range(rounds):
            linked = (n + r) % 2 == 0
            body = "see [[Shared Missing Page]]" if linked else "no link now"
            await notes.save(principal, NoteDraft(title=f"Writer {n}", id=writers[n].id, body=body))

    await asyncio.gather(*(flip(n, 10) for n in range(8)))
    for n, writer in enumerate(writers):
        outgoing = await _outgoing(links, principal, writer.id)
        linked_last = (n + 9) % 2 == 0
        assert [link.key for link in outgoing] == (["shared-missing-page"] if linked_last else [])
