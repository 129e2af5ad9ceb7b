"""The GraphQL-over-HTTP spec: `Accept: application/graphql-response+json` gets that media type and its status
rules (a request error 400 without `data`, an executed operation 200 with `data` beside field errors);
`application/json` stays the default and answers 200 as before (issue 22.7)."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api]

SPEC = "application/graphql-response+json"
APOLLO_ACCEPT = "application/graphql-response+json,application/json;q=0.9"  # Apollo Client 4's default


async def _post(server: RunningServer, body: Any, accept: str | None) -> httpx.Response:
    return await server.client.post("/graphql", json=body, headers={"accept": accept} if accept else {})


@pytest.mark.parametrize("accept", [SPEC, APOLLO_ACCEPT, f"{SPEC}, application/json"])
async def test_the_spec_media_type_and_its_status_rules(server: RunningServer, tenant: str, accept: str) -> None:
    ok = await _post(server, {"query": "{ documents { totalCount } }"}, accept)
    assert (ok.status_code, ok.headers["content-type"]) == (200, SPEC)
    assert ok.json() == {"data": {"documents": {"totalCount": 0}}}
    for query in ["{ documents { totalCount ", "{ noSuchField }"]:  # does not parse; does not validate
        bad = await _post(server, {"query": query}, accept)
        assert (bad.status_code, bad.headers["content-type"]) == (400, SPEC), bad.text
        assert "data" not in bad.json() and bad.json()["errors"], bad.text
    # Executed, but a field failed: 200, `data` present (null here, as the schema's non-null payload bubbles up).
    failed = await _post(server, {"query": f'mutation {{ deleteLink(id: "{tenant}") {{ id }} }}'}, accept)
    assert (failed.status_code, failed.headers["content-type"]) == (200, SPEC)
    assert failed.json()["data"] is None and failed.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    # An unknown persisted query is a request error too; Apollo's link reads the errors from the 400's body.
    digest = hashlib.sha256(f"# {tenant}".encode()).hexdigest()
    missing = await _post(server, {"extensions": {"persistedQuery": {"version": 1, "sha256Hash": digest}}}, accept)
    assert missing.status_code == 400 and missing.json() == {"errors": [
        {"message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}]}
    # A refusal before GraphQL runs (no query at all) follows the media type too.
    empty = await _post(server, {}, accept)
    assert (empty.status_code, empty.headers["content-type"]) == (400, SPEC)
    assert "data" not in empty.json() and empty.json()["errors"][0]["extensions"]["code"] == "INVALID_INPUT"


@pytest.mark.parametrize("accept", [None, "application/json", "*/*", f"application/json, {SPEC};q=0.5"])
async def test_application_json_stays_the_default(server: RunningServer, accept: str | None) -> None:
    ok = await _post(server, {"query": "{ documents { totalCount } }"}, accept)
    assert (ok.status_code, ok.headers["content-type"]) == (200, "application/json")
    bad = await _post(server, {"query": "{ noSuchField }"}, accept)
    assert (bad.status_code, bad.headers["content-type"]) == (200, "application/json")
    assert bad.json()["data"] is None and bad.json()["errors"]


async def test_a_batch_under_the_spec_media_type_answers_200(server: RunningServer) -> None:
    batch = await _post(server, [{"query": "{ documents { totalCount } }"}, {"query": "{ noSuchField }"}], SPEC)
    assert (batch.status_code, batch.headers["content-type"]) == (200, SPEC)
    first, second = batch.json()
    assert first == {"data": {"documents": {"totalCount": 0}}} and second["errors"]
