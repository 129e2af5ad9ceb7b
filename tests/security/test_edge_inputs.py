"""Inputs that used to fall through to INTERNAL or a plain-text 500 get a coded answer naming what is wrong, and
change nothing (issue 19: 19.5, 19.6, 19.8, 19.9)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings

pytestmark = [pytest.mark.security, pytest.mark.api]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id title } } }"
NOTES_AFTER = "query($after: String) { notes(first: 2, after: $after) { edges { node { id } } } }"
COUNT = "{ notes { totalCount } }"


@pytest.fixture(scope="module")
async def edge(settings: Settings) -> AsyncIterator[RunningServer]:
    """Development mode (each test its own tenant by header), no rate limit, no enrichment workers."""
    update = {"port": 0, "rate_limit_per_second": 0.0, "enrichment_workers": False}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


def _as(tenant: str) -> dict[str, str]:
    return {"X-Vaultgraph-Tenant": tenant}


def _coded(body: dict[str, Any], code: str = "INVALID_INPUT") -> dict[str, Any]:
    assert body.get("data") is None, body
    [error] = body["errors"]
    assert error["extensions"]["code"] == code, body
    return dict(error)


async def _post_raw(server: RunningServer, text: str, tenant: str) -> dict[str, Any]:
    """A JSON body sent as written (escapes such as `\\ud800` reach the server as the client wrote them)."""
    response = await server.client.post("/graphql", content=text.encode(),
                                        headers={"content-type": "application/json", **_as(tenant)})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_a_multipart_map_without_an_operation_index_is_a_coded_400(edge: RunningServer) -> None:
    """`operations` a batch (an array) and a `map` path with no index into it: was a plain-text 500, no id."""
    operations = json.dumps([{"query": "mutation($f: Upload!) { uploadDocuments(files: [$f]) { files { path } } }",
                              "variables": {"f": None}}])
    for mapping in ['{"0": ["variables.f"]}', '{"0": ["x.variables.f"]}', '{"0": ["7.variables.f"]}']:
        response = await edge.client.post(
            "/graphql", data={"operations": operations, "map": mapping},
            files={"0": ("a.md", b"# a\n", "text/markdown")}, headers={"Apollo-Require-Preflight": "true"})
        assert response.status_code == 400, response.text
        assert re.fullmatch(r"[0-9a-f]{16}", response.headers["x-request-id"])
        [error] = response.json()["errors"]
        assert error["extensions"]["code"] == "INVALID_INPUT" and "multipart" in error["message"]


async def test_a_made_up_cursor_names_the_argument(edge: RunningServer, tenant: str) -> None:
    for n in range(3):
        await edge.data(SAVE, {"input": {"title": f"Cursor {n}", "body": "b"}}, _as(tenant))
    page = await edge.data(NOTES_AFTER, headers=_as(tenant))
    assert len(page["notes"]["edges"]) == 2
    made_up = [base64.urlsafe_b64encode(json.dumps(key).encode()).decode() for key in
               (["x", "y"], [1, 2], [None, None], [{"a": 1}, []], ["2026-01-01T00:00:00Z", 5])]
    for cursor in [*made_up, "not-a-cursor", "====", "\u00e9t\u00e9"]:
        error = _coded(await edge.graphql(NOTES_AFTER, {"after": cursor}, _as(tenant)))
        assert error["extensions"]["field"] == "after", error
        assert "cursor" in error["message"]


async def test_a_lone_surrogate_in_a_string_is_refused_naming_the_field(edge: RunningServer, tenant: str) -> None:
    # Sent as JSON escapes: a valid JSON text, whose strings hold a UTF-16 half that no UTF-8 text can carry.
    for variables, field in [('{"input": {"title": "\\ud800", "body": "b"}}', "input.title"),
                             ('{"input": {"title": "ok", "body": "x \\udfff y"}}', "input.body"),
                             ('{"input": {"title": "ok", "tags": ["a", "\\ud83d"]}}', "input.tags.1")]:
        body = await _post_raw(edge, f'{{"query": {json.dumps(SAVE)}, "variables": {variables}}}', tenant)
        error = _coded(body)
        assert error["extensions"]["field"] == field, error
    # In a literal of the document itself (a GraphQL escape, or the character itself): the parser refuses it.
    literal = json.dumps('mutation { saveNote(input: {title: "\\ud800"}) { note { id } } }')
    body = await _post_raw(edge, f'{{"query": {literal}}}', tenant)
    assert body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED", body  # a syntax error
    raw = '{"query": "mutation { saveNote(input: {title: \\"\\ud800\\"}) { note { id } } }"}'
    body = await _post_raw(edge, raw, tenant)
    assert body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED", body  # a syntax error
    assert (await edge.data(COUNT, headers=_as(tenant)))["notes"]["totalCount"] == 0
    # A surrogate pair (an emoji) is a character like any other.
    saved = await _post_raw(edge, f'{{"query": {json.dumps(SAVE)}, "variables": '
                                  '{"input": {"title": "\\ud83d\\ude00 fine", "body": "b"}}}', tenant)
    assert saved["data"]["saveNote"]["note"]["title"] == "\U0001f600 fine", saved


async def test_nan_and_infinity_are_not_json(edge: RunningServer, tenant: str) -> None:
    create = "mutation($input: DocumentInput!) { createDocument(input: $input) { id metadata } }"
    for value in ["NaN", "Infinity", "-Infinity", '{"deep": [1, NaN]}']:
        text = (f'{{"query": {json.dumps(create)}, "variables": {{"input": {{"path": "n.md", "content": "x", '
                f'"metadata": {{"score": {value}}}}}}}}}')
        error = _coded(await _post_raw(edge, text, tenant))
        assert "NaN or Infinity" in error["message"], error
    literal = 'mutation { createDocument(input: {path: "n.md", content: "x", metadata: {score: 1e999}}) { id } }'
    error = _coded(await edge.graphql(literal, headers=_as(tenant)))
    assert "NaN or Infinity" in error["message"], error
    count = await edge.data("{ documents { totalCount } }", headers=_as(tenant))
    assert count["documents"]["totalCount"] == 0
    # Finite numbers, as ever, pass and come back as valid JSON.
    done = await edge.data(create, {"input": {"path": "n.md", "content": "x", "metadata": {"score": 1.5e300}}},
                           _as(tenant))
    assert done["createDocument"]["metadata"] == {"score": 1.5e300}


async def test_searching_fields_weigh_what_their_searches_cost(edge: RunningServer, tenant: str) -> None:
    page = "query($n: Int) { notes(first: $n) { edges { node { id suggestions { similarity } } } } }"
    error = _coded(await edge.graphql(page, {"n": 100}, _as(tenant)), "LIMIT_EXCEEDED")
    assert "`suggestions` runs a similarity search for each note" in error["message"], error
    assert error["extensions"]["cost"] > error["extensions"]["limit"]
    # The same page without them, a smaller page with them, and one note's suggestions all pass.
    await edge.data("{ notes(first: 100) { edges { node { id } } } }", headers=_as(tenant))
    await edge.data(page, {"n": 20}, _as(tenant))
    saved = await edge.data(SAVE, {"input": {"title": "One", "body": "a note"}}, _as(tenant))
    one = await edge.data("query($id: ID!) { note(id: $id) { suggestions(limit: 50) { similarity } } }",
                          {"id": saved["saveNote"]["note"]["id"]}, _as(tenant))
    assert one["note"]["suggestions"] == []
    # Each ghost's candidates are a search too: the documented maximum page of 50 still passes.
    await edge.data("{ ghosts(first: 50) { ref candidates { score } } }", headers=_as(tenant))
    nested = "{ notes(first: 100) { edges { node { backlinks(first: 10) { edges { node { from { ... on Note " \
             "{ suggestions(limit: 1) { similarity } } } } } } } } } }"
    error = _coded(await edge.graphql(nested, headers=_as(tenant)), "LIMIT_EXCEEDED")
    assert "suggestions" in error["message"]
