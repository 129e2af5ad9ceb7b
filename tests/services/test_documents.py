"""The document service against the real graph: create, read, list, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgraph.config import Settings
from vaultgraph.domain import Principal, Scope
from vaultgraph.errors import Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound
from vaultgraph.graph.session import Graph
from vaultgraph.services.documents import DocumentDraft, DocumentFilter, DocumentService
from vaultgraph.workspace import Workspace

pytestmark = pytest.mark.graph


@pytest.fixture
def service(graph: Graph, settings: Settings) -> DocumentService:
    return DocumentService(graph, Workspace(settings.workspace_dir), max_page_size=100)


async def test_create_writes_the_file_and_registers_it(
    service: DocumentService, principal: Principal, settings: Settings
) -> None:
    doc = await service.create(principal, DocumentDraft(path="guides/setup.md", content="# Setting up\n\nSteps."))
    assert doc.title == "Setting up"
    assert doc.doc_type == "markdown"
    assert doc.enrichment.stage.value == "QUEUED"
    assert len(doc.content_hash or "") == 64
    file = Path(settings.workspace_dir) / principal.tenant_id / "guides/setup.md"
    assert file.read_text() == "# Setting up\n\nSteps."
    assert await service.get(principal, doc.id) == doc
    assert (await service.get_by_path(principal, "./guides//setup.md")).id == doc.id


async def test_same_path_twice_is_a_conflict_and_changes_nothing(
    service: DocumentService, principal: Principal
) -> None:
    await service.create(principal, DocumentDraft(path="a.md", content="one"))
    with pytest.raises(Conflict):
        await service.create(principal, DocumentDraft(path="a.md", content="two"))
    doc = await service.get_by_path(principal, "a.md")
    assert await service.read_content(principal, doc) == "one"


async def test_same_path_in_other_owners_is_allowed(service: DocumentService, principal: Principal) -> None:
    shared = await service.create(principal, DocumentDraft(path="a.md", content="shared"))
    team = await service.create(principal, DocumentDraft(path="a.md", content="t", scope=Scope.TEAM, team_id="ops"))
    mine = await service.create(
        principal, DocumentDraft(path="a.md", content="p", scope=Scope.PERSONAL, agent_id="bot-1")
    )
    assert len({shared.id, team.id, mine.id}) == 3
    assert await service.read_content(principal, team) == "t"


@pytest.mark.parametrize(
    ("draft", "field"),
    [
        (DocumentDraft(path="../escape.md", content="x"), "path"),
        (DocumentDraft(path="/etc/passwd", content="x"), "path"),
        (DocumentDraft(path="a\\b.md", content="x"), "path"),
        (DocumentDraft(path="  ", content="x"), "path"),
        (DocumentDraft(path="a.md", content="x", scope=Scope.PERSONAL), "agentId"),
        (DocumentDraft(path="a.md", content="x", scope=Scope.TEAM), "teamId"),
        (DocumentDraft(path="a.md", content="x", scope=Scope.SHARED, team_id="ops"), "scope"),
        (DocumentDraft(path="a.md", content="x", scope=Scope.TEAM, team_id="../x"), "teamId"),
    ],
)
async def test_bad_input_names_the_field_and_writes_nothing(
    service: DocumentService, principal: Principal, draft: DocumentDraft, field: str
) -> None:
    with pytest.raises(InvalidInput) as caught:
        await service.create(principal, draft)
    assert caught.value.field == field
    assert (await service.page(principal, DocumentFilter(), None, None)).total_count == 0


async def test_content_over_the_limit_is_refused(service: DocumentService, principal: Principal) -> None:
    with pytest.raises(LimitExceeded):
        await service.create(principal, DocumentDraft(path="big.txt", content="x" * (50 * 1024 * 1024 + 1)))


async def test_pages_walk_every_document_once(service: DocumentService, principal: Principal) -> None:
    paths = [f"notes/{i:02d}.md" for i in range(7)]
    for path in reversed(paths):
        await service.create(principal, DocumentDraft(path=path, content=path))
    seen: list[str] = []
    after = None
    while True:
        page = await service.page(principal, DocumentFilter(), 3, after)
        assert page.total_count == 7
        seen += [doc.path for _, doc in page.items]
        if not page.has_next_page:
            break
        after = page.items[-1][0]
    assert seen == paths


async def test_filters(service: DocumentService, principal: Principal) -> None:
    await service.create(principal, DocumentDraft(path="a.md", content="a", category="Technology"))
    await service.create(principal, DocumentDraft(path="b.csv", content="b", scope=Scope.TEAM, team_id="ops"))
    by_type = await service.page(principal, DocumentFilter(doc_type="csv"), None, None)
    assert [d.path for _, d in by_type.items] == ["b.csv"]
    by_team = await service.page(principal, DocumentFilter(scope=Scope.TEAM, team_id="ops"), None, None)
    assert [d.path for _, d in by_team.items] == ["b.csv"]
    by_category = await service.page(principal, DocumentFilter(category="Technology"), None, None)
    assert [d.path for _, d in by_category.items] == ["a.md"]


async def test_page_size_limits(service: DocumentService, principal: Principal) -> None:
    with pytest.raises(InvalidInput):
        await service.page(principal, DocumentFilter(), 101, None)
    with pytest.raises(InvalidInput):
        await service.page(principal, DocumentFilter(), 0, None)
    with pytest.raises(InvalidInput):
        await service.page(principal, DocumentFilter(), 5, "bm90IGEgY3Vyc29y")


async def test_tenants_never_see_each_other(service: DocumentService, principal: Principal) -> None:
    doc = await service.create(principal, DocumentDraft(path="secret.md", content="mine"))
    stranger = Principal(tenant_id=principal.tenant_id + "x", sees_all_scopes=True)
    with pytest.raises(NotFound):
        await service.get(stranger, doc.id)
    with pytest.raises(NotFound):
        await service.get_by_path(stranger, "secret.md")
    assert (await service.page(stranger, DocumentFilter(), None, None)).total_count == 0


async def test_scopes_are_visible_only_to_their_owners(service: DocumentService, principal: Principal) -> None:
    personal = await service.create(
        principal, DocumentDraft(path="p.md", content="p", scope=Scope.PERSONAL, agent_id="bot-1")
    )
    team = await service.create(principal, DocumentDraft(path="t.md", content="t", scope=Scope.TEAM, team_id="ops"))
    other_agent = Principal(principal.tenant_id, agent_id="bot-2", team_ids=frozenset({"sales"}))
    assert await service.find(other_agent, personal.id) is None
    assert await service.find(other_agent, team.id) is None
    member = Principal(principal.tenant_id, agent_id="bot-1", team_ids=frozenset({"ops"}))
    assert await service.find(member, personal.id) == personal
    assert await service.find(member, team.id) == team
    with pytest.raises(Forbidden):
        await service.create(other_agent, DocumentDraft(path="x.md", content="x", scope=Scope.TEAM, team_id="ops"))
