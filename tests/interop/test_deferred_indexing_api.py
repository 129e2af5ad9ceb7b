"""Imports at graph speed: importVault (and `deferIndexing` saves) commit notes, links and full text and return;
the enrichment workers embed the notes afterwards, in batches, with progress in `enrichmentProgress`. Until a
note's vector lands, keyword search finds it and the hit says `vectorAvailable: false`."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.graphql_ws import graphql_ws
from tests.support.server import RunningServer, SharedServer, run_server
from tests.support.waiting import eventually, until
from vaultgraph import cli
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

IMPORT = """mutation($path: String!) { importVault(path: $path) { created indexPending } }"""
NOTES = """{ notes(first: 20) { nodes { title indexed } } }"""
SEARCH = """query($q: String!, $mode: SearchMode!) { search(query: $q, mode: $mode, limit: 5) {
  vectorAvailable vectorScore keywordScore item { title } } }"""
PROGRESS = "{ enrichmentProgress { notesPending notesIndexed } }"
PROGRESS_STREAM = "subscription { enrichmentProgress { notesPending notesIndexed } }"
SAVE = """mutation($input: NoteInput!) { saveNote(input: $input, deferIndexing: true) { indexed note { id } } }"""
FILES = {
    "Sourdough.md": "Feed the starter flour and water, then bake the loaf in a hot oven. See [[Tides]].\n",
    "Tides.md": "The moon's pull raises the sea twice a day along the coast.\n",
    "Kites.md": "A kite needs steady wind on an open beach; [[Tides]] decide where the sand is.\n",
}


@pytest.fixture(scope="module")
async def quiet(settings: Settings) -> AsyncIterator[SharedServer]:
    """A server without workers: nothing embeds there, so the state before the vectors holds still while a test
    reads it. The shared server's workers take the test's tenant only once the test hands it to them."""
    update = {"dev_tenant": "deferred-none", "port": 0, "enrichment_workers": False}
    async with run_server(settings.model_copy(update=update)) as running:
        yield SharedServer(running)


def _vault(root: Path) -> Path:
    vault = root / "vaults" / uuid.uuid4().hex
    vault.mkdir(parents=True)
    for name, body in FILES.items():
        (vault / name).write_text(body)
    return vault


async def _titles(server: RunningServer, query: str, mode: str) -> dict[str, dict[str, Any]]:
    hits = (await server.data(SEARCH, {"q": query, "mode": mode}))["search"]
    return {hit["item"]["title"]: hit for hit in hits}


async def _pending_until_the_workers_run(server: RunningServer) -> None:
    """What a tenant sees between the import's return and the workers' batch: every note saved, none indexed,
    found by keyword with the vector channel marked unavailable, not found by vector search."""
    notes = (await server.data(NOTES))["notes"]["nodes"]
    assert sorted((n["title"], n["indexed"]) for n in notes) == [("Kites", False), ("Sourdough", False),
                                                               ("Tides", False)]
    assert (await server.data(PROGRESS))["enrichmentProgress"] == {"notesPending": 3, "notesIndexed": 0}
    found = await _titles(server, "sourdough starter loaf", "HYBRID")
    assert found["Sourdough"]["vectorAvailable"] is False and found["Sourdough"]["vectorScore"] is None
    assert found["Sourdough"]["keywordScore"] is not None
    assert "Sourdough" not in await _titles(server, "baking bread at home", "VECTOR")


async def _embedded_by_the_workers(server: RunningServer, expected: int) -> None:
    """Wake the shared server's workers with a deferred save of its own (its bus carries the news), follow the
    progress subscription down to no pending note, then find the imported notes by vector."""
    async with graphql_ws(server.url) as client:
        progress = await client.subscribe(PROGRESS_STREAM)
        first = (await client.receive(progress))["data"]["enrichmentProgress"]
        assert first["notesPending"] == expected - 1
        saved = (await server.data(SAVE, {"input": {"title": "Lighthouse", "body": "A lamp on the cliff."}}))
        assert saved["saveNote"]["indexed"] is False
        last = first
        while last["notesPending"] > 0 or last["notesIndexed"] < expected:
            last = (await client.receive(progress))["data"]["enrichmentProgress"]
        assert last == {"notesPending": 0, "notesIndexed": expected}
    notes = (await server.data(NOTES))["notes"]["nodes"]
    assert all(n["indexed"] for n in notes) and len(notes) == expected
    found = await _titles(server, "baking bread at home", "VECTOR")
    assert found["Sourdough"]["vectorAvailable"] is True and found["Sourdough"]["vectorScore"] is not None


async def test_an_import_returns_before_its_vectors_and_the_workers_embed_them(
    quiet: SharedServer, shared_server: SharedServer, tenant: str, workspace_root: Path
) -> None:
    alone = quiet.for_tenant(tenant)
    report = (await alone.data(IMPORT, {"path": str(_vault(workspace_root))}))["importVault"]
    assert sorted(report["created"]) == sorted(FILES) and report["indexPending"] == 3
    await _pending_until_the_workers_run(alone)
    await _embedded_by_the_workers(shared_server.for_tenant(tenant), expected=4)


async def test_the_cli_import_returns_before_its_vectors_too(
    settings: Settings, quiet: SharedServer, shared_server: SharedServer, tenant: str, workspace_root: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    command = ["import-vault", str(_vault(workspace_root)), "--tenant", tenant]
    # The command's own process runs no workers; a server's take over (woken here by a save, else by their sweep).
    assert await asyncio.to_thread(cli.main, command, settings) == 0
    out = capsys.readouterr().out
    assert "3 files: 3 created" in out and "3 notes queued for embedding" in out
    await _pending_until_the_workers_run(quiet.for_tenant(tenant))
    await _embedded_by_the_workers(shared_server.for_tenant(tenant), expected=4)


async def test_the_workers_index_deferred_notes_only_once_the_requests_in_flight_are_answered(
    server: RunningServer,
) -> None:
    """Interactive work first (issue 25 item 6): while a request is in flight (here one held open, as a slow
    search of another client would be), the note lane waits before it claims; it indexes once the request ends."""
    foreground = server.app.state.runtime.foreground
    bound, waits = foreground.max_wait, foreground.waits
    foreground.max_wait = 300.0  # only the end of the request lets the lane go on (its default is 1 s)
    try:
        with foreground.serving():
            saved = await server.data(SAVE, {"input": {"title": "Tide table", "body": "High water at noon."}})
            assert saved["saveNote"]["indexed"] is False
            async def lane_waits() -> bool:
                return bool(foreground.waits > waits)

            await until(lane_waits, 60, "the save's news reaches the lane, which waits for this request")
            assert (await server.data(PROGRESS))["enrichmentProgress"] == {"notesPending": 1, "notesIndexed": 0}

        async def progress() -> dict[str, int]:
            return dict((await server.data(PROGRESS))["enrichmentProgress"])

        await eventually(progress, lambda now: now["notesPending"] == 0, 60, "the note indexed once the request ended")
    finally:
        foreground.max_wait = bound


async def test_a_request_never_waits_for_itself_though_it_embeds_in_the_background_model(
    quiet: SharedServer, tenant: str,
) -> None:
    """An inline save embeds in its own request, not in a background lane: it does not give way to the requests
    in flight (itself among them)."""
    server = quiet.for_tenant(tenant)
    foreground = server.app.state.runtime.foreground
    bound = foreground.max_wait
    foreground.max_wait = 300.0
    try:
        with foreground.serving():
            inline = "mutation($input: NoteInput!) { saveNote(input: $input) { indexed } }"
            async with asyncio.timeout(60):
                saved = await server.data(inline, {"input": {"title": "Harbour", "body": "Boats moored at dusk."}})
        assert saved["saveNote"]["indexed"] is True and foreground.waits == 0
    finally:
        foreground.max_wait = bound
