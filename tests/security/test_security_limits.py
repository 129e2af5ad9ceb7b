"""API limits: each refusal answers a code, says what the limit is, and changes nothing."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support.security import bearer
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.security, pytest.mark.api]

BODY_CAP = 4096
COUNT = "{ documents { totalCount } }"


@pytest.fixture(scope="module")
async def limited(settings: Settings) -> AsyncIterator[RunningServer]:
    """Production-like switches and small caps, in development mode so each test is its own tenant (and bucket)."""
    strict = settings.model_copy(update={
        "port": 0, "introspection": False, "graphiql": False, "max_body_bytes": BODY_CAP,
        "rate_limit_per_second": 0.5, "rate_limit_burst": 6,
    })
    async with run_server(strict) as running:
        yield running


def _as(tenant: str) -> dict[str, str]:
    return {"X-Vaultgraph-Tenant": tenant}


def _error(body: dict[str, Any], code: str = "LIMIT_EXCEEDED") -> dict[str, Any]:
    assert body.get("data") is None, body
    error: dict[str, Any] = body["errors"][0]
    assert error["extensions"]["code"] == code, body
    assert "Traceback" not in json.dumps(body)
    return error


async def test_depth_and_aliases(limited: RunningServer, tenant: str) -> None:
    nested = "{ notes { edges { node { backlinks { edges { node { from { backlinks { edges { node { from { id }" \
             " } } } } } } } } } } }"
    error = _error(await limited.graphql(nested, headers=_as(tenant)))
    assert "exceeds maximum operation depth of 10" in error["message"]

    # A mutation refused by a limit runs nothing: 16 aliased creates, no document.
    creates = " ".join(f'd{i}: createDocument(input: {{path: "d{i}.md", content: "x"}}) {{ id }}' for i in range(16))
    assert _error(await limited.graphql(f"mutation {{ {creates} }}", headers=_as(tenant)))["message"] == \
        "16 aliases found. Allowed: 15"
    fifteen = " ".join(f"t{i}: __typename" for i in range(15))
    assert len(await limited.data(f"{{ {fifteen} {COUNT[1:-1]} }}", headers=_as(tenant))) == 16
    assert (await limited.data(COUNT, headers=_as(tenant)))["documents"]["totalCount"] == 0


async def test_tokens(server: RunningServer) -> None:
    """On the default server: 2,000 tokens would not fit the small body cap of `limited`."""
    many = "{ " + "__typename " * 2100 + "}"
    assert "more than 2000 tokens" in _error(await server.graphql(many))["message"]
    # Comments count too (they cost the lexer as much), so a document padded with them is refused as well.
    assert await server.data("#\n" * 1900 + "{ __typename }") == {"__typename": "Query"}
    assert "more than 2000 tokens" in _error(await server.graphql("#\n" * 2100 + "{ __typename }"))["message"]


async def test_cost_counts_first_and_limit(limited: RunningServer, tenant: str) -> None:
    query = """query($outer: Int, $inner: Int = 100) { documents(first: $outer) { edges { node {
      backlinks(first: $inner) { edges { node { id } } } outgoing(first: 5) { totalCount } } } } }"""
    error = _error(await limited.graphql(query, {"outer": 100}, _as(tenant)))
    assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "cost": 100 * (1 + 100 + 5), "limit": 10_000}
    assert "first" in error["message"]
    await limited.data(query, {"outer": 50, "inner": 50}, _as(tenant))  # 50 × (1 + 50 + 5) = 2,800
    # Without `first` a connection counts as its default page (20): 20 × (1 + 100 + 5) is fine too.
    await limited.data(query, {}, _as(tenant))
    # Fragments are costed once and scaled; a fragment bomb is refused in linear time.
    bomb = "query { ...F0 } " + " ".join(
        f"fragment F{i} on Query {{ ...F{i + 1} ... on Query {{ ...F{i + 1} }} }}" for i in range(40)
    ) + " fragment F40 on Query { tags { tag } }"
    assert "once its fragments are spread" in _error(await limited.graphql(bomb, headers=_as(tenant)))["message"]


async def test_batches_of_at_most_ten(limited: RunningServer, tenant: str) -> None:
    two = await limited.client.post("/graphql", json=[{"query": COUNT}, {"query": "{ __typename }"}],
                                    headers=_as(tenant))
    assert two.status_code == 200 and [r["data"] for r in two.json()] == [
        {"documents": {"totalCount": 0}}, {"__typename": "Query"}]
    eleven = await limited.client.post("/graphql", json=[{"query": "{ __typename }"}] * 11, headers=_as(tenant))
    assert eleven.status_code == 400
    assert _error(eleven.json())["message"] == "a batch may carry at most 10 operations"
    # Each operation of a batch takes a token: ten at once overdraw this server's bucket of six.
    ten = await limited.client.post("/graphql", json=[{"query": "{ __typename }"}] * 10, headers=_as(tenant))
    assert ten.status_code == 429 and "retry-after" in ten.headers


async def test_request_body_cap(limited: RunningServer, tenant: str) -> None:
    big = {"query": COUNT, "variables": {"pad": "x" * BODY_CAP}}
    response = await limited.client.post("/graphql", json=big, headers=_as(tenant))
    assert response.status_code == 413
    assert _error(response.json())["extensions"]["limit"] == BODY_CAP

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the cap is counted while reading
        yield json.dumps({"query": COUNT, "variables": {"pad": ""}})[:-3].encode()
        for _ in range(10):
            yield b"x" * 1000
        yield b'"}}'

    chunked = await limited.client.post("/graphql", content=chunks(),
                                        headers={**_as(tenant), "content-type": "application/json"})
    assert chunked.status_code == 413
    small = await limited.client.post("/graphql", json={"query": COUNT}, headers=_as(tenant))
    assert small.status_code == 200


async def test_rate_limit_per_key_and_tenant(limited: RunningServer, keys: ApiKeyService, tenant: str) -> None:
    async def flood(headers: dict[str, str], n: int) -> list[Any]:
        return list(await asyncio.gather(*(limited.client.post("/graphql", json={"query": COUNT}, headers=headers)
                                           for _ in range(n))))

    started = time.monotonic()
    answers = await flood(_as(tenant), 20)
    elapsed = time.monotonic() - started
    refused = [r for r in answers if r.status_code == 429]
    granted = sum(r.status_code == 200 for r in answers)
    assert granted + len(refused) == 20 and granted >= 6
    assert granted <= 6 + 0.5 * elapsed + 1, (granted, elapsed)  # the burst, plus what the rate refilled meanwhile
    assert int(refused[0].headers["retry-after"]) >= 1
    assert _error(refused[0].json())["extensions"]["retryAfter"] >= 1
    # Another tenant is not slowed by the flood: its own bucket is full.
    assert (await limited.client.post("/graphql", json={"query": COUNT}, headers=_as(f"{tenant}b"))).status_code == 200

    one = bearer((await keys.create(f"{tenant}k")).secret)
    other = bearer((await keys.create(f"{tenant}k")).secret)
    assert any(r.status_code == 429 for r in await flood(one, 20))
    assert (await limited.client.post("/graphql", json={"query": COUNT}, headers=other)).status_code == 200


async def test_introspection_ide_and_suggestions_off(limited: RunningServer, tenant: str) -> None:
    for query in ["{ __schema { types { name } } }", '{ __type(name: "Document") { fields { name } } }']:
        error = _error(await limited.graphql(query, headers=_as(tenant)), "FORBIDDEN")
        assert "introspection has been disabled" in error["message"]
    assert await limited.data("{ __typename }", headers=_as(tenant)) == {"__typename": "Query"}

    typo = await limited.graphql("{ documents { edges { node { titel } } } }", headers=_as(tenant))
    assert _error(typo, "GRAPHQL_VALIDATION_FAILED")["message"] == "Cannot query field 'titel' on type 'Document'."
    wrong_enum = await limited.graphql("query($d: Direction!) { traverse(from: [], direction: $d) { count } }",
                                       {"d": "BOTHH"}, _as(tenant))
    assert "Did you mean" not in json.dumps(wrong_enum) and "BOTH'" not in json.dumps(wrong_enum)
    wrong_arg = await limited.graphql("{ documents(frist: 2) { totalCount } }", headers=_as(tenant))
    assert "Did you mean" not in json.dumps(wrong_arg) and "first" not in json.dumps(wrong_arg)

    ide = await limited.client.get("/graphql", headers={"accept": "text/html"})
    assert ide.status_code == 404 and ide.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"


async def test_suggestions_are_off_by_default(server: RunningServer) -> None:
    body = await server.graphql("{ documents { edges { node { titel } } } }")
    assert "Did you mean" not in json.dumps(body)
    ide = await server.client.get("/graphql", headers={"accept": "text/html"})
    assert ide.status_code == 200 and "graphiql" in ide.text.lower()
