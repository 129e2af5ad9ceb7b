"""Real JavaScript clients, driven by node, against the live server (issue 22, the client suite): graphql-ws over
the WHATWG WebSocket a browser has (no headers: the tenant only in connection_init), Apollo Client 4 with its
persisted-queries link (APQ) and normalized cache, urql with graphcache (its normalized cache); and graphql-inspector
validating the explorer's documents against schema.graphql. The npm packages come from
tests/clients/js/package-lock.json, installed by `make test` (`make clients-js`); node is required, as in CI."""

from __future__ import annotations

import asyncio
import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.api]

JS = Path(__file__).resolve().parent / "js"
ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "schema.graphql"
SPEC = "application/graphql-response+json"


async def _node(*args: str) -> dict[str, Any]:
    """Run a script of tests/clients/js with node; its one JSON line."""
    node = shutil.which("node")
    assert node is not None, "node is required for tests/clients (CI has it): install Node.js 20 or newer"
    assert (JS / "node_modules" / ".package-lock.json").is_file(), \
        "the JS clients are not installed: run `make clients-js` (npm ci in tests/clients/js)"
    process = await asyncio.create_subprocess_exec(node, *args, cwd=JS, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, stderr.decode()
    answer: dict[str, Any] = json.loads(stdout.decode().strip().splitlines()[-1])
    return answer


async def test_graphql_ws_from_a_browser_like_client_with_the_tenant_in_connection_init(
        server: RunningServer) -> None:
    other = f"t{uuid.uuid4().hex[:16]}"  # not the server's default tenant: only connection_init can name it
    await server.data('mutation { saveNote(input: {title: "Seen over graphql-ws", body: "x"}) { note { id } } }',
                      headers={"X-Vaultgraph-Tenant": other})
    answer = await _node("--experimental-websocket", "graphql_ws_subscribe.mjs",
                         server.url.replace("http://", "ws://") + "/graphql", other)
    assert answer["progress"] == {"data": {"enrichmentProgress": {"queued": 0, "running": 0, "total": 0}}}
    assert answer["notes"] == {"data": {"notes": {"totalCount": 1,
                                                  "edges": [{"node": {"title": "Seen over graphql-ws"}}]}}}


async def test_apollo_client_4_with_automatic_persisted_queries(server: RunningServer, tenant: str) -> None:
    save = "mutation($t: String!, $b: String!) { saveNote(input: {title: $t, body: $b}) { note { id } } }"
    plan = (await server.data(save, {"t": f"Plan {tenant}", "b": f"See [[Review {tenant}]]."}))["saveNote"]["note"]
    review = (await server.data(save, {"t": f"Review {tenant}", "b": f"Back to [[Plan {tenant}]]."}))
    review_id = review["saveNote"]["note"]["id"]
    answer = await _node("apollo_apq.mjs", f"{server.url}/graphql", tenant, plan["id"])
    hashes = {exchange["hash"] for exchange in answer["exchanges"]}
    assert len(hashes) == 1 and None not in hashes, answer["exchanges"]  # every request carried the one hash
    # Hash only: not known yet (a request error: 400 under the spec media type Apollo asks for); then the hash with
    # the query registers it; a fresh client's hash-only request is answered from the server's cache.
    assert [(e["hasQuery"], e["status"], e["contentType"]) for e in answer["exchanges"]] == [
        (False, 400, SPEC), (True, 200, SPEC), (False, 200, SPEC)]
    expected = {"note": {
        "__typename": "Note", "id": plan["id"], "title": f"Plan {tenant}",
        "outgoing": {"__typename": "LinkConnection", "edges": [{"__typename": "LinkEdge", "node": {
            "__typename": "Link", "id": answer["registered"]["note"]["outgoing"]["edges"][0]["node"]["id"],
            "type": "WIKILINK", "to": {"__typename": "Note", "id": review_id, "title": f"Review {tenant}"}}}]},
        "backlinks": {"__typename": "LinkConnection", "edges": [{"__typename": "LinkEdge", "node": {
            "__typename": "Link", "id": answer["registered"]["note"]["backlinks"]["edges"][0]["node"]["id"],
            "type": "WIKILINK", "from": {"__typename": "Note", "id": review_id, "title": f"Review {tenant}"}}}]}}}
    assert answer["registered"] == expected and answer["byHash"] == expected
    # The normalized cache holds each note once, whether reached as `to` or as `from`.
    assert answer["cachedNotes"] == sorted([f"Note:{plan['id']}", f"Note:{review_id}"])


def _link_read(link: dict[str, Any]) -> tuple[Any, ...]:
    return (link["id"], link["type"], link["ref"], link["isGhost"], link["from"], link["to"])


async def test_urql_graphcache_normalizes_the_link_outgoing_and_backlinks_share(
        server: RunningServer, tenant: str) -> None:
    target_title, linking_title = f"Target {tenant}", f"Linking {tenant}"
    answer = await _node("urql_graphcache.mjs", f"{server.url}/graphql", tenant, str(SCHEMA), target_title,
                         linking_title)
    assert answer["warnings"] == []  # graphcache needed no `keys`: it found an id for every entity it stores
    target = {"__typename": "Note", "id": answer["targetId"], "title": target_title}
    linking = {"__typename": "Note", "id": answer["linkingId"], "title": linking_title}
    for read in (answer["network"], answer["cached"]):
        [outgoing] = [edge["node"] for edge in read["outgoing"]["note"]["outgoing"]["edges"]]
        [backlink] = [edge["node"] for edge in read["backlinks"]["note"]["backlinks"]["edges"]]
        assert outgoing["id"].startswith("lnk_")
        # One Link, resolved both ways: the same id, the target in `to` through backlinks too (issue 18).
        assert _link_read(outgoing) == _link_read(backlink) == (
            outgoing["id"], "WIKILINK", target_title, False, linking, target)
    # The second reads came from graphcache alone, whole; and the Link record itself, looked up by id in the cache
    # (a cache redirect, no request), holds the resolved target: one entity, written by both fields.
    assert answer["cacheOutcomes"] == ["hit", "hit", "hit"]
    assert answer["entity"] == {"__typename": "Link", "id": outgoing["id"], "isGhost": False,
                                "from": {"__typename": "Note", "id": answer["linkingId"]},
                                "to": {"__typename": "Note", "id": answer["targetId"]}}


async def test_graphql_inspector_validates_the_explorers_documents_against_the_schema() -> None:
    answer = await _node("inspect_explorer_documents.mjs", str(SCHEMA), str(ROOT / "web" / "src"))
    assert answer["errors"] == [] and answer["deprecated"] == []
    # The static documents: queries.ts's, the boot probe and the upload. A lower bound, so a new one needs no edit
    # here; the ones built at run time from the schema's capabilities are listed in answer["dynamic"], unchecked.
    assert len(answer["checked"]) >= 10, answer
    assert sum(where.startswith("src/queries.ts:") for where in answer["checked"]) >= 10, answer["checked"]
