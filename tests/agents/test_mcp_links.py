"""The MCP link tools answer as GraphQL does (issue 18): a backlink names its target, and `traverse` applies the
same limits with the same codes instead of cutting silently."""

from __future__ import annotations

import pytest

from tests.agents.mcp_client import call, mcp_session, refused
from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

AGENT = {"X-Vaultgraph-Agent": "scout"}
TRAVERSE = """query($id: ID!, $n: Int!) { traverse(from: [$id], hops: 1, maxNodes: $n) { count } }"""


async def test_backlinks_give_the_target_and_traverse_refuses_past_its_caps(server: RunningServer) -> None:
    async with mcp_session(server.url, AGENT) as session:
        hub = await call(session, "write_note", title="Hub", body="")
        leaves = [await call(session, "write_note", title=f"Leaf {n}", body="[[Hub]]") for n in range(3)]

        back = await call(session, "backlinks", id=hub["id"])
        assert sorted(b["from"]["id"] for b in back["backlinks"]) == sorted(leaf["id"] for leaf in leaves)
        assert {(b["toId"], b["ref"], b["key"]) for b in back["backlinks"]} == {(hub["id"], "Hub", "hub")}

        reached = await call(session, "traverse", id=hub["id"], maxNodes=3)
        assert len(reached["items"]) == 3
        over = await refused(session, "traverse", id=hub["id"], maxNodes=2)
        assert "LIMIT_EXCEEDED: " in over and "maxNodes=2" in over
        too_far = await refused(session, "traverse", id=hub["id"], hops=6)
        assert "INVALID_INPUT: hops" in too_far

    # GraphQL answers the same request with the same code.
    body = await server.graphql(TRAVERSE, {"id": hub["id"], "n": 2})
    assert body["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED"
