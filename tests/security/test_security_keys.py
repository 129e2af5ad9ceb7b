"""API keys through the service and the CLI: shown once, stored as a hash, revoked, expired, last use recorded."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

import pytest
from neo4j import AsyncManagedTransaction

from tests.support import neo4j as test_neo4j
from vaultgraph import cli
from vaultgraph.errors import InvalidInput, NotFound, Unauthenticated
from vaultgraph.graph.session import Graph
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.security, pytest.mark.graph]


async def _stored(graph: Graph, key_id: str) -> dict[str, object]:
    async def read(tx: AsyncManagedTransaction) -> dict[str, object]:
        record = await (await tx.run("MATCH (k:ApiKey {id: $id}) RETURN properties(k) AS p", id=key_id)).single()
        assert record is not None
        return dict(record["p"])

    return await graph.read(read)


async def _age(graph: Graph, key_id: str, prop: str, delta: timedelta) -> None:
    async def write(tx: AsyncManagedTransaction) -> None:
        await tx.run(f"MATCH (k:ApiKey {{id: $id}}) SET k.{prop} = $at", id=key_id, at=datetime.now(UTC) + delta)

    await graph.write(write)


async def test_create_stores_only_the_hash(keys: ApiKeyService, graph: Graph, tenant: str) -> None:
    new = await keys.create(tenant, agent="scout", teams=["ops", "eng", "ops"], expires_days=30, name="ci")
    assert new.secret.startswith("vg_") and len(new.secret) > 40
    stored = await _stored(graph, new.key.id)
    assert stored["keyHash"] == hashlib.sha256(new.secret.encode()).hexdigest()
    assert new.secret not in {str(v) for v in stored.values()}, "the secret itself must never be stored"
    assert stored["prefix"] == new.secret[:10]
    assert (new.key.tenant_id, new.key.agent_id, new.key.team_ids) == (tenant, "scout", ("eng", "ops"))
    assert new.key.expires_at is not None and new.key.expires_at > datetime.now(UTC) + timedelta(days=29)

    key, principal = await keys.authenticate(new.secret)
    assert key.id == new.key.id
    assert (principal.tenant_id, principal.agent_id, principal.team_ids) == (tenant, "scout", frozenset({"eng", "ops"}))
    assert principal.visible_owner_keys() == ["shared", "team:eng", "team:ops", "agent:scout"]
    assert not principal.sees_all_scopes


async def test_keys_are_listed_per_tenant_and_revoked(keys: ApiKeyService, tenant: str) -> None:
    first = await keys.create(tenant)
    second = await keys.create(tenant, all_scopes=True)
    other = await keys.create(f"{tenant}x")
    assert [k.id for k in await keys.list(tenant)] == [first.key.id, second.key.id]
    assert other.key.id not in [k.id for k in await keys.list(tenant)]
    assert (await keys.authenticate(second.secret))[1].visible_owner_keys() is None

    revoked = await keys.revoke(first.key.id)
    assert revoked.revoked_at is not None
    assert (await keys.revoke(first.key.id)).revoked_at == revoked.revoked_at, "revoking twice changes nothing"
    with pytest.raises(Unauthenticated, match="revoked"):
        await keys.authenticate(first.secret)
    await keys.authenticate(second.secret)
    with pytest.raises(NotFound):
        await keys.revoke("key_nope")


async def test_unknown_malformed_and_expired_keys(keys: ApiKeyService, graph: Graph, tenant: str) -> None:
    for secret in ["vg_" + "x" * 43, "not-a-key", "", "vg_" + "y" * 500]:
        with pytest.raises(Unauthenticated):
            await keys.authenticate(secret)
    new = await keys.create(tenant, expires_days=1)
    await keys.authenticate(new.secret)
    await _age(graph, new.key.id, "expiresAt", timedelta(seconds=-1))
    with pytest.raises(Unauthenticated, match="expired"):
        await keys.authenticate(new.secret)


async def test_bad_requests_for_keys(keys: ApiKeyService, tenant: str) -> None:
    for kwargs in [{"tenant": "../etc"}, {"tenant": tenant, "agent": "a b"}, {"tenant": tenant, "teams": ["x/y"]},
                   {"tenant": tenant, "expires_days": 0}, {"tenant": tenant, "agent": "a", "all_scopes": True}]:
        with pytest.raises(InvalidInput):
            await keys.create(**kwargs)  # type: ignore[arg-type]


async def test_last_use_is_written_at_most_once_a_minute(keys: ApiKeyService, graph: Graph, tenant: str) -> None:
    new = await keys.create(tenant)
    assert "lastUsedAt" not in await _stored(graph, new.key.id)
    before = graph.transactions
    await keys.authenticate(new.secret)
    assert graph.transactions - before == 2  # the lookup and the first touch
    first = (await _stored(graph, new.key.id))["lastUsedAt"]
    assert first is not None
    before = graph.transactions
    for _ in range(5):
        await keys.authenticate(new.secret)
    assert graph.transactions - before == 5, "within the minute: one lookup each (no cache here), no writes"
    assert (await _stored(graph, new.key.id))["lastUsedAt"] == first

    await _age(graph, new.key.id, "lastUsedAt", timedelta(minutes=-2))
    fresh = ApiKeyService(graph)  # another process (or replica) that has not touched it itself
    await fresh.authenticate(new.secret)
    assert (await _stored(graph, new.key.id))["lastUsedAt"] != first


def test_cli_create_list_revoke(neo4j_server: test_neo4j.TestNeo4j, tenant: str, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NEO4J_URI", neo4j_server.uri)
    monkeypatch.setenv("VAULTGRAPH_LOG_LEVEL", "WARNING")

    assert cli.main(["keys", "create", "--tenant", tenant, "--agent", "scout", "--teams", "ops,eng",
                     "--expires-days", "7", "--name", "laptop"]) == 0
    out = capsys.readouterr().out
    secret = out.strip().splitlines()[-1]
    assert secret.startswith("vg_") and "shown this once" in out and f"tenant {tenant}, agent scout" in out

    assert cli.main(["keys", "create", "--tenant", tenant, "--all-scopes", "--json"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["allScopes"] is True and created["secret"].startswith("vg_")

    assert cli.main(["keys", "list", "--tenant", tenant, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [k["agent"] for k in listed] == ["scout", None]
    assert [k["teams"] for k in listed] == [["eng", "ops"], []]
    assert all("secret" not in k and "keyHash" not in k for k in listed)
    assert secret not in json.dumps(listed)

    assert cli.main(["keys", "list", "--tenant", tenant]) == 0
    text = capsys.readouterr().out
    assert listed[0]["id"] in text and "laptop" in text and secret not in text and "last used never" in text

    assert cli.main(["keys", "revoke", listed[0]["id"]]) == 0
    assert "revoked" in capsys.readouterr().out
    assert cli.main(["keys", "list", "--tenant", tenant]) == 0
    assert "revoked" in capsys.readouterr().out
    assert cli.main(["keys", "revoke", "key_missing"]) == 1
    assert "no API key" in capsys.readouterr().err
    assert cli.main(["keys", "create", "--tenant", "no/slashes"]) == 1
