"""Scopes inside one tenant hold on every write path: a path never makes a file another owner's.

`agents/<id>/…` is that agent's personal space and `teams/<id>/…` that team's (vaultgraph.workspace.layout), so a
shared path there is refused by createDocument and uploads, and the scan gives a file found there to the owner its
path names, whoever wrote it. Principals are made as in development mode: X-Vaultgraph-Agent / -Teams headers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.resolvers.test_uploads_api import refusal, upload
from tests.support.server import RunningServer
from vaultgraph.config import Settings

pytestmark = [pytest.mark.security, pytest.mark.api]

ALICE = {"X-Vaultgraph-Agent": "alice"}
BOB = {"X-Vaultgraph-Agent": "bob", "X-Vaultgraph-Teams": "blue"}
CREATE = "mutation($input: DocumentInput!) { createDocument(input: $input) { id path scope agentId } }"
READ = "query($path: String!) { document(path: $path) { id content } }"
LIST = "{ documents(first: 100) { totalCount edges { node { id path scope agentId teamId content } } } }"
RESCAN = "mutation { rescanWorkspace { new skipped { path reason } } }"
FOREIGN_PATHS = ["agents/alice/plan.md", "agents/alice/planted.md", "agents/alice", "agents", "agents/x.md",
                 "teams/red/runbook.md", "teams", "Agents/alice/plan.md", "./agents/alice/plan.md",
                 "agents//alice/plan.md"]


def _error(body: dict[str, Any]) -> dict[str, Any]:
    assert body["data"] is None or not any(body["data"].values()), body
    error: dict[str, Any] = body["errors"][0]
    return error


async def test_another_agents_space_cannot_be_written_read_or_locked_through_shared_paths(
    server: RunningServer, settings: Settings, tenant: str
) -> None:
    root = Path(settings.workspace_dir) / tenant
    mine = (await server.data(CREATE, {"input": {"path": "plan.md", "content": "# Plan\nalice's secret",
                                                 "scope": "PERSONAL", "agentId": "alice"}}, ALICE))["createDocument"]
    red = (await server.data(CREATE, {"input": {"path": "runbook.md", "content": "red only", "scope": "TEAM",
                                                "teamId": "red"}}))["createDocument"]
    before = (await server.data(LIST))["documents"]

    # Bob, in the shared scope, at every path that is (or would block) alice's or team red's file: refused.
    for path in FOREIGN_PATHS:
        body = await server.graphql(CREATE, {"input": {"path": path, "content": "# Bob was here"}}, BOB)
        error = _error(body)
        assert error["extensions"] == {"code": "INVALID_INPUT", "field": "path"}, (path, error)
        assert "agents/" in error["message"] and "teams/" in error["message"], error["message"]
    # ... nor through an upload into such a folder.
    for folder in ("agents/alice", "teams/red", "agents"):
        error = refusal(await upload(server, [("planted.md", b"# Planted\n")], {"folder": folder}, BOB))
        assert error["extensions"]["code"] == "INVALID_INPUT" and error["extensions"]["field"] == "folder"

    # Bob sees nothing of alice's or red's, by list or by path.
    seen = (await server.data(LIST, headers=BOB))["documents"]
    assert seen["totalCount"] == 0 and seen["edges"] == []
    for path in ("agents/alice/plan.md", "plan.md", "runbook.md"):
        assert _error(await server.graphql(READ, {"path": path}, BOB))["extensions"]["code"] == "NOT_FOUND"
    # ... and cannot delete them.
    for item in (mine["id"], red["id"]):
        body = await server.graphql('mutation($id: ID!) { deleteDocument(id: $id) { deleted } }', {"id": item}, BOB)
        assert _error(body)["extensions"]["code"] == "NOT_FOUND"

    # Alice is unaffected: her file and document as she wrote them, and she can still write to her space.
    assert (root / "agents/alice/plan.md").read_text() == "# Plan\nalice's secret"
    assert not (root / "agents/alice/planted.md").exists() and not (root / "agents/x.md").exists()
    assert (await server.data(READ, {"path": "plan.md"}, ALICE))["document"]["content"] == "# Plan\nalice's secret"
    more = await server.data(CREATE, {"input": {"path": "notes/next.md", "content": "next", "scope": "PERSONAL",
                                                "agentId": "alice"}}, ALICE)
    assert more["createDocument"]["agentId"] == "alice"
    # A rescan finds everything where it was, owned as before; no shared document appeared.
    assert (await server.data(RESCAN))["rescanWorkspace"]["new"] == []
    after = (await server.data(LIST))["documents"]
    assert after["totalCount"] == before["totalCount"] + 1
    assert {e["node"]["scope"] for e in after["edges"]} == {"PERSONAL", "TEAM"}


async def test_a_file_in_an_agents_folder_is_that_agents_whoever_wrote_it(
    server: RunningServer, settings: Settings, tenant: str
) -> None:
    """The scan (and the watcher, through the same sync) takes ownership from the path only: a file dropped into
    `agents/alice/` is alice's; files in the reserved folders that name no owner are skipped with why."""
    root = Path(settings.workspace_dir) / tenant
    for relative in ("agents/alice/dropped.md", "agents/readme.md", "teams/notes.md", "Agents/alice/x.md"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("# Dropped\n")
    report = (await server.data(RESCAN))["rescanWorkspace"]
    assert report["new"] == ["agents/alice/dropped.md"]
    skipped = {s["path"]: s["reason"] for s in report["skipped"]}
    assert set(skipped) == {"agents/readme.md", "teams/notes.md", "Agents/alice/x.md"}
    assert all("reserved" in why for why in skipped.values()), skipped
    [edge] = (await server.data(LIST))["documents"]["edges"]
    assert (edge["node"]["path"], edge["node"]["scope"], edge["node"]["agentId"]) == ("dropped.md", "PERSONAL",
                                                                                     "alice")
    assert (await server.data(LIST, headers=BOB))["documents"]["totalCount"] == 0
