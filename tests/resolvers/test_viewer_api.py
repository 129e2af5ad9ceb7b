"""`viewer` (the explorer's tenant switcher reads it): the caller's own tenant, agent and teams, as authenticated."""

from __future__ import annotations

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api, pytest.mark.graph]

VIEWER = "{ viewer { tenant agentId teamIds allScopes } }"


async def test_the_viewer_is_the_development_tenant_or_the_one_the_headers_name(server: RunningServer,
                                                                               tenant: str) -> None:
    assert (await server.data(VIEWER))["viewer"] == {"tenant": tenant, "agentId": None, "teamIds": [],
                                                     "allScopes": True}
    headers = {"X-Vaultgraph-Tenant": "other-1", "X-Vaultgraph-Agent": "ann", "X-Vaultgraph-Teams": "ops,dev"}
    assert (await server.data(VIEWER, headers=headers))["viewer"] == {
        "tenant": "other-1", "agentId": "ann", "teamIds": ["dev", "ops"], "allScopes": False}
    refused = await server.client.post("/graphql", json={"query": VIEWER}, headers={"X-Vaultgraph-Tenant": "../x"})
    assert refused.status_code == 400 and refused.json()["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
