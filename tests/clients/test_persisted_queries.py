"""Automatic persisted queries (Apollo's APQ protocol) over GET and POST against the live server (issue 22.1)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api]


def _apq(query: str | None, digest: str, version: object = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"extensions": {"persistedQuery": {"version": version, "sha256Hash": digest}}}
    if query is not None:
        body["query"] = query
    return body


def _sha(query: str) -> str:
    return hashlib.sha256(query.encode()).hexdigest()


async def test_hash_first_then_register_then_hash_only_on_post_and_get(server: RunningServer, tenant: str) -> None:
    query = f"query Count_{tenant} {{ documents {{ totalCount }} }}"  # a hash no other test registers
    digest = _sha(query)
    unknown = await server.client.post("/graphql", json=_apq(None, digest))
    assert unknown.status_code == 200, unknown.text
    assert unknown.json() == {"data": None, "errors": [
        {"message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}]}
    registered = await server.client.post("/graphql", json=_apq(query, digest))
    assert registered.json() == {"data": {"documents": {"totalCount": 0}}}
    by_hash = await server.client.post("/graphql", json=_apq(None, digest))
    assert by_hash.json() == {"data": {"documents": {"totalCount": 0}}}
    # Apollo's link sends hash-only GETs (cacheable), the extensions JSON-encoded in the query string.
    for accept in ["application/json", "*/*"]:  # curl's */* would otherwise get the GraphiQL page
        got = await server.client.get("/graphql", headers={"accept": accept},
                                      params={"extensions": json.dumps(_apq(None, digest)["extensions"])})
        assert got.status_code == 200, got.text
        assert got.json() == {"data": {"documents": {"totalCount": 0}}}


async def test_a_mutation_by_hash_runs_over_post_only(server: RunningServer, tenant: str) -> None:
    query = f'mutation Delete_{tenant} {{ deleteLink(id: "{tenant}") {{ id }} }}'
    digest = _sha(query)
    ran = (await server.client.post("/graphql", json=_apq(query, digest))).json()
    assert ran["errors"][0]["extensions"]["code"] == "NOT_FOUND"  # it ran: the mutation's own answer
    extensions = json.dumps(_apq(None, digest)["extensions"])
    refused = await server.client.get("/graphql", params={"extensions": extensions},
                                      headers={"accept": "application/json"})
    assert refused.status_code == 400, refused.text  # a GET never mutates, hash or not


async def test_a_wrong_hash_is_refused_naming_it_and_registers_nothing(server: RunningServer, tenant: str) -> None:
    query = f"query Wrong_{tenant} {{ documents {{ totalCount }} }}"
    wrong = _sha(query + " ")
    body = (await server.client.post("/graphql", json=_apq(query, wrong))).json()
    [error] = body["errors"]
    assert body["data"] is None
    assert error["extensions"] == {"code": "INVALID_INPUT", "field": "extensions.persistedQuery.sha256Hash"}
    assert wrong in error["message"] and _sha(query) in error["message"]
    again = (await server.client.post("/graphql", json=_apq(None, wrong))).json()
    assert again["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND"


@pytest.mark.parametrize(("persisted", "field"), [
    ({"version": 2, "sha256Hash": "0" * 64}, "extensions.persistedQuery.version"),
    ({"version": 1, "sha256Hash": "XYZ"}, "extensions.persistedQuery.sha256Hash"),
    ({"version": 1}, "extensions.persistedQuery.sha256Hash"),
    ("abc", "extensions.persistedQuery"),
])
async def test_malformed_persisted_query_extensions_are_invalid_input(server: RunningServer, persisted: object,
                                                                      field: str) -> None:
    body = (await server.client.post("/graphql", json={"extensions": {"persistedQuery": persisted}})).json()
    [error] = body["errors"]
    assert error["extensions"] == {"code": "INVALID_INPUT", "field": field}, error


async def test_each_operation_of_a_batch_resolves_its_own_hash(server: RunningServer, tenant: str) -> None:
    query = f"query Batch_{tenant} {{ documents {{ totalCount }} }}"
    await server.client.post("/graphql", json=_apq(query, _sha(query)))
    batch = await server.client.post("/graphql", json=[_apq(None, _sha(query)), _apq(None, _sha(query + "#"))])
    first, second = batch.json()
    assert first == {"data": {"documents": {"totalCount": 0}}}
    assert second["errors"][0]["message"] == "PersistedQueryNotFound"
