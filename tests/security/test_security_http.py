"""HTTP authentication: `Authorization: Bearer` on a server that requires keys, and keys in development mode."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from neo4j import AsyncManagedTransaction

from tests.support.security import bearer
from tests.support.server import RunningServer
from vaultgraph.graph.session import Graph
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.security, pytest.mark.api]

COUNT = "{ documents { totalCount } }"
CREATE = 'mutation($p: String!) { createDocument(input: {path: $p, content: "x"}) { id } }'


async def _refused(server: RunningServer, headers: dict[str, str]) -> dict[str, object]:
    response = await server.client.post("/graphql", json={"query": COUNT}, headers=headers)
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith("Bearer")
    [error] = response.json()["errors"]
    assert error["extensions"]["code"] == "UNAUTHENTICATED"
    return dict(error)


async def test_a_key_is_required(keyed_server: RunningServer) -> None:
    error = await _refused(keyed_server, {})
    assert "vaultgraph keys create" in str(error["message"])
    # The development-mode headers mean nothing once keys are required.
    await _refused(keyed_server, {"X-Vaultgraph-Tenant": "local"})
    for header in ["Basic dXNlcjpwYXNz", "Bearer", "Bearer  x y", "vg_abc", "Bearer vg_" + "A" * 43, "Bearer nope"]:
        await _refused(keyed_server, {"Authorization": header})
    # Health stays open: load balancers and people need it without a key.
    assert (await keyed_server.client.get("/healthz")).status_code == 200


async def test_a_valid_key_reaches_its_tenant(keyed_server: RunningServer, keys: ApiKeyService, tenant: str) -> None:
    new = await keys.create(tenant, all_scopes=True)
    created = await keyed_server.data(CREATE, {"p": "a.md"}, bearer(new.secret))
    assert created["createDocument"]["id"].startswith("doc_")
    # Header names and the scheme are case-insensitive; the tenant comes from the key, never from a header.
    data = await keyed_server.data(COUNT, headers={"authorization": f"bearer {new.secret}",
                                                    "X-Vaultgraph-Tenant": "someone-else"})
    assert data["documents"]["totalCount"] == 1


async def test_revoked_and_expired_keys(keyed_server: RunningServer, keys: ApiKeyService, graph: Graph,
                                        tenant: str) -> None:
    revoked = await keys.create(tenant)
    await keyed_server.data(COUNT, headers=bearer(revoked.secret))
    await keys.revoke(revoked.key.id)
    assert "revoked" in str((await _refused(keyed_server, bearer(revoked.secret)))["message"])

    expiring = await keys.create(tenant, expires_days=1)
    await keyed_server.data(COUNT, headers=bearer(expiring.secret))

    async def expire(tx: AsyncManagedTransaction) -> None:
        await tx.run("MATCH (k:ApiKey {id: $id}) SET k.expiresAt = $at", id=expiring.key.id,
                     at=datetime.now(UTC) - timedelta(seconds=1))

    await graph.write(expire)
    assert "expired" in str((await _refused(keyed_server, bearer(expiring.secret)))["message"])


async def test_development_mode_accepts_keys_too(server: RunningServer, keys: ApiKeyService, tenant: str) -> None:
    """The `server` fixture runs in development mode for `tenant`; a key still decides who is asking."""
    await server.data(CREATE, {"p": "dev.md"})
    other = await keys.create(f"{tenant}-other", all_scopes=True)
    assert (await server.data(COUNT, headers=bearer(other.secret)))["documents"]["totalCount"] == 0
    assert (await server.data(COUNT))["documents"]["totalCount"] == 1
    response = await server.client.post("/graphql", json={"query": COUNT},
                                        headers={"Authorization": "Bearer vg_not-a-real-key"})
    assert response.status_code == 401, "a wrong key is refused, never downgraded to development mode"
    bad = await server.client.post("/graphql", json={"query": COUNT}, headers={"X-Vaultgraph-Tenant": "../x"})
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["extensions"] == {"code": "INVALID_INPUT", "field": "X-Vaultgraph-Tenant"}


async def test_a_subscription_over_http_is_refused_with_a_code_and_the_way_to_run_it(server: RunningServer) -> None:
    for body in ({"query": "subscription { enrichmentProgress { total } }"},
                 [{"query": "{ __typename }"}, {"query": "subscription S { enrichmentProgress { total } }",
                                                "operationName": "S"}]):
        response = await server.client.post("/graphql", json=body)
        assert response.status_code == 400
        [error] = response.json()["errors"]
        assert error["extensions"]["code"] == "INVALID_INPUT" and "WebSocket" in error["message"]
    # the word alone (a comment, a field argument) is not a subscription
    plain = await server.client.post("/graphql", json={"query": "{ __typename } # subscription"})
    assert plain.json() == {"data": {"__typename": "Query"}}
