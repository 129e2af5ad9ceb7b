"""With Neo4j unreachable the server still starts: /healthz says so and GraphQL answers UNAVAILABLE."""

from __future__ import annotations

import pytest

from tests.support.harness import free_port
from tests.support.server import run_server
from vaultgraph.config import Settings

pytestmark = pytest.mark.api


async def test_unreachable_neo4j(settings: Settings, tenant: str, caplog: pytest.LogCaptureFixture) -> None:
    uri = f"bolt://127.0.0.1:{free_port()}"
    unreachable = settings.model_copy(update={"neo4j_uri": uri, "dev_tenant": tenant, "port": 0})
    async with run_server(unreachable) as server:
        health = await server.client.get("/healthz")
        assert health.status_code == 503
        assert health.json()["neo4j"]["state"] == "down"
        assert health.json()["neo4j"]["uri"] == uri
        body = await server.graphql("{ documents { totalCount } }")
        assert body["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
        assert "healthz" in body["errors"][0]["message"]
        # Liveness of the schema itself does not need the graph.
        assert (await server.data("{ __typename }")) == {"__typename": "Query"}

