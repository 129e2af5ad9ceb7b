"""Link ends and traversed items read without their text when the selection asks none of it (schema/prefetch.py
`summary_enough`, graph/records.py ITEM_SUMMARY_FIELDS), over real HTTP: every field answers as the whole item's
does, and a selection that asks for text (even under another alias of the same connection) gets it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.server import RunningServer
from vaultgraph.graph.records import item_map, item_summary_map

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id slug } } }"

SUMMARY = ("id title scope agentId teamId __typename "
           "... on Note { slug kind tags pinned archivedAt createdAt updatedAt }")
TEXT = "... on Note { body bodySha256 frontmatter }"

BACKLINKS = """query($slug: String!) { note(slug: $slug) {
  short: backlinks(first: 5) { nodes { id from { %s } } }
  long: backlinks(first: 5) { nodes { id from { %s %s } } }
} }"""

TRAVERSE = "query($id: ID!) { traverse(from: [$id], hops: 2) { nodes { item { %s } } } }"


def _statements(server: RunningServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements the server's Graph reads in one statement from now on (they say which projection it used)."""
    graph, seen = server.app.state.graph, []
    read_records = graph.read_records

    async def recording(query: str, **params: Any) -> Any:
        seen.append(query)
        return await read_records(query, **params)

    monkeypatch.setattr(graph, "read_records", recording)
    return seen


async def _seed(server: RunningServer) -> str:
    hub = (await server.data(SAVE, {"input": {"title": "Hub", "body": "plain"}}))["saveNote"]["note"]["id"]
    for i in range(4):
        body = f"---\nstatus: s{i}\n---\nsee [[Hub]] #tag{i}, and [[n{i - 1}]]"
        await server.data(SAVE, {"input": {"title": f"n{i}", "body": body}})
    return str(hub)


def _without_text(item: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if key not in ("body", "bodySha256", "frontmatter")}


async def test_link_ends_without_text_answer_as_whole_ones(server: RunningServer,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    await _seed(server)
    statements = _statements(server, monkeypatch)
    alone = (await server.data(BACKLINKS.replace("long: backlinks(first: 5) { nodes { id from { %s %s } } }", "")
                               % SUMMARY, {"slug": "hub"}))["note"]["short"]["nodes"]
    assert item_summary_map("other") in statements[-1] and item_map("other") not in statements[-1]
    both = (await server.data(BACKLINKS % (SUMMARY, SUMMARY, TEXT), {"slug": "hub"}))["note"]
    assert item_map("other") in statements[-1] and item_summary_map("other") not in statements[-1]
    assert len(alone) == 4
    assert alone == both["short"]["nodes"]
    assert [_without_text(link["from"]) for link in both["long"]["nodes"]] == [link["from"] for link in alone]
    for link in both["long"]["nodes"]:  # the text itself, though `short` asked the same page as summaries
        assert link["from"]["body"].startswith("---\nstatus: ")
        assert link["from"]["frontmatter"]["status"].startswith("s")
        assert len(link["from"]["bodySha256"]) == 64


async def test_a_traversal_without_text_answers_as_one_with_it(server: RunningServer,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    hub = await _seed(server)
    statements = _statements(server, monkeypatch)
    short = (await server.data(TRAVERSE % SUMMARY, {"id": hub}))["traverse"]["nodes"]
    assert item_summary_map("m") in statements[-1] and item_map("m") not in statements[-1]
    long = (await server.data(TRAVERSE % (SUMMARY + " " + TEXT), {"id": hub}))["traverse"]["nodes"]
    assert item_map("m") in statements[-1] and item_summary_map("m") not in statements[-1]
    assert len(short) == 4
    assert [_without_text(node["item"]) for node in long] == [node["item"] for node in short]
    assert all(node["item"]["body"].startswith("---\nstatus: ") for node in long)
