"""rescanWorkspace over real HTTP: the report, CONFLICT while a scan runs, and progress on enrichmentProgress."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.graphql_ws import graphql_ws
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

RESCAN = """
mutation { rescanWorkspace { scanId seen new changed unchanged removed skipped { path reason } } }
"""
PROGRESS = "subscription { enrichmentProgress { total scan { scanId total seen new changed removed skipped done } } }"


def put(root: Path, relative: str, data: bytes) -> None:
    (root / relative).parent.mkdir(parents=True, exist_ok=True)
    (root / relative).write_bytes(data)


async def test_rescan_reports_what_it_did_and_streams_its_progress(
    server: RunningServer, settings: Settings, tenant: str
) -> None:
    root = Path(settings.workspace_dir) / tenant
    put(root, "readme.md", b"# Read me\n")
    put(root, "teams/ops/runbook.md", b"restart it")
    put(root, "blob.bin", b"\x00\x01\x02")
    async with graphql_ws(server.url) as client:
        progress = await client.subscribe(PROGRESS)
        first = (await client.receive(progress))["data"]["enrichmentProgress"]
        assert first["scan"] is None
        report = (await server.data(RESCAN))["rescanWorkspace"]
        assert report["seen"] == 3
        assert sorted(report["new"]) == ["readme.md", "teams/ops/runbook.md"]
        assert report["skipped"] == [{"path": "blob.bin", "reason": "binary or not UTF-8 text"}]
        async with asyncio.timeout(10):
            while True:
                scan = (await client.receive(progress))["data"]["enrichmentProgress"]["scan"]
                if scan is not None and scan["done"]:
                    break
        assert scan == {"scanId": report["scanId"], "total": 3, "seen": 3, "new": 2, "changed": 0, "removed": 0,
                        "skipped": 1, "done": True}
    documents = await server.data("{ documents { totalCount } }")
    assert documents["documents"]["totalCount"] == 2
    again = (await server.data(RESCAN))["rescanWorkspace"]
    assert (again["new"], again["changed"], again["unchanged"], again["removed"]) == ([], [], 2, [])


async def test_a_second_rescan_while_one_runs_is_a_conflict_naming_it(server: RunningServer, tenant: str) -> None:
    sync = server.app.state.services.workspace_sync
    running = await sync.start(tenant)  # holds the tenant's scan slot as a running scan does
    try:
        body = await server.graphql(RESCAN)
        assert body["data"] is None
        [error] = body["errors"]
        assert error["extensions"]["code"] == "CONFLICT"
        assert error["extensions"]["scanId"] == running.scan_id
    finally:
        await sync.run(running)
    assert "errors" not in await server.graphql(RESCAN)


async def test_two_replicas_never_rescan_one_workspace_at_once(server: RunningServer, settings: Settings,
                                                              tenant: str) -> None:
    """Two server apps on one Neo4j (two replicas): the scan lease lives in Neo4j, so while replica A scans the
    tenant, replica B's rescanWorkspace answers CONFLICT naming A's scan; once A is done, B scans."""
    put(Path(settings.workspace_dir) / tenant, "readme.md", b"# Read me\n")
    update = {"dev_tenant": tenant, "port": 0, "enrichment_tenants": [tenant]}
    async with run_server(settings.model_copy(update=update)) as replica:
        running = await server.app.state.services.workspace_sync.start(tenant)  # A scanning, as in the test above
        try:
            body = await replica.graphql(RESCAN)
            assert body["data"] is None
            [error] = body["errors"]
            assert error["extensions"] == {"code": "CONFLICT", "scanId": running.scan_id}
        finally:
            await server.app.state.services.workspace_sync.run(running)
        report = (await replica.data(RESCAN))["rescanWorkspace"]
        assert (report["new"], report["unchanged"]) == ([], 1)  # A registered it; B finds it unchanged
