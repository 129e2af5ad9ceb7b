"""SIGKILL of a real `vaultgraph serve` process halfway through 200 documents (50 in
`make test`), then a new process on the same Neo4j
and data: every document ends DONE, and only the documents whose summary was in flight at the kill are summarized
a second time (issue #4, "Done when"; also issue #8's chaos test "kill the server itself mid-enrichment").

The model is the real OpenAI-compatible test server with a fixed latency. Its summary calls are held (they arrive
and wait) until all the documents exist, so "halfway" does not depend on how fast the machine creates documents
compared with how fast it enriches them. At half done the test holds the summary calls again, so the kill certainly
lands with a summary batch in flight, and SIGKILLs the process. What was in flight is read, not guessed: a
document's summary call arrived before the kill and its summary was not in Neo4j at the kill (the call was
unanswered, or answered but not yet saved). Those are summarized twice, every other document exactly once;
documents DONE at the kill are never touched again.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.support import neo4j as test_neo4j
from tests.support.openai_server import OpenAICompatibleServer, RecordedRequest
from tests.support.processes import Clock, ServeProcess, model_env, serve_env, start_serve
from tests.support.waiting import until
from tests.workers.conftest import is_summary_call
from vaultgraph.domain import Document
from vaultgraph.graph import documents as document_cypher
from vaultgraph.graph.session import Graph

pytestmark = [pytest.mark.graph, pytest.mark.workers, pytest.mark.timeout(420)]

# 200 documents in `make test-all`; `make test` runs the same test on 50 (the kill still lands halfway, mid-batch).
SIZES = [pytest.param(200, marks=pytest.mark.slow, id="200"), pytest.param(50, id="50")]
CHAT_LATENCY = 0.3  # seconds per chat call, so calls overlap the way a remote model's do
_PATH = re.compile(r"^Path: (.*)$", re.MULTILINE)
CREATE = ("mutation($path: String!, $content: String!) "
          "{ createDocument(input: {path: $path, content: $content}) { id } }")
PROGRESS = "{ enrichmentProgress { queued running done failed skipped total } }"


def summary_paths(request: RecordedRequest) -> list[str]:
    """The document paths one summary call asked about."""
    return _PATH.findall(str(request.body["messages"][-1]["content"]))


async def create_documents(server: ServeProcess, count: int, concurrency: int = 16) -> dict[str, str]:
    """`count` documents over GraphQL, `concurrency` at a time; their ids by path."""
    gate = asyncio.Semaphore(concurrency)

    async def one(index: int) -> tuple[str, str]:
        path = f"crash/doc-{index:03d}.md"
        # Words of its own: no two documents are near enough (cosine 0.7) to be link candidates, so the test
        # spends the machine on what it checks; the classify phase still runs its vector search.
        words = [hashlib.blake2b(f"{index}/{k}".encode(), digest_size=5).hexdigest() for k in range(8)]
        content = f"# {' '.join(words[:3])}\n\n{' '.join(words)}."
        async with gate:
            data = await server.data(CREATE, {"path": path, "content": content})
        return path, str(data["createDocument"]["id"])

    return dict(await asyncio.gather(*(one(i) for i in range(count))))


async def progress(server: ServeProcess) -> dict[str, int]:
    counts: dict[str, int] = (await server.data(PROGRESS))["enrichmentProgress"]
    return counts


async def stored_documents(graph: Graph, tenant: str) -> dict[str, Document]:
    """Every document of the tenant as Neo4j holds it now, by id."""
    params = {"tenant": tenant, "ownerKeys": None, "scope": None, "docType": None, "teamId": None, "agentId": None,
              "category": None, "afterPath": None, "afterId": None, "beforePath": None, "beforeId": None,
              "limit": 10_000}
    return {d.id: d for d in await graph.read(document_cypher.documents_page, **params)}


@pytest.mark.serial
@pytest.mark.parametrize("documents", SIZES)
async def test_sigkill_of_the_server_mid_enrichment_resumes_and_summarizes_each_document_once(
    neo4j_server: test_neo4j.TestNeo4j, graph: Graph, tenant: str, tmp_path: Path, model_server: OpenAICompatibleServer,
    documents: int,
) -> None:
    model_server.set_latency(CHAT_LATENCY, route="chat")
    env = serve_env(neo4j_server.uri, tmp_path / "data", tenant, model_env(model_server))

    clock = Clock()
    first = await start_serve(env, tmp_path / "serve-1.log")
    clock.lap("first server healthy")
    try:
        # The first batches wait for their summaries until all of them exist, so the kill comes halfway through the
        # documents however fast the machine creates them compared with how fast it enriches them.
        model_server.hold(is_summary_call)
        by_path = await create_documents(first, documents)
        assert (await progress(first))["total"] == documents
        clock.lap(f"{documents} documents created")
        model_server.release()
        await until(lambda: _done_at_least(first, documents // 2), 150, "half of the documents DONE")
        clock.lap("half DONE")

        # Hold the summary calls from here: the next batch's call arrives and waits, so the kill lands mid-batch.
        held_from = time.time()
        model_server.hold(is_summary_call)

        async def summary_in_flight() -> bool:
            # One that arrived after the hold: it waits until the release, so it is still in flight at the kill (an
            # earlier one may be answered between this check and the signal).
            return any(is_summary_call(r.body) and r.received_at >= held_from
                       for r in model_server.in_flight_at(time.time(), "chat"))

        await until(summary_in_flight, 60, "a summary call in flight")
        await first.kill()
        # Read the time once the process is dead: other batches may still send a summary call between the check
        # above and the signal, and such a call was in flight at the kill too (it is asked again after).
        killed_at = time.time()
        clock.lap("killed with a summary call in flight")
    finally:
        await first.kill()
        await first.stop()
        model_server.release()  # the held calls answer into the dead process's closed sockets

    at_kill = await stored_documents(graph, tenant)
    assert set(at_kill) == set(by_path.values()), "every acknowledged document is in Neo4j"
    done_at_kill = {i: d.enrichment.updated_at for i, d in at_kill.items() if d.enrichment.stage.value == "DONE"}
    summarized_at_kill = {i for i, d in at_kill.items() if d.summary is not None}
    assert documents // 2 <= len(done_at_kill) < documents, "the kill came halfway, not at the end"

    second = await start_serve(env, tmp_path / "serve-2.log")
    clock.lap("second server healthy")
    try:
        await until(lambda: _done_at_least(second, documents), 150, f"all {documents} documents DONE after restart")
        clock.lap("all DONE")
        assert await progress(second) == {"queued": 0, "running": 0, "done": documents, "failed": 0, "skipped": 0,
                                          "total": documents}
    finally:
        await second.stop()

    after = await stored_documents(graph, tenant)
    assert all(d.enrichment.stage.value == "DONE" and d.summary for d in after.values())
    # DONE at the kill means finished for good: the new process never claimed those documents again.
    assert {i: after[i].enrichment.updated_at for i in done_at_kill} == done_at_kill

    calls = [r for r in model_server.requests("chat") if is_summary_call(r.body)]
    id_of = by_path.__getitem__
    before = Counter(id_of(p) for r in calls if r.received_at <= killed_at for p in summary_paths(r))
    later = Counter(id_of(p) for r in calls if r.received_at > killed_at for p in summary_paths(r))
    held = {id_of(p) for r in calls if r.in_flight_at(killed_at) for p in summary_paths(r)}
    in_flight = {i for i in before if i not in summarized_at_kill}  # asked, and no summary saved at the kill

    assert held, "the kill landed with a summary call in flight"
    assert held <= in_flight <= set(before)
    assert len(in_flight) <= 3 * 5, "at most the concurrent batches (3 of 5 documents) were in flight"
    assert max(before.values()) == 1, "before the kill no document was summarized twice"
    for document_id in by_path.values():
        expected = 2 if document_id in in_flight else 1
        assert before[document_id] + later[document_id] == expected, (document_id, before[document_id],
                                                                       later[document_id])
    # Summaries saved before the kill were kept: the new process did not summarize those again.
    assert not (summarized_at_kill & set(later))


async def _done_at_least(server: ServeProcess, count: int) -> bool:
    counts = await progress(server)
    assert counts["failed"] == 0 and counts["skipped"] == 0, counts
    return counts["done"] >= count
