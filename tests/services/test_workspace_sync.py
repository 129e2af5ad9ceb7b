"""The workspace scan against the real graph and a real folder: new, changed, removed, skipped, limits, one at a
time per tenant, progress on the bus."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tests.support.tiers import sized
from vaultgraph import cli, file_walk
from vaultgraph.config import Settings
from vaultgraph.domain import Document, Owner, Principal, Scope
from vaultgraph.errors import Conflict, InvalidInput, LimitExceeded, NotFound
from vaultgraph.events.bus import InProcessBus, WorkspaceScanProgress
from vaultgraph.graph.session import Graph
from vaultgraph.services import workspace_sync
from vaultgraph.services.documents import DocumentDraft, DocumentFilter, DocumentService
from vaultgraph.services.links import LinkService
from vaultgraph.services.workspace_sync import WorkspaceSync
from vaultgraph.workspace import Workspace, owner_of_place, place_of

pytestmark = pytest.mark.graph


class Recorder:
    def __init__(self) -> None:
        self.documents: list[Document] = []

    async def __call__(self, document: Document) -> None:
        self.documents.append(document)


@pytest.fixture
def created() -> Recorder:
    return Recorder()


@pytest.fixture
def changed() -> Recorder:
    return Recorder()


@pytest.fixture
def bus() -> InProcessBus:
    return InProcessBus()


@pytest.fixture
def documents(graph: Graph, settings: Settings, created: Recorder) -> DocumentService:
    return DocumentService(graph, Workspace(settings.workspace_dir), max_page_size=100, on_created=created)


@pytest.fixture
def sync(graph: Graph, settings: Settings, documents: DocumentService, bus: InProcessBus,
         changed: Recorder) -> WorkspaceSync:
    workspace = Workspace(settings.workspace_dir)
    return WorkspaceSync(graph, workspace, documents, LinkService(graph, workspace, 100), bus, on_changed=changed)


@pytest.fixture
def root(settings: Settings, tenant: str) -> Path:
    folder = Path(settings.workspace_dir) / tenant
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def put(root: Path, relative: str, data: bytes | str) -> Path:
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        target.write_text(data, encoding="utf-8")
    else:
        target.write_bytes(data)
    return target


def test_ownership_comes_from_the_path_and_the_path_from_the_owner() -> None:
    assert owner_of_place("agents/bot-1/notes/a.md")[0].key == "agent:bot-1"
    assert owner_of_place("teams/ops/a.md") == (owner_of_place("teams/ops/a.md")[0], "a.md")
    assert owner_of_place("teams/ops/a.md")[0].scope is Scope.TEAM
    assert owner_of_place("agentsx/a.md")[0].scope is Scope.SHARED
    for place in ("agents/alice/x.md", "teams/ops/agents/x.md", "notes/a.md"):
        assert place_of(*owner_of_place(place)) == place  # the two directions agree
    # The reserved folders hold owners' spaces only: a file there that names no owner is nobody's.
    for reserved in ("agents/readme.md", "agents", "teams/x", "Agents/bot-1/a.md", "TEAMS/ops/a.md"):
        with pytest.raises(InvalidInput, match="reserved"):
            owner_of_place(reserved)
    for shared in ("agents/bot-1/a.md", "agents/bot-1", "teams", "Teams/ops/a.md"):
        with pytest.raises(InvalidInput, match="reserved"):
            place_of(Owner(Scope.SHARED), shared)


async def test_new_files_are_registered_as_they_are_and_a_rescan_costs_nothing(
    sync: WorkspaceSync, documents: DocumentService, principal: Principal, tenant: str, root: Path,
    created: Recorder, changed: Recorder,
) -> None:
    shared = put(root, "guides/setup.md", "# Setting up\n\nSteps.")
    put(root, "agents/bot-1/diary.md", "dear diary")
    put(root, "teams/ops/runbook.txt", "restart it")
    mtime = shared.stat().st_mtime_ns

    report = await sync.scan(tenant)

    assert (report.seen, sorted(report.new), report.changed, report.removed) == (
        3, ["agents/bot-1/diary.md", "guides/setup.md", "teams/ops/runbook.txt"], [], [])
    assert shared.stat().st_mtime_ns == mtime  # registered, not rewritten
    doc = await documents.get_by_path(principal, "guides/setup.md")
    assert (doc.title, doc.doc_type, doc.owner.scope, doc.enrichment.stage.value) == (
        "Setting up", "markdown", Scope.SHARED, "QUEUED")
    diary = await documents.get_by_path(Principal(tenant, agent_id="bot-1"), "diary.md")
    assert diary.owner.key == "agent:bot-1"
    assert len(created.documents) == 3

    again = await sync.scan(tenant)
    assert (again.seen, again.unchanged, again.new, again.changed, again.removed) == (3, 3, [], [], [])
    assert len(created.documents) == 3 and changed.documents == []


async def test_a_changed_file_gets_its_new_hash_and_is_queued_again(
    sync: WorkspaceSync, documents: DocumentService, principal: Principal, tenant: str, root: Path,
    changed: Recorder,
) -> None:
    doc = await documents.create(principal, DocumentDraft(path="a.md", content="one"))
    put(root, "a.md", "two, edited outside")
    report = await sync.scan(tenant)
    assert report.changed == ["a.md"] and report.new == []
    after = await documents.get(principal, doc.id)
    assert after.content_hash != doc.content_hash
    assert after.size_bytes == len("two, edited outside")
    assert after.enrichment.stage.value == "QUEUED"
    assert [d.id for d in changed.documents] == [doc.id]


async def test_a_removed_file_deletes_its_document(
    sync: WorkspaceSync, documents: DocumentService, principal: Principal, tenant: str, root: Path,
) -> None:
    doc = await documents.create(principal, DocumentDraft(path="gone.md", content="bye", scope=Scope.TEAM,
                                                          team_id="ops"))
    (root / "teams/ops/gone.md").unlink()
    report = await sync.scan(tenant)
    assert report.removed == ["teams/ops/gone.md"]
    with pytest.raises(NotFound):
        await documents.get(principal, doc.id)


async def test_bad_files_are_skipped_with_why_and_never_reach_the_graph(
    sync: WorkspaceSync, documents: DocumentService, principal: Principal, tenant: str, root: Path,
    tmp_path: Path,
) -> None:
    put(root, "ok.md", "fine")
    put(root, "image.png", b"\x89PNG\r\n\x1a\n\x00\x00binary")
    put(root, "latin1.txt", "caf\xe9".encode("latin-1"))
    put(root, "agents/bad key/x.md", "owner id that cannot name a folder")
    put(root, "node_modules/dep/readme.md", "ignored")
    put(root, ".hidden/secret.md", "ignored")
    outside = put(tmp_path, "outside.md", "not in the workspace")
    os.symlink(outside, root / "link.md")
    os.symlink(tmp_path, root / "linked-folder")

    report = await sync.scan(tenant)

    assert report.new == ["ok.md"]
    why = dict(report.skipped)
    assert why["image.png"] == "binary or not UTF-8 text"
    assert why["latin1.txt"] == "binary or not UTF-8 text"
    assert "letters" in why["agents/bad key/x.md"]
    assert why["link.md"] == "a symbolic link"
    assert set(why) == {"image.png", "latin1.txt", "agents/bad key/x.md", "link.md"}
    assert (await documents.page(principal, DocumentFilter(), None, None)).total_count == 1


async def test_a_file_deleted_mid_scan_is_reported_not_fatal(
    sync: WorkspaceSync, tenant: str, root: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    put(root, "stays.md", "here")

    def walk(folder: Path) -> tuple[list[tuple[str, Path]], list[tuple[str, str]]]:
        files, skipped = file_walk.walk_files(folder)
        return [("vanished.md", folder / "vanished.md"), *files], skipped

    monkeypatch.setattr(workspace_sync, "walk_files", walk)
    report = await sync.scan(tenant)
    assert report.new == ["stays.md"]
    assert report.skipped == [("vanished.md", "deleted during the scan")]


async def test_over_the_file_limit_nothing_is_scanned_and_the_slot_is_freed(
    sync: WorkspaceSync, documents: DocumentService, principal: Principal, tenant: str, root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n in range(4):
        put(root, f"n{n}.md", f"note {n}")
    monkeypatch.setattr(file_walk, "MAX_FILES", 3)
    with pytest.raises(LimitExceeded):
        await sync.scan(tenant)
    assert await sync.running_scan(tenant) is None
    with pytest.raises(NotFound):
        await documents.get_by_path(principal, "n0.md")


async def test_over_the_size_limits(tenant: str, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    put(root, "big.md", "x" * 100)
    put(root, "small.md", "x" * 10)
    monkeypatch.setattr(file_walk, "MAX_FILE_BYTES", 50)
    files, skipped = file_walk.walk_files(root)
    assert [r for r, _ in files] == ["small.md"]
    assert skipped == [("big.md", "100 bytes; a file holds at most 50")]
    monkeypatch.setattr(file_walk, "MAX_TOTAL_BYTES", 5)
    with pytest.raises(LimitExceeded):
        file_walk.walk_files(root)


async def test_one_scan_at_a_time_per_tenant_and_progress_on_the_bus(
    sync: WorkspaceSync, bus: InProcessBus, tenant: str, root: Path,
) -> None:
    put(root, "a.md", "a")
    first = await sync.start(tenant)
    assert await sync.running_scan(tenant) == first.scan_id
    with pytest.raises(Conflict) as caught:
        await sync.start(tenant)
    assert caught.value.details["scanId"] == first.scan_id
    async with bus.subscribe(lambda e: isinstance(e, WorkspaceScanProgress)) as subscription:
        await sync.run(first)
        events = subscription.drain()
    assert await sync.running_scan(tenant) is None
    last = events[-1]
    assert isinstance(last, WorkspaceScanProgress)
    assert (last.scan_id, last.done, last.seen, last.new, last.total) == (first.scan_id, True, 1, 1, 1)


async def test_the_scan_lease_is_shared_by_processes_and_a_dead_holder_frees_it_by_expiry(
    graph: Graph, settings: Settings, documents: DocumentService, bus: InProcessBus, tenant: str, root: Path,
) -> None:
    """Two WorkspaceSync objects stand for two processes on one Neo4j: one scan at a time across them, and a holder
    that died (claimed, never ran, never renewed) holds the tenant only until its lease expires."""
    put(root, "a.md", "a")
    workspace = Workspace(settings.workspace_dir)

    def process(lease_ms: int) -> WorkspaceSync:
        return WorkspaceSync(graph, workspace, documents, LinkService(graph, workspace, 100), bus,
                             lease_ms=lease_ms)

    dead, alive = process(400), process(60_000)
    claimed = await dead.start(tenant)
    with pytest.raises(Conflict) as caught:
        await alive.start(tenant)
    assert caught.value.details["scanId"] == claimed.scan_id
    assert await alive.running_scan(tenant) == claimed.scan_id
    for _ in range(600):  # the lease runs out (nobody renews it): waited for with a 30 s deadline
        if await alive.running_scan(tenant) is None:
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the dead holder's scan lease never expired")
    report = await alive.scan(tenant)
    assert report.new == ["a.md"] and await alive.running_scan(tenant) is None


async def test_the_rescan_command_prints_a_progress_line_and_a_summary(
    settings: Settings, tenant: str, root: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    count = sized(60, 300)
    for n in range(count):
        put(root, f"teams/t{n % 3}/notes/n{n:04d}.md", f"# Note {n}\n\nAbout topic {n % 7}.")
    command = ["rescan", "--tenant", tenant]
    assert await asyncio.to_thread(cli.main, command, settings) == 0
    out, err = capsys.readouterr()
    assert f"[{'#' * 30}] {count}/{count} new {count} changed 0 removed 0 skipped 0\n" in err
    [summary] = [line for line in out.splitlines() if line.startswith(f"{count} files in ")]
    assert f"{count} new, 0 changed, 0 unchanged" in summary
    assert await asyncio.to_thread(cli.main, command, settings) == 0
    [again] = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"{count} files in ")]
    assert f"0 new, 0 changed, {count} unchanged" in again
    with capsys.disabled():
        print(f"\nfirst scan: {summary}\nrescan: {again}")  # the figures, shown with -s


async def test_reading_a_file_edited_behind_the_graphs_back_catches_the_change(
    graph: Graph, settings: Settings, principal: Principal, root: Path, changed: Recorder,
) -> None:
    documents = DocumentService(graph, Workspace(settings.workspace_dir), max_page_size=100, on_changed=changed)
    doc = await documents.create(principal, DocumentDraft(path="lazy.md", content="before"))
    assert await documents.read_content(principal, doc) == "before"
    assert changed.documents == []  # unchanged: a hash, nothing written
    put(root, "lazy.md", "after, while no watcher ran")
    assert await documents.read_content(principal, doc) == "after, while no watcher ran"
    after = await documents.get(principal, doc.id)
    assert after.content_hash != doc.content_hash and after.enrichment.stage.value == "QUEUED"
    assert [d.id for d in changed.documents] == [doc.id]
    assert await documents.read_content(principal, after) == "after, while no watcher ran"
    assert len(changed.documents) == 1
