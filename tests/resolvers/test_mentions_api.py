"""Unlinked mentions (issue 26.4) over real HTTP and Neo4j: the plain-text mentions of a note's names in other
notes' bodies, never in code or links, never another tenant's or another agent's; and linking one through saveNote."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.services import mentions as mention_service
from vaultgraph.services.mentions import MAX_PAGE

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id title body bodySha256 } } }"
MENTIONS = """
query($id: ID!, $first: Int, $after: String) { node(id: $id) { ... on Note {
  unlinkedMentions(first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    edges { cursor node { count from { id title bodySha256 body } mentions { start end text snippet link } } } } } } }
"""
BACKLINK_SOURCES = "query($id: ID!) { node(id: $id) { ... on Item { backlinks { nodes { from { id } } } } } }"

# Every place a name must not count, and three that do (one by an alias).
CROWDED = """---
summary: Project Alpha in the front matter
---
We met about project alpha today.
Already linked: [[Project Alpha]], [[Project Alpha|the project]], ![[Project Alpha]], [x](Project%20Alpha.md).
In code: `Project Alpha`, and
```
Project Alpha in a fence
```
<!-- Project Alpha in a comment --> https://example.org/project-alpha #ProjectAlpha
Not whole words: Project Alphabet, project alphas.
The PA team says PROJECT ALPHA again.
"""


@pytest.fixture(scope="module")
async def api(settings: Settings) -> AsyncIterator[RunningServer]:
    """One server for the module, no enrichment; each test is its own tenant through the development headers."""
    async with run_server(settings.model_copy(update={"port": 0, "enrichment_tenants": ["none"]})) as running:
        yield running


class Client:
    """One tenant (and optionally an agent) of the module's server."""

    def __init__(self, server: RunningServer, tenant: str, agent: str | None = None) -> None:
        self.server = server
        self.headers = {"X-Vaultgraph-Tenant": tenant, **({"X-Vaultgraph-Agent": agent} if agent else {})}

    async def body(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        return await self.server.graphql(query, variables, self.headers)

    async def note(self, title: str, body: str = "", **extra: Any) -> dict[str, Any]:
        saved = await self.server.data(SAVE, {"input": {"title": title, "body": body, **extra}}, self.headers)
        note: dict[str, Any] = saved["saveNote"]["note"]
        return note

    async def mentions(self, note_id: str, first: int | None = None, after: str | None = None) -> dict[str, Any]:
        data = await self.server.data(MENTIONS, {"id": note_id, "first": first, "after": after}, self.headers)
        found: dict[str, Any] = data["node"]["unlinkedMentions"]
        return found

    async def sources(self, note_id: str) -> list[str]:
        """The titles of the notes mentioning `note_id`, in page order (one page)."""
        return [edge["node"]["from"]["title"] for edge in (await self.mentions(note_id))["edges"]]


def tenant() -> str:
    return f"t{uuid.uuid4().hex[:16]}"


async def test_plain_text_counts_links_and_code_do_not(api: RunningServer) -> None:
    me = Client(api, tenant())
    alpha = await me.note("Project Alpha", "---\naliases: [PA]\n---\nThe project.")
    crowded = await me.note("Crowded", CROWDED)
    await me.note("Only links", "See [[Project Alpha]] and `Project Alpha` and [[Other|project alpha]].")
    await me.note("Unrelated", "Alphabet soup for the project.")

    [edge] = (await me.mentions(alpha["id"]))["edges"]
    found = edge["node"]
    assert found["from"]["id"] == crowded["id"] and found["count"] == 3
    assert [(m["text"], m["link"]) for m in found["mentions"]] == [
        ("project alpha", "[[Project Alpha|project alpha]]"),
        ("PA", "[[Project Alpha|PA]]"),
        ("PROJECT ALPHA", "[[Project Alpha|PROJECT ALPHA]]"),
    ]
    for mention in found["mentions"]:
        assert CROWDED[mention["start"]:mention["end"]] == mention["text"]
    assert found["mentions"][0]["snippet"] == (
        "We met about **project alpha** today. Already linked: [[Project Alpha]], [[Project…")


async def test_linking_a_mention_through_save_note_makes_it_a_backlink(api: RunningServer) -> None:
    me = Client(api, tenant())
    alpha = await me.note("Alpha", "The note.")
    source = await me.note("Log", "Worked on alpha. Then alpha again.")
    [edge] = (await me.mentions(alpha["id"]))["edges"]
    first, second = edge["node"]["mentions"]
    body = source["body"]
    linked = body[:first["start"]] + first["link"] + body[first["end"]:]
    # An edit made since the mentions were read: the save is refused, nothing is lost.
    edited = await me.note("Log", body + " More text.", id=source["id"])
    stale = await me.body(SAVE, {"input": {"id": source["id"], "title": "Log", "body": linked,
                                           "ifBodySha256": edge["node"]["from"]["bodySha256"]}})
    assert stale["errors"][0]["extensions"]["code"] == "CONFLICT"
    assert (await me.mentions(alpha["id"]))["edges"][0]["node"]["count"] == 2

    [edge] = (await me.mentions(alpha["id"]))["edges"]
    first = edge["node"]["mentions"][0]
    linked = edited["body"][:first["start"]] + first["link"] + edited["body"][first["end"]:]
    saved = await me.note("Log", linked, id=source["id"], ifBodySha256=edge["node"]["from"]["bodySha256"])
    assert saved["body"] == "Worked on [[Alpha|alpha]]. Then alpha again. More text."
    backlinks = await me.server.data(BACKLINK_SOURCES, {"id": alpha["id"]}, me.headers)
    assert backlinks["node"]["backlinks"]["nodes"] == [{"from": {"id": source["id"]}}]
    [edge] = (await me.mentions(alpha["id"]))["edges"]
    assert edge["node"]["count"] == 1 and edge["node"]["mentions"][0]["start"] > second["start"]


async def test_never_another_tenants_or_another_agents_notes(api: RunningServer) -> None:
    shared_tenant = tenant()
    alice, bob = Client(api, shared_tenant, agent="alice"), Client(api, shared_tenant, agent="bob")
    other = Client(api, tenant())
    target = await alice.note("Quarterly Plan", "Shared plan.")
    await other.note("Quarterly Plan", "Another tenant's note of the same name.")
    await other.note("Elsewhere", "The quarterly plan of another tenant.")
    await bob.note("Bob private", "Bob's quarterly plan notes.", scope="PERSONAL", agentId="bob")
    await alice.note("Alice private", "My quarterly plan thoughts.", scope="PERSONAL", agentId="alice")
    await alice.note("Shared log", "The quarterly plan is due.")

    assert sorted(await alice.sources(target["id"])) == ["Alice private", "Shared log"]
    assert sorted(await bob.sources(target["id"])) == ["Bob private", "Shared log"]
    # Another tenant asking for this note's id: not found, and its own same-named note sees its own tenant only.
    missing = await other.body(MENTIONS, {"id": target["id"]})
    assert missing["data"]["node"] is None
    other_plan = (await other.server.data('{ note(slug: "quarterly-plan") { id } }', None, other.headers))["note"]
    assert await other.sources(other_plan["id"]) == ["Elsewhere"]

    # A shared note cannot link to Alice's personal note (the link would be a ghost): no mention to offer there.
    secret = await alice.note("Secret Recipe", "Mine.", scope="PERSONAL", agentId="alice")
    await alice.note("Menu", "Tonight: the secret recipe.")
    await alice.note("Kitchen diary", "Cooked the secret recipe.", scope="PERSONAL", agentId="alice")
    assert await alice.sources(secret["id"]) == ["Kitchen diary"]
    denied = await bob.body(MENTIONS, {"id": secret["id"]})
    assert denied["data"]["node"] is None


async def test_pages_follow_the_cursor_and_the_size_is_bounded(api: RunningServer) -> None:
    me = Client(api, tenant())
    target = await me.note("Beacon", "The note.")
    for i in range(3):
        await me.note(f"Mention {i}", f"Saw the beacon, time {i}.")
    one = await me.mentions(target["id"], first=2)
    assert one["pageInfo"]["hasNextPage"] is True and len(one["edges"]) == 2
    two = await me.mentions(target["id"], first=2, after=one["pageInfo"]["endCursor"])
    assert two["pageInfo"]["hasNextPage"] is False
    titles = [e["node"]["from"]["title"] for e in one["edges"] + two["edges"]]
    assert titles == ["Mention 2", "Mention 1", "Mention 0"]

    for first, after in ((MAX_PAGE + 1, None), (0, None), (1, "not-a-cursor")):
        refused = await me.body(MENTIONS, {"id": target["id"], "first": first, "after": after})
        [error] = refused["errors"]
        assert error["extensions"]["code"] == "INVALID_INPUT", error
    [error] = (await me.body(MENTIONS, {"id": target["id"], "first": MAX_PAGE + 1}))["errors"]
    assert f"at most {MAX_PAGE}" in error["message"]


async def test_a_page_that_reads_its_bound_of_candidates_ends_early_and_says_where_to_go_on(
        api: RunningServer, monkeypatch: pytest.MonkeyPatch) -> None:
    me = Client(api, tenant())
    target = await me.note("Lantern", "The note.")
    await me.note("Plain", "Lit the lantern.")  # oldest: read last
    for i in range(2):
        await me.note(f"Code {i}", f"Only `lantern` in code, and [[Lantern]] {i}.")
    monkeypatch.setattr(mention_service, "MAX_SCANNED", 2)
    first = await me.mentions(target["id"])
    assert first["edges"] == [] and first["pageInfo"]["hasNextPage"] is True
    rest = await me.mentions(target["id"], after=first["pageInfo"]["endCursor"])
    assert [e["node"]["from"]["title"] for e in rest["edges"]] == ["Plain"]
    assert rest["pageInfo"]["hasNextPage"] is False


async def test_names_with_lucene_syntax_or_a_stop_word_are_plain_text(api: RunningServer) -> None:
    me = Client(api, tenant())
    quoted = await me.note('C++ "core" (draft)', "The note.")
    stop = await me.note("The", "A note named by a stop word.")
    await me.note("Uses", 'We ship C++ "core" (draft) today, and the rest.')
    assert await me.sources(quoted["id"]) == ["Uses"]
    assert sorted(await me.sources(stop["id"])) == ['C++ "core" (draft)', "Uses"]  # a word like any other
