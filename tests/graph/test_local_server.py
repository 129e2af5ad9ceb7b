"""The suite's own local Neo4j runs as a short-lived server: C1-compiled, plans kept (vaultgraph/neo4j_local)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vaultgraph.graph.session import Graph
from vaultgraph.neo4j_local.server import SHORT_LIVED_SETTINGS, LocalNeo4j, write_settings

pytestmark = [pytest.mark.graph]


def test_only_a_short_lived_server_gets_the_short_lived_settings(tmp_path: Path) -> None:
    long_lived = LocalNeo4j(tmp_path / "a", 7999, 512, 128)
    short_lived = LocalNeo4j(tmp_path / "b", 7999, 512, 128, short_lived=True)
    assert "min_replan_interval" not in write_settings(long_lived).read_text()
    written = write_settings(short_lived).read_text()
    assert all(f"{key}={value}\n" in written for key, value in SHORT_LIVED_SETTINGS.items())


async def test_the_suites_own_neo4j_runs_with_them(graph: Graph) -> None:
    if os.environ.get("NEO4J_URI"):  # (an xdist worker has no `local`, but its controller started the server)
        pytest.skip("NEO4J_URI names an external server; its settings are its operator's")
    records = await graph.read_records("SHOW SETTINGS YIELD name, value WHERE name IN $names RETURN name, value",
                                       names=list(SHORT_LIVED_SETTINGS))
    assert {r["name"]: r["value"] for r in records} == SHORT_LIVED_SETTINGS, (
        "a test Neo4j started before these settings is still running; stop it: "
        "VAULTGRAPH_DATA_DIR=.vaultgraph-test/7688 vaultgraph neo4j stop")
