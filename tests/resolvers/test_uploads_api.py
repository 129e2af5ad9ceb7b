"""uploadDocuments over real HTTP: GraphQL multipart requests (httpx) against the real server, files checked by
content, stored under names the server makes, all or nothing, within the limits, and enriched by themselves."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.server import RunningServer, run_server
from tests.support.waiting import eventually
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

UPLOAD = """
mutation Upload($files: [Upload!]!, $scope: Scope! = SHARED, $agentId: String, $teamId: String, $folder: String,
                $overwrite: Boolean! = false) {
  uploadDocuments(files: $files, scope: $scope, agentId: $agentId, teamId: $teamId, folder: $folder,
                  overwrite: $overwrite) {
    files { filename path status document { id path } }
    documents { id title path docType scope agentId teamId contentHash enrichment { stage } }
  }
}
"""
PREFLIGHT = {"Apollo-Require-Preflight": "true"}
TERMINAL = {"DONE", "SKIPPED", "FAILED"}


def multipart(files: list[tuple[str, bytes]], variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """The GraphQL multipart request spec: `operations`, `map`, then one part per file."""
    operations = {"query": UPLOAD, "variables": {**(variables or {}), "files": [None] * len(files)}}
    mapping = {str(i): [f"variables.files.{i}"] for i in range(len(files))}
    return {
        "data": {"operations": json.dumps(operations), "map": json.dumps(mapping)},
        "files": [(str(i), (name, content, "application/octet-stream")) for i, (name, content) in enumerate(files)],
    }


async def upload(server: RunningServer, files: list[tuple[str, bytes]], variables: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> httpx.Response:
    return await server.client.post("/graphql", headers={**PREFLIGHT, **(headers or {})}, timeout=180,
                                    **multipart(files, variables))


async def uploaded(server: RunningServer, files: list[tuple[str, bytes]], variables: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None) -> dict[str, Any]:
    """An upload that must succeed: its payload."""
    response = await upload(server, files, variables, headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body["errors"]
    payload: dict[str, Any] = body["data"]["uploadDocuments"]
    return payload


def refusal(response: httpx.Response) -> dict[str, Any]:
    """The one error of a refused upload (a GraphQL error, or a JSON refusal before GraphQL ran)."""
    body = response.json()
    assert body["data"] is None, body
    [error] = body["errors"]
    assert "Traceback" not in error["message"]
    return dict(error)


def files_under(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) if root.exists() else []


async def document_count(server: RunningServer) -> int:
    count: int = (await server.data("{ documents { totalCount } }"))["documents"]["totalCount"]
    return count


@pytest.fixture
def tenant_root(settings: Settings, tenant: str) -> Path:
    return Path(settings.workspace_dir) / tenant


async def test_markdown_csv_and_html_become_documents_that_enrich_by_themselves(
    server: RunningServer, tenant_root: Path
) -> None:
    payload = await uploaded(server, [
        ("Meeting notes.md", b"# Meeting notes\nWe chose the blue plan."),
        ("budget.csv", b"item,cost\nrent,1200\n\"coffee, beans\",30\n"),
        ("page.html", b"<html><body><h1>Hello</h1><script>alert(1)</script></body></html>"),
    ])
    assert [(f["filename"], f["path"], f["status"]) for f in payload["files"]] == [
        ("Meeting notes.md", "Meeting notes.md", "CREATED"), ("budget.csv", "budget.csv", "CREATED"),
        ("page.html", "page.html", "CREATED")]
    documents = {d["path"]: d for d in payload["documents"]}
    assert documents["Meeting notes.md"]["title"] == "Meeting notes"
    assert {d["docType"] for d in documents.values()} == {"markdown", "csv", "html"}
    assert {d["scope"] for d in documents.values()} == {"SHARED"}
    assert files_under(tenant_root) == ["Meeting notes.md", "budget.csv", "page.html"]
    assert (tenant_root / "page.html").read_bytes().endswith(b"</script></body></html>")  # stored as the text it is
    assert await document_count(server) == 3
    # Enrichment started by itself: every uploaded document reaches a final stage without being asked.
    async with asyncio.timeout(300):
        while True:
            nodes = (await server.data("{ documents { nodes { path enrichment { stage error } } } }"))[
                "documents"]["nodes"]
            if all(n["enrichment"]["stage"] in TERMINAL for n in nodes):
                break
            await asyncio.sleep(0.5)
    assert {n["path"]: n["enrichment"]["stage"] for n in nodes} == {
        "Meeting notes.md": "DONE", "budget.csv": "DONE", "page.html": "DONE"}, nodes
    content = await server.data('{ document(path: "budget.csv") { content summary } }')
    assert content["document"]["content"].startswith("item,cost")


async def test_a_multipart_request_without_the_preflight_header_is_refused(
    server: RunningServer, tenant_root: Path
) -> None:
    response = await server.client.post("/graphql", **multipart([("note.md", b"# Forged\n")]))
    assert response.status_code == 403
    error = refusal(response)
    assert error["extensions"]["code"] == "FORBIDDEN"
    assert "Apollo-Require-Preflight" in error["message"]
    assert files_under(tenant_root) == []
    assert await document_count(server) == 0
    # Either header a browser never sends cross-site admits it (Apollo's convention).
    ok = await server.client.post("/graphql", headers={"X-Apollo-Operation-Name": "Upload"},
                                  **multipart([("note.md", b"# Sent\n")]))
    assert ok.status_code == 200 and "errors" not in ok.json(), ok.text


async def test_an_unsupported_format_refuses_the_whole_upload_and_writes_nothing(
    server: RunningServer, tenant_root: Path
) -> None:
    response = await upload(server, [("fine.md", b"# Fine\n"), ("tool.exe", b"MZ\x90\x00"), ("slides.key", b"PK")])
    error = refusal(response)
    assert error["extensions"]["code"] == "UNSUPPORTED_FORMAT"
    assert error["extensions"]["field"] == "files"
    assert [(r["filename"], r["code"]) for r in error["extensions"]["refused"]] == [
        ("tool.exe", "UNSUPPORTED_FORMAT"), ("slides.key", "UNSUPPORTED_FORMAT")]
    assert "tool.exe" in error["message"] and "nothing was stored" in error["message"]
    assert files_under(tenant_root) == []
    assert await document_count(server) == 0


@pytest.mark.parametrize(("name", "content", "why"), [
    ("binary.md", b"# Looks like markdown\x00\x01\x02\xff", "binary"),
    ("latin1.txt", "café crème".encode("latin-1"), "not UTF-8"),
    ("data.json", b"{not json", "not JSON"),
    ("config.yaml", b"key: [unclosed", "not YAML"),
    ("table.csv", b'a,b\n"unterminated,1\n', "not CSV"),
])
async def test_content_decides_not_the_name(
    server: RunningServer, tenant_root: Path, name: str, content: bytes, why: str
) -> None:
    error = refusal(await upload(server, [("good.txt", b"plain text"), (name, content)]))
    assert error["extensions"]["code"] == "UNSUPPORTED_FORMAT"
    [refused] = error["extensions"]["refused"]
    assert refused["filename"] == name and why in refused["reason"]
    assert files_under(tenant_root) == []
    assert await document_count(server) == 0


async def test_valid_json_yaml_tsv_and_txt_are_accepted(server: RunningServer) -> None:
    payload = await uploaded(server, [
        ("data.json", b'{"a": [1, 2]}'), ("conf.yml", b"a: 1\n---\nb: 2\n"), ("rows.tsv", b"a\tb\n1\t2\n"),
        ("log.txt", b"\x1b[32mok\x1b[0m line\n"),
    ])
    assert [f["status"] for f in payload["files"]] == ["CREATED"] * 4


async def test_more_files_than_the_limit_are_refused_while_streaming(
    server: RunningServer, tenant_root: Path
) -> None:
    response = await upload(server, [(f"n{i}.md", f"# Note {i}\n".encode()) for i in range(51)])
    assert response.status_code == 413
    error = refusal(response)
    assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": 50}
    assert files_under(tenant_root) == []
    assert await document_count(server) == 0
    fifty = await uploaded(server, [(f"n{i}.md", f"# Note {i}\n".encode()) for i in range(50)])
    assert len(fifty["documents"]) == 50


@pytest.fixture
async def small_caps(settings: Settings, tenant: str) -> AsyncIterator[RunningServer]:
    """The real server with a 4 KiB per-file cap and a 16 KiB upload body cap."""
    update = {"dev_tenant": tenant, "port": 0, "enrichment_workers": False, "upload_max_file_bytes": 4096,
              "upload_max_body_bytes": 16384}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


async def test_a_file_over_the_per_file_cap_is_refused(small_caps: RunningServer, tenant_root: Path) -> None:
    response = await upload(small_caps, [("small.md", b"# Small\n"), ("big.md", b"x" * 5000)])
    assert response.status_code == 413
    error = refusal(response)
    assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": 4096}
    assert "big.md" in error["message"]
    assert files_under(tenant_root) == []
    assert await document_count(small_caps) == 0
    exact = await uploaded(small_caps, [("exact.md", b"y" * 4096)])
    assert exact["files"][0]["status"] == "CREATED"


async def test_an_upload_body_over_its_cap_is_refused_declared_or_streamed(
    small_caps: RunningServer, tenant_root: Path
) -> None:
    files = [(f"part{i}.md", b"z" * 4000) for i in range(5)]  # each under the file cap, 20 KB in all
    declared = await upload(small_caps, files)
    assert declared.status_code == 413
    assert refusal(declared)["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": 16384}
    # The same body sent chunked (no Content-Length): counted while it streams.
    request = small_caps.client.build_request("POST", "/graphql", headers=PREFLIGHT, **multipart(files))
    body = request.read()

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(body), 1024):
            yield body[start:start + 1024]

    headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
    streamed = await small_caps.client.post("/graphql", content=chunks(), headers=headers)
    assert streamed.status_code == 413
    assert refusal(streamed)["extensions"]["code"] == "LIMIT_EXCEEDED"
    assert files_under(tenant_root) == []
    assert await document_count(small_caps) == 0
    # A JSON request keeps its own 1 MiB cap: the upload cap is for multipart only.
    ok = await small_caps.client.post("/graphql", json={"query": "{ __typename }", "variables": {"pad": "p" * 20000}})
    assert ok.status_code == 200


@pytest.mark.parametrize(("filename", "stored"), [
    ("../../etc/passwd.md", "passwd.md"),
    ("/etc/shadow.txt", "shadow.txt"),
    ("..\\..\\windows\\win.ini.txt", "win.ini.txt"),
    (".hidden.md", "hidden.md"),
    ("a\u202eb\u200bc.md", "abc.md"),  # bidi and zero-width format characters (control bytes: tests/text)
    ("..", None),
    ("what?*<>|.md", "what.md"),
])
async def test_client_names_never_become_paths(
    server: RunningServer, settings: Settings, tenant_root: Path, filename: str, stored: str | None
) -> None:
    response = await upload(server, [(filename, b"# Name test\n")], {"folder": "inbox"})
    if stored is None:  # no suffix left: not an accepted format
        assert refusal(response)["extensions"]["code"] == "UNSUPPORTED_FORMAT"
        assert files_under(tenant_root) == []
        return
    body = response.json()
    assert "errors" not in body, body
    [file] = body["data"]["uploadDocuments"]["files"]
    assert file["filename"] == filename
    assert file["path"] == f"inbox/{stored}"
    assert files_under(tenant_root) == [f"inbox/{stored}"]
    assert files_under(Path(settings.workspace_dir).parent / "etc") == []
    assert not (Path(settings.workspace_dir) / "etc").exists()
    graph = await server.data("{ documents { nodes { path } } }")
    assert graph["documents"]["nodes"] == [{"path": f"inbox/{stored}"}]


async def test_a_taken_name_gets_a_number_the_same_content_is_unchanged_and_overwrite_updates(
    server: RunningServer, tenant_root: Path
) -> None:
    first = await uploaded(server, [("plan.md", b"# Plan\nv1")])
    same = await uploaded(server, [("plan.md", b"# Plan\nv1")])
    assert same["files"][0]["status"] == "UNCHANGED"
    assert same["files"][0]["document"]["id"] == first["files"][0]["document"]["id"]
    other = await uploaded(server, [("plan.md", b"# Plan\nv2"), ("plan.md", b"# Plan\nv3")])
    assert [(f["path"], f["status"]) for f in other["files"]] == [("plan-2.md", "CREATED"), ("plan-3.md", "CREATED")]
    replaced = await uploaded(server, [("plan.md", b"# Plan\nv4")], {"overwrite": True})
    [file] = replaced["files"]
    assert (file["path"], file["status"]) == ("plan.md", "UPDATED")
    assert file["document"]["id"] == first["files"][0]["document"]["id"]
    # Queued again for the new text (the answer may already show the workers at it): the stored hash is v4's, and
    # the run ends from v4. (A worker write racing the requeue once left v1's stage and a lease no one held, so the
    # document sat at CLASSIFY with v1's summary; test_pool's racing-requeue test pins that down.)
    assert replaced["documents"][0]["contentHash"] == hashlib.sha256(b"# Plan\nv4").hexdigest()
    enriched = await eventually(
        lambda: server.data("query($id: ID!) { document(id: $id) { summary enrichment { stage } } }",
                            {"id": file["document"]["id"]}),
        lambda d: d["document"]["enrichment"]["stage"] == "DONE" and "v4" in (d["document"]["summary"] or ""),
        60, "the overwritten document enriched from its new text")
    assert "v1" not in enriched["document"]["summary"]
    assert (tenant_root / "plan.md").read_bytes() == b"# Plan\nv4"
    assert files_under(tenant_root) == ["plan-2.md", "plan-3.md", "plan.md"]


async def test_uploads_go_only_where_the_caller_may_write(server: RunningServer, tenant_root: Path) -> None:
    alice = {"X-Vaultgraph-Agent": "alice", "X-Vaultgraph-Teams": "ops"}
    own = await uploaded(server, [("mine.md", b"# Mine\n")], {"scope": "PERSONAL", "agentId": "alice"}, alice)
    assert own["documents"][0]["scope"] == "PERSONAL" and own["documents"][0]["agentId"] == "alice"
    team = await uploaded(server, [("ours.md", b"# Ours\n")], {"scope": "TEAM", "teamId": "ops"}, alice)
    assert team["documents"][0]["teamId"] == "ops"
    for variables in ({"scope": "PERSONAL", "agentId": "bob"}, {"scope": "TEAM", "teamId": "finance"}):
        error = refusal(await upload(server, [("intrude.md", b"# Intrude\n")], variables, alice))
        assert error["extensions"]["code"] == "FORBIDDEN"
    # A shared folder named like another owner's space would hand the file to that owner: refused.
    for folder in ("agents/bob", "teams/finance/x", "../agents/bob", ".git"):
        error = refusal(await upload(server, [("sneak.md", b"# Sneak\n")], {"folder": folder}, alice))
        assert error["extensions"]["code"] == "INVALID_INPUT" and error["extensions"]["field"] == "folder"
    assert files_under(tenant_root) == ["agents/alice/mine.md", "teams/ops/ours.md"]
    missing = refusal(await upload(server, [("x.md", b"x")], {"scope": "PERSONAL"}))
    assert missing["extensions"] == {"code": "INVALID_INPUT", "field": "agentId"}
