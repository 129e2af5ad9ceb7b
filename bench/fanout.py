"""Subscription fan-out: many WebSocket subscribers on loopback (graphql-transport-ws), a steady trickle of events,
the time from publish to the last client, and the server's CPU meanwhile.

Every subscriber follows `enrichmentEvents` of one document; `reenrich` of that document publishes one stage
change (QUEUED) at the requested rate (the server runs no enrichment workers, so nothing else is published). The
event's `at` is the time Neo4j stamped the change, just before the server publishes it: latency = arrival at the
last subscriber − `at`. The subscribers live in a few child processes so that reading 500 sockets does not
queue behind one Python loop — though on 2 cores they still share the machine with the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import statistics
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from multiprocessing.connection import Connection
from typing import Any

from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from bench.client import GraphQLClient
from bench.measure import Stats
from bench.processes import Proc
from bench.report import Row

NEEDS = ("Subscription.enrichmentEvents", "Mutation.reenrich", "Mutation.createDocument")
CHILDREN = 2
CONNECT_AT_ONCE = 50
SETTLE_SECONDS = 2.0

SUBSCRIBE = "subscription Follow($id: ID!) { enrichmentEvents(documentIds: [$id]) { documentId stage at } }"
CREATE = "mutation Create($input: DocumentInput!) { createDocument(input: $input) { id } }"
REENRICH = "mutation Again($id: ID!) { reenrich(ids: [$id]) { id } }"


def missing(fields: set[str]) -> str | None:
    absent = [name for name in NEEDS if name not in fields]
    return f"the server has no {', '.join(absent)} yet" if absent else None


async def _subscriber(url: str, headers: dict[str, str], document_id: str, gate: asyncio.Semaphore,
                      subscribed: asyncio.Queue[str | None], arrivals: dict[str, list[float]]) -> None:
    """One client: connect, subscribe, report once (None when the first message came, else why not), then
    stamp every event's arrival by its `at`."""
    reported = False
    try:
        async with gate:
            connection = await connect(url, subprotocols=[Subprotocol("graphql-transport-ws")],
                                       additional_headers=headers, open_timeout=60, ping_interval=None,
                                       max_queue=None)
            await connection.send(json.dumps({"type": "connection_init", "payload": {}}))
            ack = json.loads(await connection.recv())
            if ack.get("type") != "connection_ack":
                raise RuntimeError(f"no connection_ack: {ack}")
            await connection.send(json.dumps({"id": "1", "type": "subscribe", "payload": {
                "query": SUBSCRIBE, "variables": {"id": document_id}}}))
        async with connection:
            async for raw in connection:
                now = time.time()
                message = json.loads(raw)
                if message["type"] == "ping":
                    await connection.send(json.dumps({"type": "pong"}))
                elif message["type"] == "next" and not reported:  # the document's current stage, on subscribe
                    reported = True
                    await subscribed.put(None)
                elif message["type"] == "next":
                    arrivals.setdefault(message["payload"]["data"]["enrichmentEvents"]["at"], []).append(now)
                elif message["type"] in ("error", "complete"):
                    raise RuntimeError(f"subscription ended: {message}")
    except Exception as exc:  # asyncio.CancelledError (the end of the run) is not an Exception
        if not reported:
            await subscribed.put(f"{type(exc).__name__}: {exc}"[:200])


async def _children_main(url: str, tenant: str, document_id: str, count: int, conn: Connection) -> None:
    ws_url = url.replace("http://", "ws://", 1) + "/graphql"
    gate = asyncio.Semaphore(CONNECT_AT_ONCE)
    subscribed: asyncio.Queue[str | None] = asyncio.Queue()
    arrivals: dict[str, list[float]] = {}
    tasks = [asyncio.create_task(_subscriber(ws_url, {"X-Vaultgraph-Tenant": tenant}, document_id, gate,
                                             subscribed, arrivals)) for _ in range(count)]
    errors = []
    for _ in range(count):
        try:
            outcome = await asyncio.wait_for(subscribed.get(), 120)
        except TimeoutError:
            errors.append("timed out subscribing")
            break
        if outcome is not None:
            errors.append(outcome)
    conn.send(("ready", count - len(errors), errors[:3]))
    await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # "stop"
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    conn.send(("done", {at: (len(times), min(times), max(times)) for at, times in arrivals.items()}))


def _child(url: str, tenant: str, document_id: str, count: int, conn: Connection) -> None:
    asyncio.run(_children_main(url, tenant, document_id, count, conn))


async def _recv(conn: Connection) -> Any:
    return await asyncio.get_running_loop().run_in_executor(None, conn.recv)


async def run(url: str, tenant: str, server: Proc, subscribers: int, events: int, rate: float,
              window: Callable[[], contextlib.AbstractContextManager[object]] = contextlib.nullcontext) -> Row:
    """The row; `window()` is entered while events are published (all subscribers connected): the profiler's."""
    client = GraphQLClient(url, headers={"X-Vaultgraph-Tenant": tenant})
    created = await client.execute(CREATE, {"input": {"path": f"bench/fanout-{uuid.uuid4().hex[:8]}.md",
                                                      "content": "# Fan-out\n\nA document to follow.\n"}})
    document_id = created["createDocument"]["id"]
    context = multiprocessing.get_context("spawn")
    shares = [subscribers // CHILDREN + (1 if k < subscribers % CHILDREN else 0) for k in range(CHILDREN)]
    pipes = []
    children = []
    for share in shares:
        parent_end, child_end = context.Pipe()
        process = context.Process(target=_child, args=(url, tenant, document_id, share, child_end), daemon=True)
        process.start()
        pipes.append(parent_end)
        children.append(process)
    stats = Stats()
    try:
        ready = [await _recv(conn) for conn in pipes]
        connected = sum(r[1] for r in ready)
        problems = [e for r in ready for e in r[2]]
        with window():
            cpu_before, started = server.cpu_seconds(), time.perf_counter()
            for k in range(events):
                pause = started + k / rate - time.perf_counter()
                if pause > 0:
                    await asyncio.sleep(pause)
                await client.execute(REENRICH, {"id": document_id})
            await asyncio.sleep(SETTLE_SECONDS)
            cpu = server.cpu_seconds() - cpu_before
            cores = cpu / (time.perf_counter() - started)
        for conn in pipes:
            conn.send("stop")
        merged: dict[str, tuple[int, float, float]] = {}
        for conn in pipes:
            _, arrivals = await _recv(conn)
            for at, (count, first, last) in arrivals.items():
                seen, earliest, latest = merged.get(at, (0, first, last))
                merged[at] = (seen + count, min(earliest, first), max(latest, last))
    finally:
        await client.close()
        for process in children:
            process.join(10)
            if process.is_alive():
                process.terminate()
    delivered = sum(count for count, _, _ in merged.values())
    published = {at: datetime.fromisoformat(at).timestamp() for at in merged}
    stats.samples = [last - published[at] for at, (_, _, last) in merged.items()]
    first_client = statistics.median([first - published[at] for at, (_, first, _) in merged.items()] or [0.0])
    stats.objects = connected
    stats.ops_per_second = delivered / (events / rate + SETTLE_SECONDS)
    note = (f"{connected} subscribers, {len(merged)}/{events} events at {rate:g}/s, "
            f"{delivered}/{events * connected} deliveries; first client p50 {first_client * 1000:.0f} ms; "
            f"server CPU {cores:.2f} cores, {cpu / events * 1000:.0f} ms per event "
            f"({cpu / max(1, delivered) * 1e6:.0f} µs per delivery)")
    if problems:
        note += f"; problems: {problems}"
    return Row(f"subscription fan-out, {subscribers} subscribers: publish → last client", vaultgraph=stats,
               unit="msgs/s", note=note)
