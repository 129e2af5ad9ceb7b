"""A vault imported with `vaultgraph import-vault --index` is searchable like notes saved over the API: the CLI builds
the same Runtime as the server, so its note pipeline embeds and indexes (it once built a bare NoteService, and vector
search never found what the command line imported). Without `--index` the server's workers embed them
(tests/interop/test_deferred_indexing_api.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.server import RunningServer
from vaultgraph import cli
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

SEARCH = """query($q: String!) { search(query: $q, mode: VECTOR, limit: 3) { vectorScore item { title } } }"""
INDEXED = """{ notes(first: 10) { nodes { title indexed } } }"""


async def test_notes_imported_by_the_cli_are_found_by_vector_search(
    settings: Settings, server: RunningServer, tenant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Sourdough.md").write_text("Feed the starter flour and water, then bake the loaf in a hot oven.\n")
    (vault / "Tides.md").write_text("The moon's pull raises the sea twice a day along the coast.\n")
    command = ["import-vault", str(vault), "--tenant", tenant, "--index"]

    assert await asyncio.to_thread(cli.main, command, settings) == 0
    assert "2 files: 2 created" in capsys.readouterr().out

    notes = (await server.data(INDEXED))["notes"]["nodes"]
    assert sorted((n["title"], n["indexed"]) for n in notes) == [("Sourdough", True), ("Tides", True)]
    hits = (await server.data(SEARCH, {"q": "baking bread at home"}))["search"]
    assert hits and hits[0]["item"]["title"] == "Sourdough"
    assert hits[0]["vectorScore"] is not None
