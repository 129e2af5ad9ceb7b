"""What the text layer reads out of a note body, through saveNote over real HTTP: links and frontmatter."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = """
mutation Save($input: NoteInput!) {
  saveNote(input: $input) { note { id body frontmatter tags outgoing { totalCount edges { node {
    ref label heading isGhost } } } } }
}
"""


@pytest.fixture(scope="module")
def vaults(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("vaults")


@pytest.fixture(scope="module")
async def text_server(settings: Settings, vaults: Path) -> AsyncIterator[RunningServer]:
    """One server for the module; each test is its own tenant (the development-mode tenant header)."""
    quiet = f"t{uuid.uuid4().hex[:16]}"  # its workers enrich a tenant nobody writes to
    update = {"port": 0, "enrichment_tenants": [quiet], "vault_dirs": [vaults]}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


async def _save(server: RunningServer, tenant: str, title: str, body: str) -> dict[str, Any]:
    return await server.graphql(SAVE, {"input": {"title": title, "body": body}},
                                headers={"X-Vaultgraph-Tenant": tenant})


async def test_a_code_span_in_an_alias_belongs_to_the_link(text_server: RunningServer, tenant: str) -> None:
    body = "Nested tags are recognized by the [[Functions#hasTag|`hasTag`]] function, not `[[Hidden]]`."

    saved = await _save(text_server, tenant, "Tags", body)

    note = saved["data"]["saveNote"]["note"]
    assert note["outgoing"]["totalCount"] == 1
    [link] = [edge["node"] for edge in note["outgoing"]["edges"]]
    assert (link["heading"], link["label"], link["isGhost"]) == ("hasTag", "`hasTag`", True)


NOTES = "{ notes { totalCount } }"


def _refusal(body: dict[str, Any]) -> dict[str, Any]:
    assert body.get("data") is None, body
    [error] = body["errors"]
    assert error["extensions"]["code"] == "INVALID_INPUT" and error["extensions"]["field"] == "body", error
    assert "Traceback" not in str(body)
    return dict(error)


@pytest.mark.parametrize("body", ["{\nnot json\n}\nSee [[Config]]", '{\n  "retries": 3\n}\nSee [[Config]]'])
async def test_a_body_starting_with_a_brace_is_body(text_server: RunningServer, tenant: str, body: str) -> None:
    # python-frontmatter took a "{" line for JSON frontmatter: JSONDecodeError (INTERNAL), or properties.
    saved = await _save(text_server, tenant, "Brace", body)

    note = saved["data"]["saveNote"]["note"]
    assert (note["frontmatter"], note["body"], note["outgoing"]["totalCount"]) == ({}, body, 1)


async def test_a_bom_and_crlf_fences_are_frontmatter(text_server: RunningServer, tenant: str) -> None:
    body = "\ufeff---\r\ntags: [alpha]\r\ndate: 2026-06-09\r\n---\r\nText #beta\r\n"

    note = (await _save(text_server, tenant, "Windows", body))["data"]["saveNote"]["note"]

    # A YAML date comes out as the text written, through the JSON scalar.
    assert note["frontmatter"] == {"tags": ["alpha"], "date": "2026-06-09"}
    assert note["tags"] == ["alpha", "beta"] and note["body"] == body


@pytest.mark.parametrize(
    ("body", "line", "says"),
    [
        ("---\ntitle: fine\nstatus: [unclosed\nnext: 1\n---\ntext", 4, "not valid YAML"),
        ("---\na: &a ['lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol']\n"
         "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n---\n", 2,
         "anchors (&a) are not allowed"),  # a billion laughs: a 200-byte body once stored as megabytes
        ("---\nloop: &x [*x]\n---\n", 2, "anchors (&x)"),
        ("---\nscore: .nan\n---\n", 2, "not a finite number"),
        ("---\nok: 1\nlimit: -.inf\n---\n", 3, "not a finite number"),
        ("---\ndeep: " + "[" * 30 + "]" * 30 + "\n---\n", 2, "nested deeper than 20 levels"),
        ("---\nbig: " + "x" * 70_000 + "\n---\n", 1, "at most 65536"),
    ],
)
async def test_unreadable_frontmatter_is_invalid_input_naming_the_line(
    text_server: RunningServer, tenant: str, body: str, line: int, says: str
) -> None:
    error = _refusal(await _save(text_server, tenant, "Bad", body))

    assert error["extensions"]["line"] == line
    assert error["message"].startswith(f"body: the frontmatter at line {line}: ") and says in error["message"]
    assert (await text_server.data(NOTES, headers={"X-Vaultgraph-Tenant": tenant}))["notes"]["totalCount"] == 0


async def test_a_vault_import_skips_a_file_with_bad_frontmatter_and_goes_on(
    text_server: RunningServer, tenant: str, vaults: Path
) -> None:
    (tmp_path := vaults / tenant).mkdir()
    (tmp_path / "good.md").write_text("---\ntags: [ok]\n---\nSee [[bad]]", encoding="utf-8")
    (tmp_path / "bad.md").write_text("---\nx: &a [1]\ny: *a\n---\n", encoding="utf-8")
    (tmp_path / "brace.md").write_text("{\nnot json\n}\n", encoding="utf-8")

    report = (await text_server.data(
        "mutation($p: String!) { importVault(path: $p) { created skipped { path reason } } }",
        {"p": str(tmp_path)}, headers={"X-Vaultgraph-Tenant": tenant}))["importVault"]

    assert sorted(report["created"]) == ["brace.md", "good.md"]
    [skipped] = report["skipped"]
    assert skipped["path"] == "bad.md" and skipped["reason"].startswith("body: the frontmatter at line 2: ")
