"""The workspace watcher against the real server: files written, edited, touched and removed while it runs reach
the graph within the debounce and a little, and only the edited document is enriched again (the real workers,
the real `openai` client against tests/support/openai_server.py, events over a real WebSocket)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.graphql_ws import graphql_ws
from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from tests.support.server import RunningServer, run_server
from tests.support.waiting import eventually
from vaultgraph import file_walk
from vaultgraph.config import Settings
from vaultgraph.domain import Principal
from vaultgraph.events.bus import InProcessBus
from vaultgraph.graph.session import Graph
from vaultgraph.services.documents import DocumentFilter, DocumentService
from vaultgraph.services.links import LinkService
from vaultgraph.services.workspace_sync import WorkspaceSync
from vaultgraph.services.workspace_watch import WorkspaceWatcher
from vaultgraph.workspace import Workspace

pytestmark = [pytest.mark.api, pytest.mark.graph, pytest.mark.workers]

DEBOUNCE_MS = 500
SLACK_SECONDS = 3.0  # a loaded machine: scheduling, inotify delivery, the Bolt round trips
DEADLINE = DEBOUNCE_MS / 1000 + 2.0 + SLACK_SECONDS  # "within 2 s of the debounce", plus the slack
ENRICH_TIMEOUT = 60.0  # reaching DONE runs the whole pipeline (not the watcher's promise; generous)

DOCUMENT = "query($path: String!) { document(path: $path) { id contentHash enrichment { stage } } }"
COUNT = "{ documents { totalCount edges { node { path } } } }"
EVENTS = "subscription { enrichmentEvents { documentId stage } }"
_PATH = re.compile(r"^Path: (.+)$", re.MULTILINE)


def answer(body: dict[str, Any]) -> str:
    """A chat model that answers each summary prompt with one summary per document and links with nothing."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    count = user.count("### Document ")
    if count:
        return json.dumps([{"idx": n, "summary": f"Summary {n}.", "category": "Technology"}
                           for n in range(1, count + 1)])
    return "[]"


def summarized(model: OpenAICompatibleServer, since: int = 0) -> list[str]:
    """The document paths of the summary prompts the model has received (the documents enriched), in order."""
    paths: list[str] = []
    for request in model.requests("chat")[since:]:
        messages = request.body["messages"]
        if messages[0]["content"].startswith("You summarize"):
            paths += _PATH.findall(next(m["content"] for m in messages if m["role"] == "user"))
    return paths


@dataclass
class Watched:
    server: RunningServer
    model: OpenAICompatibleServer
    root: Path  # this tenant's folder of the workspace
    outside: Path  # a folder beside the workspace
    events: list[tuple[str, str]] = field(default_factory=list)  # (documentId, stage), as they came

    @property
    def watcher(self) -> WorkspaceWatcher:
        watcher = self.server.app.state.watcher
        assert isinstance(watcher, WorkspaceWatcher)
        return watcher

    async def document(self, path: str) -> dict[str, Any] | None:
        """The document at `path`, or None while there is none (NOT_FOUND)."""
        body = await self.server.graphql(DOCUMENT, {"path": path})
        if "errors" in body:
            assert [e["extensions"]["code"] for e in body["errors"]] == ["NOT_FOUND"], body["errors"]
            return None
        found: dict[str, Any] = body["data"]["document"]
        return found


async def until(check: Callable[[], Awaitable[Any]], seconds: float, what: str) -> Any:
    """Poll `check` until it returns something truthy (and return that); fail with `what` after `seconds`."""
    return await eventually(check, bool, seconds, what, poll=0.05)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture
async def watched(settings: Settings, tenant: str, tmp_path: Path) -> AsyncIterator[Watched]:
    """The real server with its watcher on a workspace of its own (not the session's shared one)."""
    with run_openai_server(embedding_dimensions=384) as model:
        model.on_chat(answer)
        configured = settings.model_copy(update={
            "data_dir": tmp_path / "data", "dev_tenant": tenant, "port": 0, "enrichment_tenants": [tenant],
            "workspace_watch": True, "workspace_watch_debounce_ms": DEBOUNCE_MS,
            "openai_base_url": model.base_url, "openai_api_key": "sk-test", "chat_model": "test-chat",
            "embedding_model": "test-embed", "embedding_dimensions": 384, "model_max_retries": 0,
        })
        async with run_server(configured) as server:
            root = configured.workspace_dir / tenant
            root.mkdir(parents=True)
            outside = tmp_path / "outside"
            outside.mkdir()
            state = Watched(server, model, root, outside)
            bus = server.app.state.services.enrichment.bus
            subscribers = bus.subscriber_count
            async with graphql_ws(server.url) as client:
                operation = await client.subscribe(EVENTS)

                async def collect() -> None:
                    while True:
                        event = (await client.receive(operation))["data"]["enrichmentEvents"]
                        state.events.append((event["documentId"], event["stage"]))

                collector = asyncio.create_task(collect())
                await until(lambda: _now(bus.subscriber_count > subscribers), DEADLINE,
                            "subscribed before the test writes anything")
                try:
                    yield state
                finally:
                    collector.cancel()
                    await asyncio.gather(collector, return_exceptions=True)


async def test_an_edit_updates_its_document_and_re_enriches_only_it(watched: Watched) -> None:
    assert watched.watcher.running
    (watched.root / "a.md").write_text("# Alpha\n\nThe first note.")
    (watched.root / "notes").mkdir()
    (watched.root / "notes/b.md").write_text("# Beta\n\nThe second note.")

    async def both_done() -> bool:
        documents = [await watched.document(path) for path in ("a.md", "notes/b.md")]
        return all(d is not None and d["enrichment"]["stage"] == "DONE" for d in documents)

    await until(both_done, ENRICH_TIMEOUT, "both new files registered and enriched")
    assert sorted(summarized(watched.model)) == ["a.md", "notes/b.md"]
    alpha, beta = await watched.document("a.md"), await watched.document("notes/b.md")
    assert alpha is not None and beta is not None
    assert alpha["contentHash"] == sha("# Alpha\n\nThe first note.")
    requests_before, events_before = len(watched.model.requests("chat")), len(watched.events)

    edited = "# Alpha\n\nThe first note, edited outside the API."
    (watched.root / "a.md").write_text(edited)

    async def hash_updated() -> bool:
        document = await watched.document("a.md")
        return document is not None and document["contentHash"] == sha(edited)

    await until(hash_updated, DEADLINE, "the edited file's new hash in its document")
    await until(lambda: _done(watched, alpha["id"], events_before), ENRICH_TIMEOUT, "a.md enriched again")
    batches = watched.watcher.batches
    await asyncio.sleep(DEBOUNCE_MS / 1000 * 2)  # room for any stray batch or enrichment of another document
    assert summarized(watched.model, requests_before) == ["a.md"]
    assert {doc for doc, _ in watched.events[events_before:]} == {alpha["id"]}
    beta_after = await watched.document("notes/b.md")
    assert beta_after == beta  # same hash, still DONE: untouched
    assert watched.watcher.batches == batches  # nothing further happened on disk

    # A touch and a rewrite with the same bytes change nothing: the hash is the same, nothing is queued.
    requests_before, events_before = len(watched.model.requests("chat")), len(watched.events)
    os.utime(watched.root / "notes/b.md")
    (watched.root / "notes/b.md").write_text("# Beta\n\nThe second note.")
    await until(lambda: _now(watched.watcher.batches > batches), DEADLINE, "the touch seen by the watcher")
    [report] = watched.watcher.last_reports
    assert report.tenant_id == watched.root.name
    assert (report.seen, report.unchanged, report.new, report.changed) == (1, 1, [], [])
    await asyncio.sleep(DEBOUNCE_MS / 1000)
    assert watched.events[events_before:] == []
    assert summarized(watched.model, requests_before) == []
    assert await watched.document("notes/b.md") == beta

    # Removing the file removes its document, as a scan does.
    (watched.root / "a.md").unlink()
    await until(lambda: _gone(watched, "a.md"), DEADLINE, "the removed file's document gone")
    assert await watched.document("notes/b.md") == beta


async def test_a_half_written_file_is_read_once_it_settles(watched: Watched) -> None:
    first, rest = "# Gamma\n\n" + "half of it. " * 200, "and the rest of it."
    with (watched.root / "gamma.md").open("w") as handle:
        handle.write(first)
        handle.flush()
        await asyncio.sleep(DEBOUNCE_MS / 1000 / 5)  # well inside the debounce: one batch
        handle.write(rest)

    async def whole() -> bool:
        document = await watched.document("gamma.md")
        return document is not None and document["contentHash"] == sha(first + rest)

    await until(whole, DEADLINE, "the whole file's hash in its document")


async def test_links_out_of_the_root_hidden_and_skipped_folders_never_reach_the_graph(watched: Watched) -> None:
    secret = watched.outside / "secret.md"
    secret.write_text("# Secret\n\nOutside the workspace.")
    os.symlink(secret, watched.root / "link.md")
    os.symlink(watched.outside, watched.root / "linked-folder")
    (watched.root / ".hidden").mkdir()
    (watched.root / ".hidden/private.md").write_text("# Private\n\nHidden folder.")
    (watched.root / "node_modules/dep").mkdir(parents=True)
    (watched.root / "node_modules/dep/readme.md").write_text("# Dependency\n")
    (watched.root / ".dotfile.md").write_text("# Dot\n")
    await asyncio.sleep(DEBOUNCE_MS / 1000 / 5)
    (watched.outside / "later.md").write_text("# Later\n\nWritten through the linked folder's target.")
    (watched.root / "marker.md").write_text("# Marker\n\nWritten last.")

    await until(lambda: watched.document("marker.md"), DEADLINE, "the marker file registered")
    await asyncio.sleep(DEBOUNCE_MS / 1000 * 2)  # any batch still to come from the writes above
    listing = (await watched.server.data(COUNT))["documents"]
    assert [edge["node"]["path"] for edge in listing["edges"]] == ["marker.md"]
    assert listing["totalCount"] == 1


async def _now(value: bool) -> bool:
    return value


async def _done(watched: Watched, document_id: str, since: int) -> bool:
    return (document_id, "DONE") in watched.events[since:]


async def _gone(watched: Watched, path: str) -> bool:
    return await watched.document(path) is None


# WorkspaceSync.sync_paths on its own (what the watcher hands each batch to), against the real graph.

@pytest.fixture
def sync(graph: Graph, settings: Settings) -> WorkspaceSync:
    workspace = Workspace(settings.workspace_dir)
    documents = DocumentService(graph, workspace, max_page_size=100)
    return WorkspaceSync(graph, workspace, documents, LinkService(graph, workspace, 100), InProcessBus())


@pytest.fixture
def root(settings: Settings, tenant: str) -> Path:
    folder = Path(settings.workspace_dir) / tenant
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def _paths(sync: WorkspaceSync, principal: Principal) -> list[str]:
    page = await sync.documents.page(principal, DocumentFilter(), None, None)
    return sorted(f"{d.owner.key}:{d.path}" for _, d in page.items)


async def test_a_folder_moved_in_is_walked_and_a_folder_removed_takes_its_documents(
    sync: WorkspaceSync, principal: Principal, tenant: str, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "projects"
    (outside / "atlas").mkdir(parents=True)
    (outside / "atlas/plan.md").write_text("# Plan\n")
    (outside / "readme.md").write_text("# Projects\n")
    (outside / ".cache").mkdir()
    (outside / ".cache/x.md").write_text("hidden")
    outside.rename(root / "projects")  # one event for the folder; its files are found by walking it
    report = await sync.sync_paths(tenant, ["projects"])
    assert sorted(report.new) == ["projects/atlas/plan.md", "projects/readme.md"]
    again = await sync.sync_paths(tenant, ["projects/readme.md", "projects"])
    assert (again.new, again.changed, again.unchanged) == ([], [], 2)

    (root / "teams/ops").mkdir(parents=True)
    (root / "teams/ops/runbook.md").write_text("restart it")
    assert (await sync.sync_paths(tenant, ["teams/ops/runbook.md"])).new == ["teams/ops/runbook.md"]
    assert await _paths(sync, principal) == ["shared:projects/atlas/plan.md", "shared:projects/readme.md",
                                             "team:ops:runbook.md"]

    shutil.rmtree(root / "projects")
    removed = await sync.sync_paths(tenant, ["projects"])
    assert sorted(removed.removed) == ["projects/atlas/plan.md", "projects/readme.md"]
    shutil.rmtree(root / "teams")
    assert (await sync.sync_paths(tenant, ["teams"])).removed == ["teams/ops/runbook.md"]
    assert await _paths(sync, principal) == []


async def test_traversal_links_and_skipped_folders_never_reach_the_graph(
    sync: WorkspaceSync, principal: Principal, tenant: str, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("outside")
    os.symlink(secret, root / "link.md")
    os.symlink(tmp_path, root / "linked")
    (root / ".hidden").mkdir()
    (root / ".hidden/a.md").write_text("hidden")
    (root / "node_modules").mkdir()
    (root / "node_modules/a.md").write_text("dependency")
    (root / "big.md").write_text("x" * 100)
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    monkeypatch.setattr(file_walk, "MAX_FILE_BYTES", 50)

    report = await sync.sync_paths(tenant, ["../elsewhere/x.md", "/etc/passwd", "link.md", "linked/secret.md",
                                            ".hidden/a.md", "node_modules/a.md", "big.md", "image.png"])

    why = dict(report.skipped)
    assert "inside the workspace" in why["../elsewhere/x.md"]
    assert "relative" in why["/etc/passwd"]
    assert why["link.md"] == "a symbolic link"
    assert why["big.md"] == "100 bytes; a file holds at most 50"
    assert why["image.png"] == "binary or not UTF-8 text"
    assert set(why) == {"../elsewhere/x.md", "/etc/passwd", "link.md", "big.md", "image.png"}
    assert (report.new, report.removed) == ([], [])
    assert await _paths(sync, principal) == []
