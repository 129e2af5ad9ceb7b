"""Topics (EverOS's L2) through the real server: enrichment splits a document into them, `Document.topics` lists
them in order, `node(id:)` reads one, re-enrichment replaces them whole, another tenant sees none of them, and a
search hit says which topic of which document matched."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.agents.mcp_client import call, mcp_session
from tests.resolvers.test_uploads_api import uploaded
from tests.support import office_files
from tests.support.server import RunningServer, run_server
from tests.support.waiting import eventually
from vaultgraph.config import Settings
from vaultgraph.graph.session import Graph

pytestmark = [pytest.mark.api, pytest.mark.graph, pytest.mark.workers]

CREATE = "mutation($input: DocumentInput!) { createDocument(input: $input) { id } }"
TOPICS = """query($id: ID!) { document(id: $id) { enrichment { stage error }
  topics { id name content labels position path depth parent { id } document { id } } } }"""
NODE = "query($id: ID!) { node(id: $id) { __typename id ... on Topic { name position document { path } } } }"
WORDS = "Enough words that this section stands as a topic of its own and is not folded into the one before it."
REPORT = (f"Opening lines of the quarterly report. {WORDS}\n\n# Performance\n\nThe P99 latency fell to 120ms. "
          f"{WORDS} #latency\n\n## Caching\n\nRedis took the load. {WORDS}\n\n# Costs\n\nThe bill went down. {WORDS}\n")


@pytest.fixture
async def server(settings: Settings, tenant: str) -> AsyncIterator[RunningServer]:
    configured = settings.model_copy(update={"dev_tenant": tenant, "port": 0, "enrichment_tenants": [tenant]})
    async with run_server(configured) as running:
        yield running


async def enriched(server: RunningServer, document: str, attempt_of: str | None = None) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        found: dict[str, Any] = (await server.data(TOPICS, {"id": document}))["document"]
        return found

    def done(found: dict[str, Any]) -> bool:
        stage = found["enrichment"]["stage"]
        assert stage != "FAILED", found["enrichment"]
        return bool(stage == "DONE" and (attempt_of is None or found["topics"][0]["content"] != attempt_of))

    return await eventually(read, done, 60, f"{document} enriched")


async def test_a_document_with_headings_gets_those_topics_in_order(server: RunningServer) -> None:
    document = (await server.data(CREATE, {"input": {"path": "q1.md", "content": REPORT, "title": "Q1 Report"}})
                )["createDocument"]["id"]
    topics = (await enriched(server, document))["topics"]
    assert [t["name"] for t in topics] == ["Q1 Report", "Performance", "Caching", "Costs"]
    assert [t["position"] for t in topics] == [0, 1, 2, 3]
    assert [t["depth"] for t in topics] == [0, 1, 2, 1]
    assert topics[2]["path"] == ["Q1 Report", "Performance", "Caching"]
    assert topics[2]["parent"] == {"id": topics[1]["id"]} and topics[0]["parent"] is None
    first_two = await server.data("query($id: ID!) { document(id: $id) { topics(first: 2) { name } } }",
                                  {"id": document})
    assert [t["name"] for t in first_two["document"]["topics"]] == ["Q1 Report", "Performance"]
    assert topics[1]["content"].startswith("The P99 latency fell to 120ms.") and topics[1]["labels"] == ["latency"]
    assert all(t["document"] == {"id": document} for t in topics)
    node = (await server.data(NODE, {"id": topics[3]["id"]}))["node"]
    assert node == {"__typename": "Topic", "id": topics[3]["id"], "name": "Costs", "position": 3,
                    "document": {"path": "q1.md"}}


async def test_reenrichment_replaces_the_topics_and_leaves_no_stale_one(
    server: RunningServer, settings: Settings, tenant: str
) -> None:
    document = (await server.data(CREATE, {"input": {"path": "guide.md", "content": REPORT}}))["createDocument"]["id"]
    before = (await enriched(server, document))["topics"]
    assert len(before) == 4
    (Path(settings.workspace_dir) / tenant / "guide.md").write_text(f"# Only\n\nOne section now. {WORDS}\n")
    await server.data("mutation($ids: [ID!]) { reenrich(ids: $ids) { id } }", {"ids": [document]})
    after = (await enriched(server, document, attempt_of=before[0]["content"]))["topics"]
    assert [(t["name"], t["position"]) for t in after] == [("Only", 0)]
    for stale in before[1:]:  # their ids are gone, not left behind beside the new topic
        assert (await server.data(NODE, {"id": stale["id"]}))["node"] is None


async def test_another_tenant_cannot_read_the_topics(server: RunningServer, tenant: str) -> None:
    document = (await server.data(CREATE, {"input": {"path": "mine.md", "content": REPORT}}))["createDocument"]["id"]
    topics = (await enriched(server, document))["topics"]
    other = {"X-Vaultgraph-Tenant": f"{tenant}x"}
    for topic in topics:
        assert (await server.data(NODE, {"id": topic["id"]}, headers=other))["node"] is None
    refused = await server.graphql(TOPICS, {"id": document}, headers=other)
    assert refused["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert (refused["data"] or {}).get("document") is None


SEARCH = """query($q: String!, $mode: SearchMode!) { search(query: $q, mode: $mode, limit: 5) {
  item { id ... on Document { path } } topic { id name position document { id } } snippet } }"""


@pytest.mark.parametrize("mode", ["KEYWORD", "VECTOR", "HYBRID"])
async def test_a_search_hit_says_which_topic_of_which_document_matched(server: RunningServer, mode: str) -> None:
    document = (await server.data(CREATE, {"input": {"path": "q1.md", "content": REPORT, "title": "Q1 Report"}})
                )["createDocument"]["id"]
    topics = (await enriched(server, document))["topics"]
    hits = (await server.data(SEARCH, {"q": "Redis took the load", "mode": mode}))["search"]
    assert hits and hits[0]["item"] == {"id": document, "path": "q1.md"}  # the item stays the document
    assert hits[0]["topic"] == {"id": topics[2]["id"], "name": "Caching", "position": 2, "document": {"id": document}}


async def test_a_note_hit_has_no_topic(server: RunningServer) -> None:
    await server.data("mutation { saveNote(input: {title: \"Harbour\", body: \"Tide tables for pilots.\"}) "
                      "{ note { id } } }")
    hits = (await server.data(SEARCH, {"q": "tide tables", "mode": "KEYWORD"}))["search"]
    assert hits and all(hit["topic"] is None for hit in hits)


async def test_the_substring_fallback_names_the_topic_too(server: RunningServer) -> None:
    document = (await server.data(CREATE, {"input": {"path": "q1.md", "content": REPORT, "title": "Q1 Report"}})
                )["createDocument"]["id"]
    topics = (await enriched(server, document))["topics"]
    report = "query($q: String!) { searchReport(query: $q, mode: KEYWORD) { keyword { fallback } } }"
    assert (await server.data(report, {"q": "aching"}))["searchReport"]["keyword"]["fallback"] is True
    hits = (await server.data(SEARCH, {"q": "aching", "mode": "KEYWORD"}))["search"]  # inside "Caching" only
    assert hits[0]["item"]["id"] == document and hits[0]["topic"]["id"] == topics[2]["id"]


async def test_deleting_the_document_deletes_its_topics(server: RunningServer, graph: Graph, tenant: str) -> None:
    document = (await server.data(CREATE, {"input": {"path": "gone.md", "content": REPORT}}))["createDocument"]["id"]
    topics = (await enriched(server, document))["topics"]
    await server.data("mutation($id: ID!) { deleteDocument(id: $id) { deleted } }", {"id": document})
    for topic in topics:
        assert (await server.data(NODE, {"id": topic["id"]}))["node"] is None
    assert (await server.data(SEARCH, {"q": "Redis took the load", "mode": "KEYWORD"}))["search"] == []

    async def left(tx: Any) -> int:
        record = await (await tx.run("MATCH (t:Topic {tenantId: $t, itemId: $id}) RETURN count(t) AS n", t=tenant,
                                     id=document)).single(strict=True)
        return int(record["n"])

    assert await graph.read(left) == 0  # gone from the graph, not only hidden


async def test_an_uploaded_docx_becomes_topics_by_the_headings_of_its_markdown(server: RunningServer) -> None:
    pytest.importorskip("markitdown", reason="the formats extra converts DOCX to Markdown")
    paragraphs = [f"Ask the porcupine desk for a badge. {WORDS}", f"Lockers are on the second floor. {WORDS}"]
    payload = await uploaded(server, [("onboarding.docx", office_files.docx("Onboarding guide", paragraphs))])
    document = payload["documents"][0]["id"]
    topics = (await enriched(server, document))["topics"]
    assert [t["name"] for t in topics] == ["Onboarding guide"]  # its one heading, not a cut by length
    assert topics[0]["content"].startswith("Ask the porcupine desk") and "Lockers" in topics[0]["content"]


async def test_the_mcp_search_tool_names_the_topic_too(server: RunningServer) -> None:
    document = (await server.data(CREATE, {"input": {"path": "q1.md", "content": REPORT, "title": "Q1 Report"}})
                )["createDocument"]["id"]
    topics = (await enriched(server, document))["topics"]
    async with mcp_session(server.url, {"X-Vaultgraph-Agent": "scout"}) as session:
        found = await call(session, "vault_search", query="Redis took the load", maxResults=3)
    assert found["results"][0]["id"] == document
    assert found["results"][0]["topic"] == {"id": topics[2]["id"], "name": "Caching",
                                            "path": ["Q1 Report", "Performance", "Caching"]}


async def test_a_new_title_reaches_the_topics_and_the_vector(server: RunningServer) -> None:
    """`updateDocument(title:)` alone queues the document again: a text without headings has one topic named after
    the title, and the vector embeds it, so neither keeps the old title (keyword search found the document by it
    through the topic until the next enrichment)."""
    text = f"Rotation steps for the edge certificates. {WORDS}\n"
    document = (await server.data(CREATE, {"input": {"path": "tls.md", "content": text, "title": "Okapi rotation"}})
                )["createDocument"]["id"]
    before = (await enriched(server, document))["topics"]
    assert [t["name"] for t in before] == ["Okapi rotation"]
    renamed = await server.data('mutation($id: ID!) { updateDocument(id: $id, input: {title: "Bongo rotation"}) '
                                "{ title enrichment { stage } } }", {"id": document})
    assert renamed["updateDocument"] == {"title": "Bongo rotation", "enrichment": {"stage": "QUEUED"}}
    await eventually(lambda: server.data(TOPICS, {"id": document}),
                     lambda d: d["document"]["enrichment"]["stage"] == "DONE"
                     and [t["name"] for t in d["document"]["topics"]] == ["Bongo rotation"],
                     60, "the renamed document enriched again")
    hits = {word: [hit["item"]["id"] for hit in (await server.data(SEARCH, {"q": word, "mode": "KEYWORD"}))["search"]]
            for word in ("okapi", "bongo")}
    assert hits == {"okapi": [], "bongo": [document]}
    # The vector too: asked by the new title, the vector channel now scores the document above the old title.
    report = """query($q: String!) { searchReport(query: $q, mode: VECTOR, limit: 5) {
      hits { item { id } vectorScore } } }"""
    scores = {}
    for title in ("Okapi rotation", "Bongo rotation"):
        found = (await server.data(report, {"q": title}))["searchReport"]["hits"]
        scores[title] = next((hit["vectorScore"] for hit in found if hit["item"]["id"] == document), 0.0)
    assert scores["Bongo rotation"] > scores["Okapi rotation"]
