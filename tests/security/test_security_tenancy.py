"""The principal from the key decides the tenant and the visible scopes; nothing else can widen them.

Two tenants hold look-alike data (same paths, slugs, titles and links); each key must see only its own."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.security import bearer
from tests.support.server import RunningServer
from vaultgraph.services.auth import ApiKeyService

pytestmark = [pytest.mark.security, pytest.mark.api]

SAVE = """mutation($input: NoteInput!) { saveNote(input: $input) { note { id slug } } }"""
CREATE = """mutation($input: DocumentInput!) { createDocument(input: $input) { id path } }"""
LINK = """mutation($from: ID!, $to: ID!) { createLink(input: {from: $from, to: $to, type: "REFERENCES"}) { id } }"""

READS: dict[str, tuple[str, dict[str, Any]]] = {
    "documents": ("{ documents(first: 100) { totalCount edges { node { id path } } } }", {}),
    "notes": ("{ notes(first: 100) { totalCount edges { node { id slug } } } }", {}),
    "document": ('{ document(path: "plans/roadmap.md") { id } }', {}),
    "note": ('{ note(slug: "hub") { id backlinks { edges { node { id from { id } } } } } }', {}),
    "graph": ("{ graph(limit: 200) { nodes { id } edges { id from { id } to { id } } } }", {}),
    "tags": ("{ tags { tag count } }", {}),
}
BY_ID = """query($id: ID!) { node(id: $id) { id ... on Item { title
  backlinks { edges { node { id from { id } } } } outgoing { edges { node { id to { id } } } } } } }"""
TRAVERSE = "query($ids: [ID!]!) { traverse(from: $ids, hops: 3) { count nodes { item { id } fromId viaLinkId } } }"


async def _world(server: RunningServer, secret: str, mark: str) -> dict[str, str]:
    """The same shapes in every tenant: a hub note, a spoke linking to it, a document, a manual link."""
    headers = bearer(secret)
    hub = (await server.data(SAVE, {"input": {"title": "Hub", "body": f"#plan the hub {mark}"}}, headers))
    spoke = await server.data(SAVE, {"input": {"title": "Spoke", "body": "see [[Hub]] and [[Nowhere]]"}}, headers)
    doc = await server.data(CREATE, {"input": {"path": "plans/roadmap.md", "content": f"# Roadmap {mark}"}}, headers)
    ids = {"hub": hub["saveNote"]["note"]["id"], "spoke": spoke["saveNote"]["note"]["id"],
           "doc": doc["createDocument"]["id"]}
    link = await server.data(LINK, {"from": ids["doc"], "to": ids["hub"]}, headers)
    ids["link"] = link["createLink"]["id"]
    return ids


async def test_a_key_never_sees_another_tenant(keyed_server: RunningServer, keys: ApiKeyService,
                                               tenant: str) -> None:
    a = (await keys.create(tenant, all_scopes=True)).secret
    b = (await keys.create(f"{tenant}b", all_scopes=True)).secret
    mine = await _world(keyed_server, a, "alpha")
    theirs = await _world(keyed_server, b, "beta")
    foreign = set(theirs.values())

    def clean(body: dict[str, Any]) -> str:
        text = json.dumps(body)
        assert not [i for i in foreign if i in text], f"foreign ids leaked: {text}"
        assert "beta" not in text
        return text

    for name, (query, variables) in READS.items():
        text = clean(await keyed_server.data(query, variables, bearer(a)))
        if name in ("documents", "document", "note", "graph"):
            assert mine["hub" if name == "note" else "doc"] in text, name

    for item in ("hub", "spoke", "doc", "link"):
        assert (await keyed_server.data(BY_ID, {"id": theirs[item]}, bearer(a)))["node"] is None
        own = clean(await keyed_server.data(BY_ID, {"id": mine[item]}, bearer(a)))
        assert mine[item] in own

    reached = clean(await keyed_server.graphql(TRAVERSE, {"ids": [mine["hub"]]}, bearer(a)))
    assert mine["spoke"] in reached and mine["doc"] in reached
    # A foreign seed is simply not found (the error names the id the caller sent, nothing more).
    body = await keyed_server.graphql(TRAVERSE, {"ids": [theirs["hub"]]}, bearer(a))
    assert body["data"] is None and body["errors"][0]["extensions"]["code"] == "NOT_FOUND"

    # Writes cannot reach across either: linking to, updating or deleting their items finds nothing.
    for query, variables in [
        (LINK, {"from": mine["doc"], "to": theirs["hub"]}),
        (LINK, {"from": theirs["doc"], "to": mine["hub"]}),
        ('mutation($id: ID!) { deleteDocument(id: $id) { deleted } }', {"id": theirs["doc"]}),
        ('mutation($id: ID!) { deleteLink(id: $id) { deleted } }', {"id": theirs["link"]}),
        ('mutation($id: ID!) { updateDocument(id: $id, input: {title: "mine now"}) { id } }', {"id": theirs["doc"]}),
    ]:
        body = await keyed_server.graphql(query, variables, bearer(a))
        clean({"data": body["data"]})
        assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND", body
    # ... and B's world is untouched.
    assert (await keyed_server.data(BY_ID, {"id": theirs["doc"]}, bearer(b)))["node"]["title"] == "Roadmap beta"


async def test_agent_and_team_keys_see_their_scopes(keyed_server: RunningServer, keys: ApiKeyService,
                                                   tenant: str) -> None:
    admin = bearer((await keys.create(tenant, all_scopes=True)).secret)
    ann = bearer((await keys.create(tenant, agent="ann")).secret)
    red = bearer((await keys.create(tenant, teams=["red"])).secret)
    plain = bearer((await keys.create(tenant)).secret)

    async def doc(path: str, **owner: str) -> str:
        created = await keyed_server.data(CREATE, {"input": {"path": path, "content": "x", **owner}}, admin)
        return str(created["createDocument"]["id"])

    shared = await doc("shared.md")
    ann_doc = await doc("ann.md", scope="PERSONAL", agentId="ann")
    bob_doc = await doc("bob.md", scope="PERSONAL", agentId="bob")
    red_doc = await doc("red.md", scope="TEAM", teamId="red")
    blue_doc = await doc("blue.md", scope="TEAM", teamId="blue")
    hub = (await keyed_server.data(SAVE, {"input": {"title": "Hub"}}, admin))["saveNote"]["note"]["id"]
    bob_note = await keyed_server.data(SAVE, {"input": {"title": "Bob's thoughts", "body": "on [[Hub]]",
                                                        "scope": "PERSONAL", "agentId": "bob"}}, admin)
    bob_note_id = bob_note["saveNote"]["note"]["id"]

    async def visible(headers: dict[str, str]) -> set[str]:
        data = await keyed_server.data(READS["documents"][0], headers=headers)
        return {edge["node"]["id"] for edge in data["documents"]["edges"]}

    everything = {shared, ann_doc, bob_doc, red_doc, blue_doc}
    assert await visible(admin) == everything
    assert await visible(ann) == {shared, ann_doc}
    assert await visible(red) == {shared, red_doc}
    assert await visible(plain) == {shared}
    for headers, hidden in [(ann, {bob_doc, red_doc, blue_doc}), (red, {ann_doc, bob_doc, blue_doc}),
                            (plain, everything - {shared})]:
        for item in hidden:
            assert (await keyed_server.data(BY_ID, {"id": item}, headers))["node"] is None

    # Bob's personal note links to the shared hub: only a key that sees Bob's scope sees that backlink.
    for headers, expected in [(admin, 1), (ann, 0), (red, 0), (plain, 0)]:
        text = json.dumps(await keyed_server.data(BY_ID, {"id": hub}, headers))
        assert text.count(bob_note_id) == expected, text

    # Writing into a scope the key does not see is FORBIDDEN; its own scopes are fine.
    for headers, owner in [(ann, {"scope": "PERSONAL", "agentId": "bob"}), (red, {"scope": "TEAM", "teamId": "blue"}),
                           (plain, {"scope": "PERSONAL", "agentId": "ann"})]:
        body = await keyed_server.graphql(CREATE, {"input": {"path": "sneak.md", "content": "x", **owner}}, headers)
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN", body
    await keyed_server.data(CREATE, {"input": {"path": "mine.md", "content": "x", "scope": "PERSONAL",
                                               "agentId": "ann"}}, ann)
    await keyed_server.data(CREATE, {"input": {"path": "ours.md", "content": "x", "scope": "TEAM",
                                               "teamId": "red"}}, red)
