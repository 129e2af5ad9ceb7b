"""GET /files/{id} (http/files.py): a document's bytes for the explorer's reading view (an attachment image, an SVG
as an image, a download), admitted and scoped like GraphQL, and never able to act as a page of this origin."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.support.server import RunningServer

pytestmark = [pytest.mark.security, pytest.mark.api, pytest.mark.graph]

IMPORT = """mutation($path: String!) { importVault(path: $path) { attachments } }"""
DOCUMENTS = """{ documents(first: 10) { nodes { id path docType } } }"""
CREATE = """mutation($input: DocumentInput!) { createDocument(input: $input) { id } }"""
# A 1x1 PNG and an SVG that would run a script if it were ever opened as a page.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><script>alert(1)</script></svg>'


async def imported(server: RunningServer, workspace_root: Path) -> dict[str, str]:
    """A vault with two attachments imported into this test's tenant; path -> document id."""
    vault = workspace_root / "vaults" / uuid.uuid4().hex
    (vault / "img").mkdir(parents=True)
    (vault / "img" / "dot.png").write_bytes(PNG)
    (vault / "img" / "logo.svg").write_bytes(SVG)
    (vault / "Home.md").write_text("![[dot.png]]\n")
    report = await server.data(IMPORT, {"path": str(vault)})
    assert sorted(report["importVault"]["attachments"]) == ["img/dot.png", "img/logo.svg"]
    nodes = (await server.data(DOCUMENTS))["documents"]["nodes"]
    return {node["path"]: node["id"] for node in nodes}


async def test_an_attachment_comes_back_as_its_bytes_with_its_type_and_a_sandbox(
        server: RunningServer, workspace_root: Path) -> None:
    ids = await imported(server, workspace_root)
    png = await server.client.get(f"/files/{ids['img/dot.png']}")
    assert png.status_code == 200
    assert png.content == PNG
    assert png.headers["content-type"] == "image/png"
    assert png.headers["content-disposition"].startswith("inline;")
    assert "sandbox" in png.headers["content-security-policy"]
    assert png.headers["x-content-type-options"] == "nosniff"
    # The SVG is an image to draw in an <img>, where no script runs; opened alone, the sandbox keeps it inert.
    svg = await server.client.get(f"/files/{ids['img/logo.svg']}")
    assert svg.status_code == 200 and svg.content == SVG
    assert svg.headers["content-type"] == "image/svg+xml"
    assert "sandbox" in svg.headers["content-security-policy"]
    assert "script-src" not in svg.headers["content-security-policy"]  # default-src 'none' covers scripts


async def test_a_text_document_is_a_download_not_a_page(server: RunningServer) -> None:
    doc = (await server.data(CREATE, {"input": {"path": "pages/page.html", "content": "<script>alert(1)</script>"}}))
    answer = await server.client.get(f"/files/{doc['createDocument']['id']}")
    assert answer.status_code == 200
    assert answer.headers["content-disposition"] == "attachment; filename*=UTF-8''page.html"
    assert "sandbox" in answer.headers["content-security-policy"]


async def test_an_unknown_or_foreign_id_is_not_found(server: RunningServer, workspace_root: Path) -> None:
    ids = await imported(server, workspace_root)
    missing = await server.client.get("/files/doc_missing")
    assert missing.status_code == 404
    assert missing.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    stranger = {"X-Vaultgraph-Tenant": f"t{uuid.uuid4().hex[:16]}"}
    other = await server.client.get(f"/files/{ids['img/dot.png']}", headers=stranger)
    assert other.status_code == 404
    assert other.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"
