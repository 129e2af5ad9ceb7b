"""The real tasks-demo vault imported through the save pipeline, compared with Obsidian's own link index."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from neo4j import AsyncManagedTransaction

from vaultgraph.config import Settings
from vaultgraph.domain import Principal
from vaultgraph.graph.session import Graph
from vaultgraph.interop.vault import VaultService
from vaultgraph.services.documents import DocumentService
from vaultgraph.services.links import LinkService
from vaultgraph.services.notes import NoteService
from vaultgraph.workspace import Workspace

pytestmark = pytest.mark.graph

# Each wikilink edge with where it comes from and where it goes (a vault path), or its authored ref while a ghost.
EDGES = """
MATCH (s:Item {tenantId: $tenant})-[r:WIKILINK]->(t)
RETURN coalesce(s.vaultPath, s.path) AS source, CASE WHEN t:Ghost THEN null ELSE coalesce(t.vaultPath, t.path) END
       AS target, r.ref AS raw, coalesce(r.count, 1) AS count
"""


@pytest.fixture
def vault(shared_dir: Path) -> Path:
    root = shared_dir / "vaults" / "tasks-demo"
    if not root.is_dir():
        pytest.skip(f"{root} is absent")
    return root


@pytest.fixture
def service(graph: Graph, settings: Settings) -> VaultService:
    notes = NoteService(graph, max_page_size=100)
    workspace = Workspace(settings.workspace_dir)
    return VaultService(notes, DocumentService(graph, workspace, max_page_size=100),
                        LinkService(graph, workspace, max_page_size=100))


async def _edges(graph: Graph, tenant: str) -> list[dict[str, object]]:
    async def read(tx: AsyncManagedTransaction) -> list[dict[str, object]]:
        return [dict(record) async for record in await tx.run(EDGES, tenant=tenant)]

    return await graph.read(read)


async def test_import_agrees_with_obsidians_link_index(
    service: VaultService, graph: Graph, principal: Principal, vault: Path
) -> None:
    report = await service.import_vault(principal, vault / "vault")
    assert not report.conflicts and not report.skipped, (report.conflicts, report.skipped)
    resolved_truth = json.loads((vault / "obsidian-index" / "resolvedLinks.json").read_text())
    unresolved_truth = json.loads((vault / "obsidian-index" / "unresolvedLinks.json").read_text())

    resolved: Counter[tuple[str, str]] = Counter()
    unresolved: Counter[tuple[str, str]] = Counter()
    for edge in await _edges(graph, principal.tenant_id):
        if edge["target"] is None:
            unresolved[(str(edge["source"]), str(edge["raw"]))] += int(edge["count"])  # type: ignore[call-overload]
        else:
            resolved[(str(edge["source"]), str(edge["target"]))] += int(edge["count"])  # type: ignore[call-overload]
    expected_resolved = Counter({(s, t): n for s, targets in resolved_truth.items() for t, n in targets.items()
                                 if s.endswith(".md")})
    expected_unresolved = Counter({(s, t): n for s, targets in unresolved_truth.items() for t, n in targets.items()})
    assert resolved == expected_resolved
    assert unresolved == expected_unresolved


async def test_export_then_reimport_is_a_no_op(
    service: VaultService, principal: Principal, vault: Path, tmp_path: Path
) -> None:
    first = await service.import_vault(principal, vault / "vault")
    exported = await service.export_vault(principal, tmp_path / "out")
    assert len(exported.written) == len(first.created)
    assert sorted(exported.attachments) == sorted(first.attachments)  # the vault's images come back out
    for relative in (*exported.written, *exported.attachments):
        assert (tmp_path / "out" / relative).read_bytes() == (vault / "vault" / relative).read_bytes(), relative
    again = await service.import_vault(principal, tmp_path / "out")
    assert not again.created and not again.updated and not again.conflicts and not again.skipped
    assert len(again.unchanged) == len(exported.written) + len(exported.attachments)
