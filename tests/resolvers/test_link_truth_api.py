"""One truth for every link (issue 18): the same link reads the same through every surface, `ref` is what was
authored and `key` what binds, the graph does not depend on the order of writes, and the rules around it
(deleteLink, the graph view's edge cap, createdByAgentId, scopes, the CONFLICT oracle) hold over real HTTP."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.services import links as link_service

pytestmark = [pytest.mark.api, pytest.mark.graph]

LINK_FIELDS = "id type ref key label heading isGhost createdByAgentId from { id } to { id }"



def with_links(query: str) -> str:
    """`query` with every LINK replaced by the link fields the tests compare."""
    return query.replace("LINK", LINK_FIELDS)


SAVE = with_links("mutation($input: NoteInput!) { saveNote(input: $input) { note { id slug "
                  "outgoing { nodes { LINK } } } } }")
CREATE_DOCUMENT = "mutation($input: DocumentInput!) { createDocument(input: $input) { id path } }"
CREATE_LINK = with_links("mutation($i: LinkInput!) { createLink(input: $i) { LINK } }")
OUTGOING = with_links("query($id: ID!) { node(id: $id) { ... on Item { outgoing { nodes { LINK } } } } }")
BACKLINKS = with_links("query($id: ID!) { node(id: $id) { ... on Item { backlinks { nodes { LINK } } } } }")


@pytest.fixture(scope="module")
async def api(settings: Settings) -> AsyncIterator[RunningServer]:
    """One server for the module, no enrichment; each test is its own tenant through the development headers."""
    update = {"port": 0, "enrichment_tenants": ["none"]}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


class Client:
    """One tenant (and optionally an agent and teams) of the module's server."""

    def __init__(self, server: RunningServer, tenant: str, agent: str | None = None, teams: str | None = None):
        self.server = server
        self.headers = {"X-Vaultgraph-Tenant": tenant}
        if agent:
            self.headers["X-Vaultgraph-Agent"] = agent
        if teams:
            self.headers["X-Vaultgraph-Teams"] = teams

    async def data(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self.server.data(query, variables, self.headers)

    async def errors(self, query: str, variables: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        body = await self.server.graphql(query, variables, self.headers)
        assert body.get("errors"), body
        errors: list[dict[str, Any]] = body["errors"]
        return errors

    async def note(self, title: str, body: str = "", **extra: Any) -> dict[str, Any]:
        saved = await self.data(SAVE, {"input": {"title": title, "body": body, **extra}})
        note: dict[str, Any] = saved["saveNote"]["note"]
        return note

    async def document(self, path: str, content: str = "text", **extra: Any) -> dict[str, Any]:
        created = await self.data(CREATE_DOCUMENT, {"input": {"path": path, "content": content, **extra}})
        document: dict[str, Any] = created["createDocument"]
        return document

    async def outgoing(self, item_id: str) -> list[dict[str, Any]]:
        nodes: list[dict[str, Any]] = (await self.data(OUTGOING, {"id": item_id}))["node"]["outgoing"]["nodes"]
        return nodes

    async def backlinks(self, item_id: str) -> list[dict[str, Any]]:
        nodes: list[dict[str, Any]] = (await self.data(BACKLINKS, {"id": item_id}))["node"]["backlinks"]["nodes"]
        return nodes


def _tenant() -> str:
    return f"t{uuid.uuid4().hex[:16]}"


@pytest.fixture
def client(api: RunningServer) -> Client:
    return Client(api, _tenant())


async def test_a_link_reads_the_same_as_outgoing_backlink_read_ahead_and_node(client: Client) -> None:
    target = await client.note("Target Note", "Here.")
    doc = await client.document("guides/Setup Guide.md", "# Setup")
    source = await client.note("Source", "See [[Target Note#Part|the target]] and [[setup guide]].")
    outgoing = {link["id"]: link for link in source["outgoing"]["nodes"]}
    assert len(outgoing) == 2 and all(not link["isGhost"] for link in outgoing.values())

    for item_id in (target["id"], doc["id"]):
        [backlink] = await client.backlinks(item_id)
        assert backlink == outgoing[backlink["id"]]
        assert backlink["to"] == {"id": item_id} and backlink["isGhost"] is False
    # The note(slug) read-ahead (one statement for the note and its connections) and document(path) read the same.
    ahead = await client.data(with_links('{ note(slug: "target-note") { backlinks { nodes { LINK } } } }'))
    [read_ahead] = ahead["note"]["backlinks"]["nodes"]
    assert read_ahead == outgoing[read_ahead["id"]]
    by_path = await client.data(
        with_links('{ document(path: "guides/Setup Guide.md") { backlinks { nodes { LINK } } } }'))
    [doc_link] = by_path["document"]["backlinks"]["nodes"]
    assert doc_link == outgoing[doc_link["id"]]
    for link_id, link in outgoing.items():
        node = await client.data(with_links("query($id: ID!) { node(id: $id) { ... on Link { LINK } } }"),
                                 {"id": link_id})
        assert node["node"] == link


async def test_ref_is_the_authored_target_and_key_what_binds(client: Client) -> None:
    source = await client.note("Reader", "Read [[Target Note#Intro|this]] and [[Nowhere Yet.md]].")
    by_ref = {link["ref"]: link for link in source["outgoing"]["nodes"]}
    assert set(by_ref) == {"Target Note", "Nowhere Yet"}
    assert (by_ref["Target Note"]["key"], by_ref["Target Note"]["heading"], by_ref["Target Note"]["label"]) == (
        "target-note", "Intro", "this")
    assert by_ref["Target Note"]["isGhost"] and by_ref["Nowhere Yet"]["key"] == "nowhere-yet"

    target = await client.note("target note", "Now it exists.")  # another spelling, the same key
    [bound] = [link for link in await client.outgoing(source["id"]) if link["ref"] == "Target Note"]
    assert (bound["isGhost"], bound["to"], bound["key"]) == (False, {"id": target["id"]}, "target-note")

    manual = (await client.data(CREATE_LINK, {"i": {"from": source["id"], "ref": "Some Other Page",
                                                    "type": "RELATED"}}))["createLink"]
    assert (manual["ref"], manual["key"], manual["isGhost"]) == ("Some Other Page", "some-other-page", True)


BODIES = {
    "Alpha": "[[Beta]] [[guides/Setup Guide]] [[other/Setup Guide]] [[SETUP GUIDE.md]] [[Data.csv]] [[ref/data]] "
             "[[projects/gamma]] [[Gamma]] [[Missing Page]]",
    "Beta": "[[alpha]] [[work/projects/Gamma]] [[ref/Data.csv]]",
}


async def _write(client: Client, reverse: bool) -> None:
    steps: list[tuple[str, Any]] = [
        ("doc", "guides/Setup Guide.md"), ("doc", "ref/Data.csv"),
        ("note", {"title": "Gamma", "slug": "work/projects/gamma", "body": "[[Beta]]"}),
        ("note", {"title": "Alpha", "body": BODIES["Alpha"]}), ("note", {"title": "Beta", "body": BODIES["Beta"]}),
    ]
    for kind, what in reversed(steps) if reverse else steps:
        if kind == "doc":
            await client.document(what, "a,b\n1,2\n" if what.endswith(".csv") else "# text")
        else:
            await client.note(**what)


GRAPH_EDGES = """{ notes(first: 50) { nodes { slug outgoing(first: 50) { nodes { type ref key isGhost
  to { ... on Note { slug } ... on Document { path } } } } } } }"""


async def _edges(client: Client) -> set[tuple[str, str, str, str]]:
    notes = (await client.data(GRAPH_EDGES))["notes"]["nodes"]
    edges = set()
    for note in notes:
        for link in note["outgoing"]["nodes"]:
            to = f"ghost:{link['key']}" if link["isGhost"] else (link["to"].get("slug") or link["to"]["path"])
            edges.add((note["slug"], to, link["type"], link["ref"]))
    return edges


async def test_the_same_bodies_give_the_same_graph_in_any_order(api: RunningServer) -> None:
    forward, backward = Client(api, _tenant()), Client(api, _tenant())
    await _write(forward, reverse=False)
    await _write(backward, reverse=True)
    edges = await _edges(forward)
    assert edges == await _edges(backward)
    assert ("alpha", "guides/Setup Guide.md", "WIKILINK", "other/Setup Guide") in edges  # GoClaw's basename step
    assert ("alpha", "work/projects/gamma", "WIKILINK", "projects/gamma") in edges  # Obsidian's path suffix
    assert ("alpha", "ref/Data.csv", "WIKILINK", "Data.csv") in edges
    assert ("alpha", "ghost:ref/data", "WIKILINK", "ref/data") in edges  # a csv is not named without its suffix
    assert ("beta", "work/projects/gamma", "WIKILINK", "work/projects/Gamma") in edges


async def test_saves_at_the_same_time_bind_as_saves_one_after_another(client: Client) -> None:
    """Each note and the note linking to it saved at once: each save's resolution and the other's binding read what
    the other writes, so without the name lock both miss it and a ghost stays beside the note it names."""
    pairs = 12

    async def pair(i: int) -> tuple[dict[str, Any], dict[str, Any]]:
        linking, named = await asyncio.gather(client.note(f"From {i}", f"see [[To {i}]] and [[Hub]]"),
                                              client.note(f"To {i}", "the target"))
        return linking, named

    hub, *saved = await asyncio.gather(client.note("Hub", "the hub"), *(pair(i) for i in range(pairs)))
    for linking, named in saved:
        [to_named] = [link for link in await client.outgoing(linking["id"]) if link["ref"] != "Hub"]
        assert not to_named["isGhost"] and to_named["to"] == {"id": named["id"]}, to_named
        assert [link["from"]["id"] for link in await client.backlinks(named["id"])] == [linking["id"]]
    assert len(await client.backlinks(hub["id"])) == pairs
    assert (await client.data("{ ghosts(first: 50) { ref } }"))["ghosts"] == []


async def test_a_rename_and_a_link_to_the_old_name_at_the_same_time_end_as_in_some_order(client: Client) -> None:
    """Either the link came first (the rename rewrote it to the new name, bound) or the rename did (a ghost of the
    old name); never a [[Old i]] bound to the note now called New i."""
    pairs = 8
    olds = [await client.note(f"Old {i}", "to be renamed") for i in range(pairs)]

    async def race(i: int) -> dict[str, Any]:
        renamed, linking = await asyncio.gather(
            client.data(SAVE, {"input": {"id": olds[i]["id"], "title": f"New {i}", "body": "renamed"}}),
            client.note(f"Linker {i}", f"see [[Old {i}]]"))
        return linking

    for i, linking in enumerate(await asyncio.gather(*(race(i) for i in range(pairs)))):
        body = (await client.data('query($id: ID!) { node(id: $id) { ... on Note { body } } }',
                                  {"id": linking["id"]}))["node"]["body"]
        [link] = await client.outgoing(linking["id"])
        if body == f"see [[New {i}]]":
            assert (link["key"], link["isGhost"], link["to"]) == (f"new-{i}", False, {"id": olds[i]["id"]}), link
        else:
            assert body == f"see [[Old {i}]]"
            assert (link["key"], link["isGhost"]) == (f"old-{i}", True), link


async def test_delete_link_refuses_a_wikilink_the_body_holds(client: Client) -> None:
    target = await client.note("Plan")
    source = await client.note("Kickoff", "We follow [[Plan]].")
    [wikilink] = source["outgoing"]["nodes"]
    delete = "mutation($id: ID!) { deleteLink(id: $id) { deleted } }"
    [error] = await client.errors(delete, {"id": wikilink["id"]})
    assert error["extensions"]["code"] == "LINK_OWNED_BY_BODY" and "body" in error["message"]
    assert [link["id"] for link in await client.outgoing(source["id"])] == [wikilink["id"]]

    manual = (await client.data(CREATE_LINK, {"i": {"from": source["id"], "to": target["id"],
                                                    "type": "DEPENDS_ON"}}))["createLink"]
    assert (await client.data(delete, {"id": manual["id"]}))["deleteLink"]["deleted"] is True
    await client.note("Kickoff", "", id=source["id"])  # the text no longer holds it: the edge goes with it
    assert await client.outgoing(source["id"]) == []


async def test_the_graph_view_says_when_its_edge_cap_cut_it(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(link_service, "GRAPH_EDGE_CAP", 3)
    for name in "ABCDE":
        await client.note(f"Leaf {name}")
    hub = await client.note("Hub", " ".join(f"[[Leaf {name}]]" for name in "ABCDE"))
    view = ("query($c: ID) { graph(center: $c, hops: 1, limit: 100) { "
            "truncated edgesTruncated totalEdges edges { id } } }")
    for center in (None, hub["id"]):
        graph = (await client.data(view, {"c": center}))["graph"]
        assert (graph["truncated"], graph["edgesTruncated"], graph["totalEdges"], len(graph["edges"])) == (
            False, True, 5, 3)
    monkeypatch.setattr(link_service, "GRAPH_EDGE_CAP", 5)
    graph = (await client.data(view, {"c": hub["id"]}))["graph"]
    assert (graph["edgesTruncated"], graph["totalEdges"], len(graph["edges"])) == (False, 5, 5)


async def test_a_link_says_which_agent_made_it(api: RunningServer) -> None:
    tenant = _tenant()
    person, agent = Client(api, tenant), Client(api, tenant, agent="scout")
    one, two = await person.note("One"), await person.note("Two", "[[One]]")
    by_agent = (await agent.data(CREATE_LINK, {"i": {"from": one["id"], "to": two["id"], "type": "RELATED"}}))
    by_person = (await person.data(CREATE_LINK, {"i": {"from": two["id"], "to": one["id"], "type": "RELATED"}}))
    assert by_agent["createLink"]["createdByAgentId"] == "scout"
    assert by_person["createLink"]["createdByAgentId"] is None
    assert {link["createdByAgentId"] for link in await person.outgoing(two["id"])} == {None}
    [read] = await person.outgoing(one["id"])
    assert read["createdByAgentId"] == "scout"


async def test_a_personal_note_links_to_its_agents_team_items(api: RunningServer) -> None:
    tenant = _tenant()
    ann = Client(api, tenant, agent="ann", teams="ops")
    bob = Client(api, tenant, agent="bob")
    early = await ann.note("Ann early", "See [[runbook]].", scope="PERSONAL", agentId="ann")
    runbook = await ann.document("runbook.md", "# Runbook", scope="TEAM", teamId="ops")
    late = await ann.note("Ann late", "See [[runbook]].", scope="PERSONAL", agentId="ann")
    for note in (early, late):
        [link] = await ann.outgoing(note["id"])
        assert (link["isGhost"], link["to"]) == (False, {"id": runbook["id"]})
    # Bob is in no team: his personal note's link stays a ghost; a shared note links within the shared space only.
    bobs = await bob.note("Bob", "See [[runbook]].", scope="PERSONAL", agentId="bob")
    shared = await ann.note("Shared", "See [[runbook]].")
    for who, note in ((bob, bobs), (ann, shared)):
        [link] = await who.outgoing(note["id"])
        assert link["isGhost"] is True


async def test_create_link_conflict_never_names_a_link_the_caller_cannot_see(api: RunningServer) -> None:
    tenant = _tenant()
    alice, bob = Client(api, tenant, agent="alice"), Client(api, tenant, agent="bob")
    hub = await alice.note("Hub")
    secret = await alice.note("Secret", scope="PERSONAL", agentId="alice")
    hidden = (await alice.data(CREATE_LINK, {"i": {"from": hub["id"], "to": secret["id"],
                                                   "type": "RELATED"}}))["createLink"]
    mine = (await bob.data(CREATE_LINK, {"i": {"from": hub["id"], "ref": "Secret", "type": "RELATED"}}))["createLink"]
    assert mine["id"] != hidden["id"] and mine["isGhost"] is True
    [again] = await bob.errors(CREATE_LINK, {"i": {"from": hub["id"], "ref": "secret", "type": "RELATED"}})
    assert again["extensions"]["code"] == "CONFLICT" and again["extensions"]["id"] == mine["id"]
    assert hidden["id"] not in str(again)
