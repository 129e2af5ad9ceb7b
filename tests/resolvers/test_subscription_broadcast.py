"""Execute once per event (schema/extensions/broadcast.py, http/ws.py): many subscribers on real sockets, of two
tenants and two visibilities, each get exactly their events, once, while each event's selection set runs once per shape
(tenant and visible scopes, operation text, variables) and its payload is encoded once per execution."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.support.graphql_ws import GraphQLWebSocket, graphql_ws
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.domain import EnrichmentStage
from vaultgraph.events.bus import DocumentStageChanged
from vaultgraph.graph.session import Graph
from vaultgraph.schema.extensions.broadcast import SharedResults
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.api, pytest.mark.graph]

CREATE = "mutation($input: DocumentInput!) { createDocument(input: $input) { id } }"
REENRICH = "mutation($ids: [ID!]) { reenrich(ids: $ids) { id } }"
NARROW = "subscription { enrichmentEvents { documentId stage at } }"
WIDE = "subscription { enrichmentEvents { documentId stage attempt at } }"
OPERATIONS_PER_SOCKET = 2
QUIET = 0.5  # seconds without a further message: nothing more is coming


@dataclasses.dataclass
class Group:
    """Subscribers of one shape: one key (tenant and visibility) and one operation text."""

    name: str
    secret: str
    query: str
    count: int
    visible: set[str] = dataclasses.field(default_factory=set)
    subscribers: list[tuple[GraphQLWebSocket, str]] = dataclasses.field(default_factory=list)


@pytest.fixture
async def keyed_server(settings: Settings) -> AsyncIterator[RunningServer]:
    """Keys required, no rate limit, no workers: the only events are the ones this test causes."""
    configured = settings.model_copy(update={"dev_mode": False, "port": 0, "rate_limit_per_second": 0.0,
                                             "enrichment_workers": False})
    async with run_server(configured) as running:
        yield running


async def _next_events(ws: GraphQLWebSocket, operation: str, expected: int) -> list[dict[str, Any]]:
    """The operation's next `expected` events, then whatever else comes before it has been quiet for a moment."""
    events = []
    for _ in range(expected):
        payload = await asyncio.wait_for(ws.receive(operation), 60)
        assert "errors" not in payload, payload
        events.append(payload["data"]["enrichmentEvents"])
    with contextlib.suppress(TimeoutError):
        while True:
            events.append((await asyncio.wait_for(ws.receive(operation), QUIET))["data"]["enrichmentEvents"])
    return events


async def _exactly(group: Group, expected: int) -> list[list[dict[str, Any]]]:
    received = await asyncio.gather(*(_next_events(ws, op, expected) for ws, op in group.subscribers))
    for events in received:
        assert len(events) == expected, (group.name, events)
    return received


async def test_subscribers_of_a_shape_share_one_execution_per_event(keyed_server: RunningServer, graph: Graph,
                                                                    tenant: str) -> None:
    keys = ApiKeyService(graph)
    tenant_a, tenant_b = f"{tenant}a", f"{tenant}b"
    admin_a = (await keys.create(tenant_a, all_scopes=True)).secret
    agent_a = (await keys.create(tenant_a, agent="x")).secret
    admin_b = (await keys.create(tenant_b, all_scopes=True)).secret

    async def call(secret: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        return await keyed_server.data(query, variables, headers={"Authorization": f"Bearer {secret}"})

    async def create(secret: str, path: str, **scope: str) -> str:
        data = await call(secret, CREATE, {"input": {"path": path, "content": f"# {path}\n", **scope}})
        return str(data["createDocument"]["id"])

    shared_a = await create(admin_a, "shared.md")
    mine_a = await create(admin_a, "x.md", scope="PERSONAL", agentId="x")
    theirs_a = await create(admin_a, "y.md", scope="PERSONAL", agentId="y")
    only_b = await create(admin_b, "b.md")
    groups = [
        Group("tenant a, all scopes", admin_a, NARROW, 6, {shared_a, mine_a, theirs_a}),
        Group("tenant a, agent x", agent_a, NARROW, 6, {shared_a, mine_a}),
        Group("tenant b, all scopes", admin_b, NARROW, 6, {only_b}),
        Group("tenant a, all scopes, another selection", admin_a, WIDE, 4, {shared_a, mine_a, theirs_a}),
    ]
    schema_results: SharedResults = keyed_server.app.state.graphql.schema.shared_results
    texts = keyed_server.app.state.graphql.payload_texts

    async with contextlib.AsyncExitStack() as stack:
        for group in groups:
            for n in range(group.count):
                if n % OPERATIONS_PER_SOCKET == 0:  # several operations per socket: each `next` under its own id
                    ws = await stack.enter_async_context(graphql_ws(keyed_server.url, init_payload={
                        "authorization": f"Bearer {group.secret}"}))
                group.subscribers.append((ws, await ws.subscribe(group.query)))
        # The documents are QUEUED (no workers run): each subscriber's snapshot is the visible ones, then live.
        for group, received in zip(groups, await asyncio.gather(
                *(_exactly(g, len(g.visible)) for g in groups)), strict=True):
            for events in received:
                assert {e["documentId"] for e in events} == group.visible, group.name
        executions, reuses, encoded = schema_results.executions, schema_results.reuses, texts.encoded
        expressed = texts.expressed

        await call(admin_a, REENRICH, {"ids": [shared_a, mine_a, theirs_a]})
        await call(admin_b, REENRICH, {"ids": [only_b]})
        live = await asyncio.gather(*(_exactly(g, len(g.visible)) for g in groups))

        for group, received in zip(groups, live, strict=True):
            for events in received:
                assert {e["documentId"] for e in events} == group.visible, group.name
                assert all(e["stage"] == "QUEUED" for e in events)
                assert ("attempt" in events[0]) == (group.query == WIDE)
        # Per event, one execution per shape that sees it: shared (3 shapes), x's (3), y's (2: agent x does not
        # see it), b's (1); every other delivery reused one. And one encoding per execution.
        deliveries = sum(g.count * len(g.visible) for g in groups)
        assert schema_results.executions - executions == 3 + 3 + 2 + 1
        assert schema_results.reuses - reuses == deliveries - 9
        assert texts.encoded - encoded == 9
        # Every subscriber was waiting for its next event: each live one went by the express, none woke a task.
        assert texts.expressed - expressed == deliveries

        # A stage announced again (a sweep after a worker died between commit and publish) reaches nobody twice,
        # and is not executed at all.
        again = live[2][0][0]  # tenant b's event, as its subscribers got it
        executions = schema_results.executions
        await keyed_server.app.state.services.enrichment.bus.publish(DocumentStageChanged(
            tenant_id=tenant_b, document_id=only_b, owner_key="shared", stage=EnrichmentStage[again["stage"]],
            attempt=0, error=None, at=datetime.fromisoformat(again["at"])))
        await asyncio.gather(*(_exactly(g, 0) for g in groups))
        assert schema_results.executions == executions


async def test_sockets_send_event_frames_uncompressed(keyed_server: RunningServer, graph: Graph,
                                                      tenant: str) -> None:
    """A client that offers permessage-deflate (websockets does by default) gets plain frames: compressing every
    socket's copy of a small event frame cost more CPU than it saved bytes (bench/README.md, fan-out)."""
    secret = (await ApiKeyService(graph).create(tenant, all_scopes=True)).secret
    async with graphql_ws(keyed_server.url, init_payload={"authorization": f"Bearer {secret}"}) as ws:
        assert ws.connection.protocol.extensions == []
        operation = await ws.subscribe(NARROW)
        created = await keyed_server.data(CREATE, {"input": {"path": "plain.md", "content": "# plain\n"}},
                                          headers={"Authorization": f"Bearer {secret}"})
        event = (await asyncio.wait_for(ws.receive(operation), 60))["data"]["enrichmentEvents"]
        assert event["documentId"] == created["createDocument"]["id"]


async def test_a_burst_of_events_reaches_every_subscriber_once_and_in_order(keyed_server: RunningServer, graph: Graph,
                                                                           tenant: str) -> None:
    """Events published back to back, some in one go with no pause between them: every subscriber gets each one once,
    in the order published, whether the express wrote it or its own task sent it (a subscriber still sending
    takes the ones after it from its queue)."""
    secret = (await ApiKeyService(graph).create(tenant, all_scopes=True)).secret
    created = await keyed_server.data(CREATE, {"input": {"path": "burst.md", "content": "# burst\n"}},
                                      headers={"Authorization": f"Bearer {secret}"})
    document_id = created["createDocument"]["id"]
    bus = keyed_server.app.state.services.enrichment.bus
    stages = [EnrichmentStage.PREPARE, EnrichmentStage.SUMMARIZE, EnrichmentStage.EMBED]
    async with contextlib.AsyncExitStack() as stack:
        subscribers = []
        for n in range(8):
            if n % OPERATIONS_PER_SOCKET == 0:
                ws = await stack.enter_async_context(graphql_ws(keyed_server.url, init_payload={
                    "authorization": f"Bearer {secret}"}))
            subscribers.append((ws, await ws.subscribe(WIDE)))
        snapshots = await asyncio.gather(*(_next_events(ws, op, 1) for ws, op in subscribers))
        start = datetime.fromisoformat(snapshots[0][0]["at"])
        published = []
        for n in range(30):
            event = DocumentStageChanged(tenant_id=tenant, document_id=document_id, owner_key="shared",
                                         stage=stages[n % 3], attempt=n, error=None,
                                         at=start + timedelta(milliseconds=n + 1))
            published.append(event)
            if n % 10 == 9:
                await bus.publish(event)
                await asyncio.sleep(0.05)
            else:
                bus.publish_nowait(event)  # in one go: held, then expressed or queued, in one flush
        received = await asyncio.gather(*(_next_events(ws, op, len(published)) for ws, op in subscribers))
    for events in received:
        assert [e["attempt"] for e in events] == [e.attempt for e in published]


async def test_a_completed_operation_gets_no_further_events(keyed_server: RunningServer, graph: Graph,
                                                            tenant: str) -> None:
    """The protocol: after the client's `complete`, nothing more of that operation; its neighbour on the socket goes
    on (the express checks that the operation is still the socket's before it writes)."""
    secret = (await ApiKeyService(graph).create(tenant, all_scopes=True)).secret
    created = await keyed_server.data(CREATE, {"input": {"path": "done.md", "content": "# done\n"}},
                                      headers={"Authorization": f"Bearer {secret}"})
    document_id = created["createDocument"]["id"]
    bus = keyed_server.app.state.services.enrichment.bus
    async with graphql_ws(keyed_server.url, init_payload={"authorization": f"Bearer {secret}"}) as ws:
        stopped, going = await ws.subscribe(NARROW), await ws.subscribe(NARROW)
        snapshot = (await _next_events(ws, stopped, 1))[0]
        await _next_events(ws, going, 1)
        await ws.stop(stopped)
        await asyncio.sleep(QUIET)  # the server has read the `complete` (an event published before it may come)
        bus.publish_nowait(DocumentStageChanged(
            tenant_id=tenant, document_id=document_id, owner_key="shared", stage=EnrichmentStage.PREPARE,
            attempt=1, error=None, at=datetime.fromisoformat(snapshot["at"]) + timedelta(seconds=1)))
        assert [e["stage"] for e in await _next_events(ws, going, 1)] == ["PREPARE"]
        assert await _next_events(ws, stopped, 0) == []
