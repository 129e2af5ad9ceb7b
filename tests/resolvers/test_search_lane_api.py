"""A search's query embedding has a lane of its own: while indexing holds the offline model (an import's batch, an
enrichment batch), a hybrid search still embeds its query and answers from both channels. It once shared the one
ONNX session and its lock with indexing, and queued behind every batch in flight (4 to 17 s during an import)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import pytest

from tests.support.server import RunningServer
from vaultgraph.models import local_embedding

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { indexed } }"
SEARCH = """query($q: String!) { searchReport(query: $q, mode: HYBRID, limit: 3) {
  vector { ran skipped } hits { vectorAvailable vectorScore item { title } } } }"""


@contextlib.contextmanager
def indexing_lane_busy() -> Iterator[None]:
    """Hold every indexing-lane session of this process, as a batch that never ends would (the server under test
    runs in this process, so these are its sessions)."""
    held = [loaded.run_lock for (_, _, lane), loaded in local_embedding._SESSIONS.items() if lane == "index"]
    assert held, "the server has loaded its model"
    for lock in held:
        lock.acquire()
    try:
        yield
    finally:
        for lock in held:
            lock.release()


async def test_a_search_embeds_its_query_while_indexing_holds_the_model(server: RunningServer) -> None:
    saved = await server.data(SAVE, {"input": {"title": "Sourdough", "body": "Feed the starter, bake the loaf."}})
    assert saved["saveNote"]["indexed"] is True
    with indexing_lane_busy():
        # A deadline, not a timing: with one lane for both, this search waits as long as the batch holds the model.
        async with asyncio.timeout(60):
            report = (await server.data(SEARCH, {"q": "baking bread at home"}))["searchReport"]
    assert report["vector"] == {"ran": True, "skipped": None}
    [hit] = [hit for hit in report["hits"] if hit["item"]["title"] == "Sourdough"]
    assert hit["vectorAvailable"] is True and hit["vectorScore"] is not None
