"""The import benchmark's generated vault (bench/import_vault.py) at a small size, through `vaultgraph import-vault`
as a user runs it (the CLI's code, its progress bar and summary), so neither the generator nor the path can rot.
Nothing here is timed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from neo4j import AsyncManagedTransaction

from bench.import_vault import check, generate_vault
from vaultgraph import cli
from vaultgraph.config import Settings
from vaultgraph.graph.session import Graph
from vaultgraph.interop.vault import VaultReport

pytestmark = pytest.mark.graph

NOTES = 50
# Wikilink edges out of the tenant's notes: how many land on a note, how many on a ghost (with their counts).
EDGES = """
MATCH (:Note {tenantId: $tenant})-[r:WIKILINK]->(t)
RETURN t:Ghost AS ghost, sum(coalesce(r.count, 1)) AS links
"""


async def _edges(graph: Graph, tenant: str) -> dict[bool, int]:
    async def read(tx: AsyncManagedTransaction) -> dict[bool, int]:
        return {record["ghost"]: record["links"] async for record in await tx.run(EDGES, tenant=tenant)}

    return await graph.read(read)


async def test_a_generated_vault_imports_through_the_cli_and_again_unchanged(
    settings: Settings, graph: Graph, tenant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "vault"
    stats = generate_vault(root, NOTES, seed=3)
    assert (stats.notes, stats.files) == (NOTES, NOTES)
    assert len(list(root.rglob("*.md"))) == NOTES and (root / ".obsidian/app.json").is_file()
    command = ["import-vault", str(root), "--tenant", tenant]

    assert await asyncio.to_thread(cli.main, command, settings) == 0
    first = capsys.readouterr()
    assert f"{NOTES} files: {NOTES} created, 0 updated, 0 unchanged, 0 attachments, 0 conflicts, 0 skipped" in first.out
    assert f"] {NOTES}/{NOTES} " in first.err  # the progress bar reached the end

    assert await asyncio.to_thread(cli.main, command, settings) == 0
    second = capsys.readouterr()
    assert f"{NOTES} files: 0 created, 0 updated, {NOTES} unchanged" in second.out

    # The generator's links resolve as written: to the notes it named, and ghosts for the notes nobody wrote.
    edges = await _edges(graph, tenant)
    assert edges.get(True, 0) == stats.unresolved
    assert edges.get(False, 0) == stats.links - stats.unresolved

    # The benchmark's own checks agree with what the CLI reported.
    created = VaultReport(files=NOTES, created=[f"{n}.md" for n in range(NOTES)])
    unchanged = VaultReport(files=NOTES, unchanged=[f"{n}.md" for n in range(NOTES)])
    assert check(stats, created, unchanged, NOTES) == []
    assert check(stats, unchanged, unchanged, NOTES - 1) != []
