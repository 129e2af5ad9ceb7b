"""The first vertical slice over real HTTP: GraphQL → resolvers → services → Neo4j."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.support.server import RunningServer
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

CREATE = """
mutation Create($input: DocumentInput!) {
  createDocument(input: $input) { id title path docType scope contentHash enrichment { stage } }
}
"""


async def test_create_then_read_by_id_path_and_node(server: RunningServer) -> None:
    created = (await server.data(CREATE, {"input": {"path": "guides/setup.md", "content": "# Setup\nhello"}}))[
        "createDocument"
    ]
    assert created["title"] == "Setup"
    assert created["scope"] == "SHARED"
    assert created["enrichment"]["stage"] == "QUEUED"
    by_id = await server.data("query($id: ID!) { document(id: $id) { path content } }", {"id": created["id"]})
    assert by_id["document"] == {"path": "guides/setup.md", "content": "# Setup\nhello"}
    by_path = await server.data('{ document(path: "guides/setup.md") { id } }')
    assert by_path["document"]["id"] == created["id"]
    node = await server.data(
        "query($id: ID!) { node(id: $id) { __typename id ... on Item { title } } }", {"id": created["id"]}
    )
    assert node["node"] == {"__typename": "Document", "id": created["id"], "title": "Setup"}


async def test_documents_paginates_with_cursors(server: RunningServer) -> None:
    for name in ("c", "a", "b"):
        await server.data(CREATE, {"input": {"path": f"{name}.txt", "content": name}})
    query = """query($after: String) { documents(first: 2, after: $after) {
      totalCount edges { cursor node { path } } pageInfo { hasNextPage endCursor } } }"""
    first = (await server.data(query))["documents"]
    assert [e["node"]["path"] for e in first["edges"]] == ["a.txt", "b.txt"]
    assert first["pageInfo"]["hasNextPage"] is True and first["totalCount"] == 3
    second = (await server.data(query, {"after": first["pageInfo"]["endCursor"]}))["documents"]
    assert [e["node"]["path"] for e in second["edges"]] == ["c.txt"]
    assert second["pageInfo"]["hasNextPage"] is False


async def test_invalid_input_names_the_field(server: RunningServer) -> None:
    body = await server.graphql(CREATE, {"input": {"path": "../../etc/passwd", "content": "x"}})
    [error] = body["errors"]
    assert error["extensions"] == {"code": "INVALID_INPUT", "field": "path"}
    assert "traceback" not in str(body).lower()
    listed = await server.data("{ documents { totalCount } }")
    assert listed["documents"]["totalCount"] == 0


async def test_missing_document_is_not_found_and_unknown_node_is_null(server: RunningServer) -> None:
    body = await server.graphql('{ document(id: "doc_nope") { id } }')
    assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert (await server.data('{ node(id: "doc_nope") { id } }'))["node"] is None


async def test_duplicate_path_is_a_conflict(server: RunningServer) -> None:
    await server.data(CREATE, {"input": {"path": "x.md", "content": "1"}})
    body = await server.graphql(CREATE, {"input": {"path": "x.md", "content": "2"}})
    assert body["errors"][0]["extensions"]["code"] == "CONFLICT"


async def test_page_size_over_the_limit_is_refused(server: RunningServer) -> None:
    body = await server.graphql("{ documents(first: 1000) { totalCount } }")
    assert body["errors"][0]["extensions"] == {"code": "INVALID_INPUT", "field": "first"}


async def test_healthz_reports_neo4j(server: RunningServer) -> None:
    response = await server.client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["neo4j"]["state"] == "up"


async def test_graphiql_is_served(server: RunningServer) -> None:
    response = await server.client.get("/graphql", headers={"accept": "text/html"})
    assert response.status_code == 200 and "graphiql" in response.text.lower()


async def test_update_and_delete_a_document(server: RunningServer) -> None:
    doc = (await server.data(CREATE, {"input": {"path": "runbook.md", "content": "# Runbook"}}))["createDocument"]
    note = await server.data('mutation { saveNote(input: {title: "N", body: "see [[runbook]]"}) { note { id } } }')
    updated = await server.data(
        'mutation($id: ID!) { updateDocument(id: $id, input: {title: "Ops runbook", category: "business"}) '
        "{ title category path } }", {"id": doc["id"]})
    assert updated["updateDocument"] == {"title": "Ops runbook", "category": "Business", "path": "runbook.md"}
    linked = await server.data('query($id: ID!) { node(id: $id) { ... on Item { backlinks { totalCount } } } }',
                               {"id": doc["id"]})
    assert linked["node"]["backlinks"]["totalCount"] == 1
    assert (await server.data('mutation($id: ID!) { deleteDocument(id: $id) { deleted } }', {"id": doc["id"]}))
    assert (await server.data('query($id: ID!) { node(id: $id) { id } }', {"id": doc["id"]}))["node"] is None
    outgoing = await server.data('query($id: ID!) { note(id: $id) { outgoing { edges { node { isGhost } } } } }',
                                 {"id": note["saveNote"]["note"]["id"]})
    assert outgoing["note"]["outgoing"]["edges"] == [{"node": {"isGhost": True}}]
    missing = await server.graphql('mutation { updateDocument(id: "doc_x", input: {title: "t"}) { id } }')
    assert missing["errors"][0]["extensions"]["code"] == "NOT_FOUND"


async def test_update_document_rewrites_a_text_file_and_queues_it_again(server: RunningServer, settings: Settings,
                                                                        tenant: str) -> None:
    doc = (await server.data(CREATE, {"input": {"path": "notes/plan.md", "content": "# Plan\nold"}}))["createDocument"]
    update = """mutation($id: ID!, $c: String) { updateDocument(id: $id, input: {content: $c}) {
      title contentHash sizeBytes enrichment { stage } } }"""
    updated = (await server.data(update, {"id": doc["id"], "c": "# Plan\nnew text, é"}))["updateDocument"]
    file = Path(settings.workspace_dir) / tenant / "notes" / "plan.md"
    assert file.read_text(encoding="utf-8") == "# Plan\nnew text, é"
    assert updated["contentHash"] != doc["contentHash"] and updated["sizeBytes"] == len("# Plan\nnew text, é".encode())
    assert updated["enrichment"]["stage"] == "QUEUED" and updated["title"] == "Plan"
    read = await server.data("query($id: ID!) { document(id: $id) { content contentHash } }", {"id": doc["id"]})
    assert read["document"] == {"content": "# Plan\nnew text, é", "contentHash": updated["contentHash"]}
    # An attachment's bytes are not text: refused, and nothing changes (not even the title sent with it).
    vault = Path(settings.data_dir) / "vaults" / uuid.uuid4().hex  # where a development server may import from
    vault.mkdir(parents=True)
    (vault / "dot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    await server.data("mutation($p: String!) { importVault(path: $p) { attachments } }", {"p": str(vault)})
    png = (await server.data('{ document(path: "dot.png") { id title } }'))["document"]
    attachment = Path(settings.workspace_dir) / tenant / "dot.png"
    body = await server.graphql(
        'mutation($id: ID!) { updateDocument(id: $id, input: {title: "T", content: "x"}) { id } }', {"id": png["id"]})
    assert body["errors"][0]["extensions"]["code"] == "UNSUPPORTED_FORMAT"
    assert attachment.read_bytes() == b"\x89PNG\r\n\x1a\n"
    assert (await server.data('{ document(path: "dot.png") { title } }'))["document"]["title"] == png["title"]


async def test_an_edit_with_the_hash_it_read_is_refused_when_the_file_changed_meanwhile(
    server: RunningServer, settings: Settings, tenant: str
) -> None:
    doc = (await server.data(CREATE, {"input": {"path": "notes/log.md", "content": "# Log\none"}}))["createDocument"]
    update = """mutation($id: ID!, $c: String, $h: String) {
      updateDocument(id: $id, input: {title: "Renamed", content: $c, ifContentHash: $h}) { title contentHash } }"""
    file = Path(settings.workspace_dir) / tenant / "notes" / "log.md"
    file.write_text("# Log\none\ntwo, written meanwhile", encoding="utf-8")  # another editor, on disk
    body = await server.graphql(update, {"id": doc["id"], "c": "# Log\nmine", "h": doc["contentHash"]})
    error = body["errors"][0]
    assert error["extensions"]["code"] == "CONFLICT" and "changed since you read it" in error["message"], body
    assert file.read_text(encoding="utf-8") == "# Log\none\ntwo, written meanwhile"  # nothing lost
    read = (await server.data("query($id: ID!) { document(id: $id) { title contentHash } }", {"id": doc["id"]}))
    assert read["document"]["title"] == "Log" and read["document"]["contentHash"] == error["extensions"]["contentHash"]
    # With the hash of what is there now, the edit goes through.
    saved = await server.data(update, {"id": doc["id"], "c": "# Log\nmine", "h": read["document"]["contentHash"]})
    assert saved["updateDocument"]["title"] == "Renamed" and file.read_text(encoding="utf-8") == "# Log\nmine"
    # A hash without content guards nothing: refused, naming the field.
    alone = await server.graphql('mutation($id: ID!) { updateDocument(id: $id, input: {ifContentHash: "x"}) { id } }',
                                 {"id": doc["id"]})
    assert alone["errors"][0]["extensions"] == {"code": "INVALID_INPUT", "field": "ifContentHash"}


async def test_a_category_must_be_one_of_the_tenants_taxonomy(server: RunningServer, settings: Settings,
                                                               tenant: str) -> None:
    doc = (await server.data(CREATE, {"input": {"path": "runbook.md", "content": "# Runbook"}}))["createDocument"]
    update = 'mutation($id: ID!, $c: String) { updateDocument(id: $id, input: {category: $c}) { category } }'
    body = await server.graphql(update, {"id": doc["id"], "c": "Ops"})
    assert body["data"] is None
    [error] = body["errors"]
    assert error["extensions"] == {"code": "INVALID_INPUT", "field": "category"}
    assert "'Ops'" in error["message"] and "Technology" in error["message"] and "Others" in error["message"]
    stored = await server.data('query($id: ID!) { document(id: $id) { category } }', {"id": doc["id"]})
    assert stored["document"]["category"] is None  # nothing changed
    created = await server.graphql(CREATE, {"input": {"path": "b.md", "content": "b", "category": "Ops"}})
    assert created["errors"][0]["extensions"] == {"code": "INVALID_INPUT", "field": "category"}
    # The tenant's own taxonomy file decides: its categories become valid, read at once.
    root = Path(settings.workspace_dir) / tenant
    (root / ".taxonomy.md").write_text("---\nkind: knowledge_taxonomy\ncategories:\n  - id: Ops\n"
                                       "    description: Running things\n---\n")
    assert (await server.data(update, {"id": doc["id"], "c": "ops"}))["updateDocument"]["category"] == "Ops"


async def test_create_document_takes_only_the_text_kinds_uploads_take(server: RunningServer, settings: Settings,
                                                                      tenant: str) -> None:
    root = Path(settings.workspace_dir) / tenant
    for path in ("tool.exe", "photo.PNG", "no-suffix", "archive.tar.gz", "script.py"):
        body = await server.graphql(CREATE, {"input": {"path": path, "content": "text"}})
        assert body["data"] is None, path
        [error] = body["errors"]
        assert error["extensions"]["code"] == "UNSUPPORTED_FORMAT", (path, error)
        assert ".md" in error["message"] and ".csv" in error["message"], error["message"]
        assert not (root / path).exists()
    for path, doc_type in (("a.markdown", "markdown"), ("b.TXT", "text"), ("c.htm", "html"), ("d.tsv", "tsv")):
        created = await server.data(CREATE, {"input": {"path": path, "content": "x"}})
        assert created["createDocument"]["docType"] == doc_type


async def test_an_input_field_with_a_default_takes_null_as_that_default(server: RunningServer) -> None:
    # Generated clients (ariadne-codegen, sgqlc) send null for an optional field they were not given.
    created = await server.data(
        "mutation { createDocument(input: {path: \"n.md\", content: \"x\", scope: null}) { scope agentId } }")
    assert created["createDocument"] == {"scope": "SHARED", "agentId": None}
    saved = await server.data(
        'mutation { saveNote(input: {title: "Nulled", body: "x", scope: null}) { note { scope } } }')
    assert saved["saveNote"]["note"]["scope"] == "SHARED"
