"""Past one machine, on loopback: Neo4j, Redis, two API replicas and two workers as real processes.

500 documents (30 in `make test`) created through replica A are enriched exactly once each by the two workers (one
summary each, five to a call, no stage event twice); a subscriber on replica B sees every document's stages (QUEUED
from A, the rest from the workers, all through Redis) up to DONE; past a third of them DONE, the worker a batch of
which is waiting on the model is killed with SIGKILL (so work in flight is certainly lost), and the other takes its
documents over once their leases run out, so all end DONE, and B sees every DONE once: a final stage the killed
worker committed but had not yet published stays owed in the graph and is announced by the surviving worker's sweep.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.support.cluster import base_env, start_replica, start_worker, wait_healthy, wait_ready
from tests.support.graphql_ws import graphql_ws
from tests.support.harness import Child
from tests.support.openai_server import OpenAICompatibleServer, run_openai_server
from tests.support.redis import RedisServer
from tests.support.waiting import until
from vaultgraph.graph.session import Graph

if TYPE_CHECKING:  # a module-level name starting with Test would be collected as a test class
    from tests.support.neo4j import TestNeo4j

pytestmark = [pytest.mark.scaling, pytest.mark.api, pytest.mark.workers, pytest.mark.timeout(1200)]

# (documents, DONE events before the kill): 500 in `make test-all`; `make test` checks the same on 100.
# make test runs the 30; make test-all the 100 and the 500 too. At 100, one fresh-clone run of 2026-12-01 saw one
# document FAILED "file missing from the workspace" though the file was there after: an open race (README, Testing).
SIZES = [pytest.param(500, 150, marks=pytest.mark.slow, id="500"),
         pytest.param(100, 30, marks=pytest.mark.slow, id="100"),
         # Killed after 5 of 30: at 10, a loaded CI machine saw no batch wait on the model again before the last DONE,
         # so nothing was killed; 2 workers x 3 batches of 5 can hold all 30 at once, so late there may be none left.
         pytest.param(30, 5, id="30")]
BATCH_SIZE = 5
CONCURRENCY = 3
LEASE_SECONDS = 8  # short, so the killed worker's documents come back soon; long enough for heartbeats under load
CREATE = "mutation($input: DocumentInput!) { createDocument(input: $input) { id } }"
EVENTS = "subscription { enrichmentEvents { documentId stage attempt error at } }"
DOCUMENTS_PAGE = """
query($after: String) { documents(first: 100, after: $after) {
  edges { node { id enrichment { stage } } } pageInfo { hasNextPage endCursor } } }
"""
QUIET_SECONDS = 30  # after the kill and the last create, this long without an event ends the wait
STAGES = ["QUEUED", "PREPARE", "SUMMARIZE", "EMBED", "CLASSIFY", "WIKILINKS", "DONE"]
_DOCUMENT = re.compile(r"^### Document (\d+)\nTitle: (.*)$", re.MULTILINE)
_CANDIDATE = re.compile(r"^### Candidate (\d+)", re.MULTILINE)


def _user_message(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def model_reply(body: dict[str, Any]) -> str:
    """Summaries for summary calls (five documents a call), RELATED for every link candidate."""
    documents = _DOCUMENT.findall(_user_message(body))
    if documents:
        return json.dumps([{"idx": int(i), "summary": f"Summary of {title}.", "category": "Technology"}
                           for i, title in documents])
    return json.dumps([{"idx": int(i), "type": "RELATED"} for i in _CANDIDATE.findall(_user_message(body))])


def summary_calls(model: OpenAICompatibleServer) -> list[list[str]]:
    """The titles each summary call asked about."""
    return [[title for _, title in _DOCUMENT.findall(_user_message(r.body))]
            for r in model.requests("chat") if _DOCUMENT.search(_user_message(r.body))]


@pytest.fixture
def model() -> Iterator[OpenAICompatibleServer]:
    with run_openai_server(embedding_dimensions=384) as server:
        server.on_chat(model_reply)
        server.set_latency(0.05, route="chat")  # work overlaps: batches of both workers are in flight together
        yield server


def report_processes(processes: list[Child]) -> None:
    """Each process's state and the warnings and errors of its log, on stdout (pytest shows it on a failure)."""
    for process in processes:
        lines = [line for line in process.output().splitlines()
                 if '"level": "error"' in line or '"level": "warning"' in line or "Traceback" in line]
        print(f"--- {process.name}: {'alive' if process.alive() else f'exited {process.popen.returncode}'}, "
              f"{len(lines)} warnings and errors, the last 30:")
        print("\n".join(line[:600] for line in lines[-30:]))
        print("\n".join(process.output().splitlines()[-5:]))


async def streaming_on(replica: Child) -> bool:
    """Whether the replica's /metrics counts a subscription streaming: its operation runs, so the bus has it (a fixed
    1 s sleep here lost a first document's QUEUED on a busy machine: B subscribed after A had created it)."""
    async with httpx.AsyncClient(base_url=str(replica.url), timeout=10) as client:
        scrape = (await client.get("/metrics")).text
    found = re.search(r"^vaultgraph_graphql_subscriptions (\S+)$", scrape, re.MULTILINE)
    return found is not None and float(found.group(1)) >= 1


async def create_all(replica: Child, count: int) -> dict[str, str]:
    """Create `count` documents through the replica, ten requests at a time; returns title -> id."""
    assert replica.url is not None
    slots = asyncio.Semaphore(10)
    ids: dict[str, str] = {}
    async with httpx.AsyncClient(base_url=replica.url, timeout=180) as client:
        async def one(n: int) -> None:
            title = f"Doc {n:04d}"
            variables = {"input": {"path": f"scale/doc-{n:04d}.md",
                                   "content": f"# {title}\n\nNotes on topic {n % 11} and part {n}."}}
            async with slots:
                response = await client.post("/graphql", json={"query": CREATE, "variables": variables})
            body = response.json()
            assert "errors" not in body, body
            ids[title] = body["data"]["createDocument"]["id"]

        await asyncio.gather(*(one(n) for n in range(count)))
    return ids


# A worker id is host:pid:nonce (workers/pool.py new_worker_id): the titles of the unfinished documents it holds.
HELD_BY = """
MATCH (d:Document {tenantId: $tenant}) WHERE d.claimedBy CONTAINS $pid AND d.enrichmentStage <> 'DONE'
RETURN d.title AS title
"""


async def kill_mid_batch(
    workers: list[Child], model: OpenAICompatibleServer, graph: Graph, tenant: str
) -> Child | None:
    """SIGKILL the worker a batch of which waits on the model, so the kill certainly loses work in flight; returns it.

    Every model call is held first: a batch a worker holds (per Neo4j) whose call waits unanswered cannot finish
    between that look and the kill. None, the calls released and nothing killed, when within five seconds no worker
    holds such a batch (between batches, all of them)."""
    model.hold()
    try:
        async def waiting_on_the_model(worker: Child) -> bool:
            held = {r["title"] for r in await graph.read_records(HELD_BY, tenant=tenant, pid=f":{worker.pid}:")}
            calls = [json.dumps(r.body) for r in model.in_flight_at(time.time())]
            return any(title in call for title in held for call in calls)

        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            for worker in workers:
                if await waiting_on_the_model(worker):
                    worker.kill()
                    return worker
            await asyncio.sleep(0.1)
        return None
    finally:
        model.release()


async def stages_of(replica: Child) -> dict[str, str]:
    """Every document of the tenant with its enrichment stage, read through the replica's GraphQL API."""
    assert replica.url is not None
    stages: dict[str, str] = {}
    after: str | None = None
    async with httpx.AsyncClient(base_url=replica.url, timeout=180) as client:
        while True:
            response = await client.post("/graphql", json={"query": DOCUMENTS_PAGE, "variables": {"after": after}})
            body = response.json()
            assert "errors" not in body, body
            page = body["data"]["documents"]
            stages.update({edge["node"]["id"]: edge["node"]["enrichment"]["stage"] for edge in page["edges"]})
            if not page["pageInfo"]["hasNextPage"]:
                return stages
            after = page["pageInfo"]["endCursor"]


@pytest.mark.serial
@pytest.mark.parametrize(("documents", "kill_after_done"), SIZES)
async def test_two_replicas_and_two_workers_enrich_every_document_once_and_survive_a_killed_worker(
    neo4j_server: TestNeo4j, redis_server: RedisServer, model: OpenAICompatibleServer, graph: Graph, tenant: str,
    tmp_path: Path, documents: int, kill_after_done: int,
) -> None:
    env = base_env(neo4j_uri=neo4j_server.uri, redis_url=redis_server.url, data_dir=tmp_path / "data", tenant=tenant,
                   model_base_url=model.base_url,
                   VAULTGRAPH_ENRICHMENT_LEASE_SECONDS=str(LEASE_SECONDS), VAULTGRAPH_ENRICHMENT_SWEEP_SECONDS="1",
                   VAULTGRAPH_ENRICHMENT_BATCH_SIZE=str(BATCH_SIZE),
                   VAULTGRAPH_ENRICHMENT_CONCURRENCY=str(CONCURRENCY), VAULTGRAPH_EVENT_QUEUE_SIZE="20000")
    logs = tmp_path / "logs"
    processes: list[Child] = []
    try:
        # The second worker also watches the workspace (the files the replicas write), as a worker does by default.
        # (batching its syncs five seconds at a time: here the files change through the API, nothing for it to do)
        workers = [start_worker("worker-1", {**env, "VAULTGRAPH_WORKSPACE_WATCH": "false"}, logs),
                   start_worker("worker-2", {**env, "VAULTGRAPH_WORKSPACE_WATCH_DEBOUNCE_MS": "5000"}, logs)]
        replica_a, replica_b = (start_replica(f"replica-{name}", env, logs) for name in ("a", "b"))
        processes += [*workers, replica_a, replica_b]
        for replica in (replica_a, replica_b):
            wait_healthy(replica)
        for worker in workers:
            wait_ready(worker)
        assert replica_b.url is not None

        events: dict[str, list[tuple[str, int]]] = {}
        done_events: Counter[str] = Counter()
        async with graphql_ws(replica_b.url) as subscriber:
            operation = await subscriber.subscribe(EVENTS)
            await until(lambda: streaming_on(replica_b), 60, "the subscription streaming on replica B")
            creating = asyncio.create_task(create_all(replica_a, documents))
            killed: Child | None = None
            receiving: asyncio.Future[Any] | None = None
            async with asyncio.timeout(900):  # minutes only on a machine far busier than its cores
                while len(done_events) < documents or not creating.done():
                    if receiving is None:
                        receiving = asyncio.ensure_future(subscriber.receive(operation))
                    await asyncio.wait({receiving, creating}, timeout=QUIET_SECONDS,
                                       return_when=asyncio.FIRST_COMPLETED)
                    if creating.done() and creating.exception() is not None:
                        receiving.cancel()
                        await creating  # a failed create fails the test now, not at the timeout
                    if not receiving.done():
                        continue  # a quiet spell: the killed worker's leases (and owed announcements) running out
                    event = (await receiving)["data"]["enrichmentEvents"]
                    receiving = None
                    assert event["error"] is None, event
                    events.setdefault(event["documentId"], []).append((event["stage"], event["attempt"]))
                    if event["stage"] == "DONE":
                        done_events[event["documentId"]] += 1
                    if killed is None and event["stage"] == "DONE" and len(done_events) >= kill_after_done:
                        # mid-batch: its claimed documents are lost until their leases expire (the next DONE tries
                        # again if no batch waits on the model now)
                        killed = await kill_mid_batch(workers, model, graph, tenant)
                ids = await creating

                async def all_done() -> bool:
                    return set((await stages_of(replica_a)).values()) == {"DONE"}

                # A quiet spell on a busy machine is not the end: Neo4j says when it is.
                await until(all_done, 600, "every document DONE", poll=2)
            while True:  # anything late (a duplicate, or what the quiet spell held back) arrives within a second
                try:
                    async with asyncio.timeout(1.0):
                        event = (await subscriber.receive(operation))["data"]["enrichmentEvents"]
                except TimeoutError:
                    break
                events.setdefault(event["documentId"], []).append((event["stage"], event["attempt"]))
                if event["stage"] == "DONE":
                    done_events[event["documentId"]] += 1

        assert killed is not None and not killed.alive()
        survivor = next(worker for worker in workers if worker is not killed)
        assert survivor.alive()
        assert replica_a.url is not None
        final = await stages_of(replica_a)
        assert set(final) == set(ids.values()) and set(final.values()) == {"DONE"}  # every document DONE
        # Every DONE reached replica B, once: a batch the killed worker committed but had not published is announced
        # by the other worker's sweep when its lease runs out (the graph keeps it owed until then).
        assert set(done_events) == set(ids.values())
        assert set(done_events.values()) == {1}
        for document, stages in events.items():
            assert len(stages) == len(set(stages)), (document, stages)  # no stage event twice
        # A document the killed worker was enriching resumes as attempt 2 on the other worker; every other
        # document went through the stages once, in order.
        resumed = {d for d, stages in events.items() if stages[-1][1] > 1}
        assert 0 < len(resumed) <= BATCH_SIZE * CONCURRENCY
        for document, stages in events.items():
            if document not in resumed:
                assert [stage for stage, _ in stages] == STAGES, (document, stages)
        # Enriched exactly once: one summary per document, five documents a call (batching survived the split).
        calls = summary_calls(model)
        summarized = Counter(title for call in calls for title in call)
        by_id = {document: title for title, document in ids.items()}
        assert set(summarized) == set(ids)
        for document, title in by_id.items():
            if document not in resumed:
                assert summarized[title] == 1, (title, summarized[title])
        assert max(len(call) for call in calls) == BATCH_SIZE and len(calls) < documents / 2

        # SIGTERM: the surviving worker and the replicas shut down cleanly.
        for process in processes:
            if process is not killed:
                assert process.stop() == 0, process.output()[-2000:]
        assert "enrichment workers stopped" in survivor.output()
        assert "workspace watcher started" in workers[1].output()  # at its start, killed or not
        assert "workspace watcher" not in replica_a.output()  # --no-workers: the workers watch the workspace
    except BaseException:
        report_processes(processes)  # a failure here is a race between processes: their own account of it
        raise
    finally:
        for process in processes:
            process.kill()
