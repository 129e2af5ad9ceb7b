"""PDF, DOCX, PPTX, XLSX and HTML through uploadDocuments and the workspace scan (the formats extra, MarkItDown):
real files made in the test, enriched from their Markdown against the real Neo4j, the original bytes kept and
downloadable, and a corrupt or encrypted file failing its own enrichment and nothing else. Without the extra (a
fresh interpreter that cannot import markitdown) the formats are refused with UNSUPPORTED_FORMAT naming it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.resolvers.test_uploads_api import TERMINAL, files_under, refusal, upload, uploaded
from tests.resolvers.test_workspace_api import put
from tests.support import office_files
from tests.support.server import RunningServer
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = "{ documents { nodes { id path docType summary enrichment { stage error } } } }"
SEARCH = "query($q: String!) { search(query: $q, mode: KEYWORD) { item { ... on Document { path } } snippet } }"
RESCAN = "mutation { rescanWorkspace { new skipped { path reason } } }"


@pytest.fixture
def tenant_root(settings: Settings, tenant: str) -> Path:
    return Path(settings.workspace_dir) / tenant


async def enriched(server: RunningServer) -> dict[str, dict[str, Any]]:
    """Every document of the tenant once each reached a final stage, by path."""
    async with asyncio.timeout(300):
        while True:
            nodes = (await server.data(DOCUMENTS))["documents"]["nodes"]
            if nodes and all(n["enrichment"]["stage"] in TERMINAL for n in nodes):
                return {n["path"]: n for n in nodes}
            await asyncio.sleep(0.5)


async def found(server: RunningServer, query: str) -> dict[str, str]:
    """The documents a keyword search finds, path -> snippet."""
    hits = (await server.data(SEARCH, {"q": query}))["search"]
    return {hit["item"]["path"]: hit["snippet"] for hit in hits if hit["item"]}


async def test_a_pdf_is_enriched_from_its_text_found_by_search_and_downloads_as_it_was(
    server: RunningServer, tenant_root: Path
) -> None:
    data = office_files.pdf(["Quarterly report", "The quokka budget grew by ten percent in the third quarter."])
    payload = await uploaded(server, [("Q3 report.pdf", data)], {"folder": "reports"})
    [file] = payload["files"]
    assert (file["path"], file["status"]) == ("reports/Q3 report.pdf", "CREATED")
    assert payload["documents"][0]["docType"] == "pdf"
    assert (tenant_root / "reports/Q3 report.pdf").read_bytes() == data  # the original, as sent
    document = (await enriched(server))["reports/Q3 report.pdf"]
    assert document["enrichment"] == {"stage": "DONE", "error": None}, document
    assert "quokka budget" in document["summary"] and "%PDF" not in document["summary"]
    hits = await found(server, "quokka")
    assert list(hits) == ["reports/Q3 report.pdf"]
    assert "**quokka**" in hits["reports/Q3 report.pdf"]
    download = await server.client.get(f"/files/{document['id']}")
    assert download.status_code == 200
    assert download.headers["content-type"] == "application/pdf"
    assert download.content == data


async def test_docx_pptx_and_xlsx_are_enriched_from_their_markdown(server: RunningServer) -> None:
    await uploaded(server, [
        ("onboarding.docx", office_files.docx("Onboarding guide", ["Ask the porcupine desk for a badge."])),
        ("roadmap.pptx", office_files.pptx("Roadmap 2027", ["Ship the narwhal importer", "Retire the old one"])),
        ("budget.xlsx", office_files.xlsx("Budget", [["item", "cost"], ["axolotl tank", 1200], ["coffee", 30]])),
    ])
    documents = await enriched(server)
    assert {path: (d["docType"], d["enrichment"]["stage"]) for path, d in documents.items()} == {
        "onboarding.docx": ("docx", "DONE"), "roadmap.pptx": ("pptx", "DONE"), "budget.xlsx": ("xlsx", "DONE")}
    for word, path in (("porcupine", "onboarding.docx"), ("narwhal", "roadmap.pptx"), ("axolotl", "budget.xlsx")):
        assert list(await found(server, word)) == [path], word
        assert word in documents[path]["summary"], documents[path]
    # The text of the files, not their XML nor the converter's marks (a slide's `<!-- Slide number -->`).
    assert documents["roadmap.pptx"]["summary"] == "Ship the narwhal importer Retire the old one"
    # The sheet's cells, from the converted Markdown (the document's text or one of its chunks, whichever ranks first).
    snippet = (await found(server, "axolotl"))["budget.xlsx"]
    assert "**axolotl** tank" in snippet and "1200" in snippet and "<" not in snippet, snippet


async def test_a_corrupt_or_encrypted_pdf_fails_its_own_enrichment_and_nothing_else(
    server: RunningServer, tenant_root: Path
) -> None:
    locked = office_files.pdf(["The wombat plan"], user_password="secret")
    payload = await uploaded(server, [
        ("notes.md", b"# Notes\nThe pangolin plan is on track."),
        ("broken.pdf", b"%PDF-1.4\nthis is not a PDF body at all\n"),
        ("locked.pdf", locked),
        ("fine.pdf", office_files.pdf(["The tapir plan is fine."])),
    ])
    assert [f["status"] for f in payload["files"]] == ["CREATED"] * 4  # judged when converted, not when stored
    documents = await enriched(server)
    stages = {path: d["enrichment"]["stage"] for path, d in documents.items()}
    assert stages == {"notes.md": "DONE", "broken.pdf": "FAILED", "locked.pdf": "FAILED", "fine.pdf": "DONE"}
    assert "could not be read as PDF" in documents["broken.pdf"]["enrichment"]["error"]
    assert "it may be corrupt" in documents["broken.pdf"]["enrichment"]["error"]
    assert "encrypted (password protected)" in documents["locked.pdf"]["enrichment"]["error"]
    assert list(await found(server, "tapir")) == ["fine.pdf"]
    assert list(await found(server, "wombat")) == []
    # The failed files stay as they were sent (to be replaced, downloaded or deleted), their documents with them.
    assert (tenant_root / "locked.pdf").read_bytes() == locked
    assert files_under(tenant_root) == ["broken.pdf", "fine.pdf", "locked.pdf", "notes.md"]


async def test_html_is_kept_as_sent_and_enriched_as_markdown(server: RunningServer, tenant_root: Path) -> None:
    page = (b"<html><head><style>p { color: red }</style></head><body><h1>Release notes</h1>"
            b"<script>alert('gecko')</script><p>The <b>chinchilla</b> release ships <a href='/x'>search</a>.</p>"
            b"</body></html>")
    await uploaded(server, [("release.html", page)])
    document = (await enriched(server))["release.html"]
    assert (document["docType"], document["enrichment"]["stage"]) == ("html", "DONE")
    summary = document["summary"]
    assert "chinchilla" in summary and "<" not in summary and "alert" not in summary and "color" not in summary
    hits = await found(server, "chinchilla")
    assert list(hits) == ["release.html"] and "<" not in hits["release.html"]
    assert list(await found(server, "gecko")) == []  # a script is not text
    content = await server.data('{ document(path: "release.html") { content } }')
    assert content["document"]["content"] == page.decode()  # the file itself is untouched
    assert (tenant_root / "release.html").read_bytes() == page


async def test_the_workspace_scan_takes_the_same_formats(server: RunningServer, tenant_root: Path) -> None:
    put(tenant_root, "scanned.pdf", office_files.pdf(["The okapi survey results."]))
    put(tenant_root, "sheet.xlsx", office_files.xlsx("Okapis", [["site", "count"], ["north", 4]]))
    put(tenant_root, "slides.key", b"PK\x03\x04 keynote")
    report = (await server.data(RESCAN))["rescanWorkspace"]
    assert sorted(report["new"]) == ["scanned.pdf", "sheet.xlsx"]
    assert [s["path"] for s in report["skipped"]] == ["slides.key"]
    documents = await enriched(server)
    assert {path: (d["docType"], d["enrichment"]["stage"]) for path, d in documents.items()} == {
        "scanned.pdf": ("pdf", "DONE"), "sheet.xlsx": ("xlsx", "DONE")}
    assert sorted(await found(server, "okapi")) == ["scanned.pdf", "sheet.xlsx"]


async def test_an_unsupported_suffix_is_still_refused(server: RunningServer, tenant_root: Path) -> None:
    error = refusal(await upload(server, [("deck.pdf", office_files.pdf(["x"])), ("slides.key", b"PK\x03\x04")]))
    assert error["extensions"]["code"] == "UNSUPPORTED_FORMAT"
    [refused] = error["extensions"]["refused"]
    assert refused["filename"] == "slides.key" and ".pdf" in refused["reason"] and ".docx" in refused["reason"]
    assert files_under(tenant_root) == []


# A fresh interpreter in which `import markitdown` fails, as on a server installed without the extra.
WITHOUT_EXTRA = """
import asyncio, sys, tempfile
from pathlib import Path
sys.modules["markitdown"] = None
from vaultgraph.text.upload_files import Refused, check_content
from vaultgraph.workers.prepare import read_for_enrichment
from vaultgraph.workspace import Workspace
from vaultgraph.workspace.formats import is_document_name, not_document_reason
for suffix in (".pdf", ".docx", ".pptx", ".xlsx"):
    try:
        check_content(suffix, b"PK")
    except Refused as exc:
        print(exc.code, exc.reason)
print("html", check_content(".html", b"<p>raw</p>"))
print("scan", is_document_name("a.pdf"), not_document_reason("a.pdf"))
root = Path(tempfile.mkdtemp())
(root / "a.pdf").write_bytes(b"%PDF-1.4")
(root / "b.html").write_bytes(b"<p>raw</p>")
workspace = Workspace(root)
for name in ("a.pdf", "b.html"):
    read = asyncio.run(read_for_enrichment(workspace, root / name, name, 1000))
    print("prepare", name, repr(read.text), read.skip_reason)
"""


def test_without_the_extra_the_formats_are_refused_naming_it_and_html_stays_text() -> None:
    run = subprocess.run([sys.executable, "-c", WITHOUT_EXTRA], cwd=REPO, capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    hint = "not installed here: pip install 'vaultgraph[formats]'"
    assert lines[:4] == [f"UNSUPPORTED_FORMAT {s} files are converted to Markdown by the optional formats extra, "
                         f"{hint}" for s in (".pdf", ".docx", ".pptx", ".xlsx")]
    assert lines[4] == "html <p>raw</p>"
    assert lines[5].startswith("scan False .pdf files are converted") and lines[5].endswith(hint)
    assert lines[6].startswith("prepare a.pdf '' .pdf files are converted") and lines[6].endswith(hint)
    assert lines[7] == "prepare b.html '<p>raw</p>' None"  # enriched as the text it is, as before the extra
