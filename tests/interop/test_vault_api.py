"""exportVault, importVault and canvas through GraphQL against the real server: a tenant exported to a folder and
imported into a fresh tenant gives the same notes, links and documents back; names are unique per export and
scope; canvas `file` nodes are the paths an export writes; bad names are skipped and reported, not fatal."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = """mutation($input: NoteInput!) { saveNote(input: $input) { note { id slug } } }"""
LINK = """mutation($input: LinkInput!) { createLink(input: $input) { id } }"""
ARCHIVE = """mutation($id: ID!) { archiveNote(id: $id) { id } }"""
DOCUMENT = """mutation($input: DocumentInput!) { createDocument(input: $input) { id path } }"""
EXPORT = """mutation($path: String!) { exportVault(path: $path) {
  written attachments renamed { path writtenAs } skipped { path reason } } }"""
IMPORT = """mutation($path: String!, $force: Boolean! = false) { importVault(path: $path, force: $force) {
  files created updated unchanged conflicts attachments typedLinks skipped { path reason } } }"""
# The fields the reports had before this module's fixes, for tests that need no more.
EXPORT_WRITTEN = """mutation($path: String!) { exportVault(path: $path) { written } }"""
IMPORT_FILES = """mutation($path: String!, $force: Boolean! = false) { importVault(path: $path, force: $force) {
  files created updated unchanged conflicts } }"""
NOTES = """query($after: String) { notes(first: 40, includeArchived: true, after: $after) {
  pageInfo { hasNextPage endCursor }
  nodes { title slug body kind noteDate pinned tags frontmatter scope agentId teamId archivedAt
    outgoing(first: 20) { nodes { type ref label isGhost from { title } to { title } } } } } }"""
DOCUMENTS = """{ documents(first: 50) { nodes { path title docType scope agentId teamId contentHash } } }"""
CANVAS = """query($id: ID!) { canvas(center: $id, hops: 1) }"""
# A 1x1 PNG: a binary attachment, which only a vault import (or the workspace) brings in.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


@pytest.fixture(scope="module")
async def api(settings: Settings) -> AsyncIterator[RunningServer]:
    """One development-mode server for the module; each test picks fresh tenants with X-Vaultgraph-Tenant."""
    update = {"dev_tenant": "interop-default", "port": 0, "enrichment_tenants": ["interop-none"]}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


@pytest.fixture
def vault_root(workspace_root: Path) -> Path:
    """A fresh folder under the server's data directory, the only place a development server lets the API import
    from and export to (unless VAULTGRAPH_VAULT_DIRS says more)."""
    root = workspace_root / "vaults" / uuid.uuid4().hex
    root.mkdir(parents=True)
    return root


class Tenant:
    """One tenant of the module's server, every call with its header."""

    def __init__(self, api: RunningServer, agent: str | None = None, name: str | None = None) -> None:
        self.api = api
        self.name = name or f"t{uuid.uuid4().hex[:16]}"
        self.headers = {"X-Vaultgraph-Tenant": self.name, **({"X-Vaultgraph-Agent": agent} if agent else {})}

    async def data(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self.api.data(query, variables, self.headers)

    async def errors(self, query: str, variables: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        body = await self.api.graphql(query, variables, self.headers)
        assert body.get("errors"), body
        errors: list[dict[str, Any]] = body["errors"]
        return errors

    async def note(self, **fields: Any) -> str:
        note_id: str = (await self.data(SAVE, {"input": fields}))["saveNote"]["note"]["id"]
        return note_id

    async def link(self, **fields: Any) -> None:
        await self.data(LINK, {"input": fields})

    async def export(self, folder: Path, query: str = EXPORT) -> dict[str, Any]:
        report: dict[str, Any] = (await self.data(query, {"path": str(folder)}))["exportVault"]
        return report

    async def import_(self, folder: Path, force: bool = False, query: str = IMPORT) -> dict[str, Any]:
        report: dict[str, Any] = (await self.data(query, {"path": str(folder), "force": force}))["importVault"]
        return report

    async def notes(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        after = None
        while True:
            page = (await self.data(NOTES, {"after": after}))["notes"]
            found.extend(page["nodes"])
            if not page["pageInfo"]["hasNextPage"]:
                return found
            after = page["pageInfo"]["endCursor"]


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(sorted(map(repr, map(_freeze, value))))
    return value


def note_set(notes: list[dict[str, Any]]) -> set[Any]:
    """What the schema says about each note, without ids and timestamps (archived as a flag)."""
    keep = ("title", "slug", "body", "kind", "noteDate", "pinned", "tags", "frontmatter", "scope", "agentId",
            "teamId")
    return {_freeze({**{k: n[k] for k in keep}, "archived": n["archivedAt"] is not None}) for n in notes}


def link_set(notes: list[dict[str, Any]]) -> set[Any]:
    return {(link["type"], link["from"]["title"], (link["to"] or {}).get("title"), link["ref"], link["label"],
             link["isGhost"]) for n in notes for link in n["outgoing"]["nodes"]}


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


async def test_export_then_import_into_a_fresh_tenant_gives_everything_back(
    api: RunningServer, vault_root: Path
) -> None:
    mine, fresh = Tenant(api), Tenant(api)
    source = vault_root / "source"
    (source / "assets").mkdir(parents=True)
    (source / "assets" / "diagram.png").write_bytes(PNG)
    assert (await mine.import_(source))["attachments"] == ["assets/diagram.png"]
    await mine.data(DOCUMENT, {"input": {"path": "docs/spec.md", "content": "# The Spec\n\nSee [[Plan]].\n"}})
    plan = await mine.note(
        title="Plan", kind="moc", pinned=True, noteDate="2026-06-01",
        body="---\nstatus: draft\ntags: [roadmap]\n---\n# Plan\n\n#project [[Design|the design]] ![[diagram.png]] "
             "[[Nowhere]] [[docs/spec]]\n")
    design = await mine.note(title="Design", kind="literature", body="Cites [[Plan#Goals]].\n")
    await mine.note(title="daily/2026-06-09 Notes", kind="daily", noteDate="2026-06-09", body="- standup\n")
    old = await mine.note(title="Old Idea", body="kind: not frontmatter\n")
    await mine.data(ARCHIVE, {"id": old})
    await mine.note(title="Plan", body="My own plan.\n", scope="PERSONAL", agentId="alice")
    await mine.note(title="Team Plan", body="[[Plan]]\n", scope="TEAM", teamId="core", pinned=True)
    await mine.link(**{"from": plan, "to": design, "type": "DEPENDS_ON", "label": "needs"})
    await mine.link(**{"from": design, "ref": "Someday Maybe", "type": "RELATED"})
    await mine.link(**{"from": design, "to": (await mine.data(
        '{ document(path: "docs/spec.md") { id } }'))["document"]["id"], "type": "REFERENCES", "confidence": 0.5})

    out = vault_root / "out"
    exported = await mine.export(out)
    assert exported["skipped"] == [] and exported["renamed"] == []
    assert sorted(exported["attachments"]) == ["assets/diagram.png", "docs/spec.md"]
    assert files(out) == {*exported["written"], *exported["attachments"]}

    imported = await fresh.import_(out)
    assert imported["skipped"] == [] and imported["conflicts"] == []
    assert imported["typedLinks"] == 3
    before, after = await mine.notes(), await fresh.notes()
    assert len(after) == len(before) == 6
    assert note_set(after) == note_set(before)
    assert link_set(after) == link_set(before)
    assert len(link_set(before)) == 9  # the body's five and one [[Plan]], and three made by createLink
    docs_before, docs_after = await mine.data(DOCUMENTS), await fresh.data(DOCUMENTS)
    assert _freeze(docs_after["documents"]["nodes"]) == _freeze(docs_before["documents"]["nodes"])

    # Again: the same files, byte for byte, and importing them over the imported tenant changes nothing.
    again = vault_root / "again"
    await fresh.export(again)
    assert files(again) == files(out)
    assert all((again / f).read_bytes() == (out / f).read_bytes() for f in files(out))
    second = await fresh.import_(again)
    assert second["created"] == second["updated"] == second["conflicts"] == [] and second["typedLinks"] == 0
    assert len(second["unchanged"]) == second["files"] == len(files(out))


DOCUMENT_LINKS = """{ documents(first: 50) { nodes { path outgoing(first: 20) { nodes {
  type ref isGhost to { ... on Document { path } ... on Note { slug } } } } } } }"""


async def document_links(tenant: Tenant) -> set[tuple[Any, ...]]:
    nodes = (await tenant.data(DOCUMENT_LINKS))["documents"]["nodes"]
    return {(node["path"], link["type"], link["ref"], link["isGhost"], _freeze(link["to"]))
            for node in nodes for link in node["outgoing"]["nodes"]}


async def test_typed_links_from_documents_survive_export_and_import(api: RunningServer, vault_root: Path) -> None:
    """An image has no frontmatter to carry them: they travel in the vault's .vaultgraph/links.json; a markdown
    document's in its own frontmatter. (The model test found an image's link lost on the way.)"""
    mine, fresh = Tenant(api), Tenant(api)
    source = vault_root / "source"
    (source / "assets").mkdir(parents=True)
    (source / "assets" / "diagram.png").write_bytes(PNG)
    await mine.import_(source)
    spec = (await mine.data(DOCUMENT, {"input": {"path": "docs/spec.md", "content": "# Spec\n"}}))["createDocument"]
    table = (await mine.data(DOCUMENT, {"input": {"path": "data/table.csv", "content": "a,b\n1,2\n"}}))
    plan = await mine.note(title="Plan", body="the plan")
    image = (await mine.data('{ document(path: "assets/diagram.png") { id } }'))["document"]["id"]
    await mine.link(**{"from": image, "ref": "Gamma Ray", "type": "REFERENCES"})
    await mine.link(**{"from": image, "to": plan, "type": "RELATED"})
    await mine.link(**{"from": spec["id"], "to": image, "type": "DEPENDS_ON"})
    await mine.link(**{"from": table["createDocument"]["id"], "to": spec["id"], "type": "REFERENCES"})
    before = await document_links(mine)
    assert len(before) == 4

    out = vault_root / "out"
    exported = await mine.export(out)
    assert exported["skipped"] == []
    assert (out / ".vaultgraph" / "links.json").is_file()
    imported = await fresh.import_(out)
    assert imported["skipped"] == [] and imported["typedLinks"] == 4
    assert await document_links(fresh) == before
    again = await fresh.import_(out)
    assert again["typedLinks"] == 0 and await document_links(fresh) == before


async def test_a_malformed_links_file_is_reported_and_the_rest_imported(api: RunningServer, vault_root: Path) -> None:
    tenant = Tenant(api)
    (vault_root / ".vaultgraph").mkdir()
    (vault_root / ".vaultgraph" / "links.json").write_text('{"version": 2}')
    (vault_root / "Note.md").write_text("a note")
    report = await tenant.import_(vault_root)
    assert report["created"] == ["Note.md"]
    [(path, why)] = [(s["path"], s["reason"]) for s in report["skipped"]]
    assert path == ".vaultgraph/links.json" and "version" in why


async def test_canvas_file_nodes_name_the_files_an_export_writes(api: RunningServer, vault_root: Path) -> None:
    mine = Tenant(api)
    plan = await mine.note(title="Plan", body="[[Design]] and [[docs/spec]]\n")
    await mine.note(title="Design", slug="projects/design", body="")
    ideas = await mine.note(title="Ideas", body="", scope="PERSONAL", agentId="alice")
    await mine.data(DOCUMENT, {"input": {"path": "docs/spec.md", "content": "# Spec\n"}})
    await mine.link(**{"from": plan, "to": ideas, "type": "RELATED"})
    canvas = (await mine.data(CANVAS, {"id": plan}))["canvas"]
    named = {node["file"] for node in canvas["nodes"]}
    assert named == {"Plan.md", "projects/Design.md", "agents/alice/Ideas.md", "docs/spec.md"}
    exported = await mine.export(vault_root / "out")
    assert named == {*exported["written"], *exported["attachments"]}


async def test_a_shared_and_a_personal_note_with_one_title_keep_their_files_and_scopes(
    api: RunningServer, vault_root: Path
) -> None:
    mine = Tenant(api)
    await mine.note(title="Plan", body="shared\n")
    await mine.note(title="Plan", slug="plan-v2", body="shared, second\n")
    await mine.note(title="Plan", body="alice's\n", scope="PERSONAL", agentId="alice")
    await mine.note(title="Plan", body="the team's\n", scope="TEAM", teamId="core")
    out = vault_root / "out"
    exported = await mine.export(out)
    assert sorted(exported["written"]) == ["Plan 2.md", "Plan.md", "agents/alice/Plan.md", "teams/core/Plan.md"]
    assert len(exported["renamed"]) == 1 and exported["renamed"][0]["path"] == "Plan.md"
    assert {(out / f).read_text().rsplit("\n", 2)[-2] for f in exported["written"]} == {
        "shared", "shared, second", "alice's", "the team's"}

    fresh = Tenant(api)
    assert len((await fresh.import_(out))["created"]) == 4
    assert note_set(await fresh.notes()) == note_set(await mine.notes())

    # Bob may write the shared space but not alice's or the team's: those files are skipped, with why.
    bob = Tenant(api, agent="bob")
    report = await bob.import_(out)
    assert sorted(report["created"]) == ["Plan 2.md", "Plan.md"]
    assert {s["path"] for s in report["skipped"]} == {"agents/alice/Plan.md", "teams/core/Plan.md"}
    assert all("FORBIDDEN" in s["reason"] for s in report["skipped"])


async def test_a_title_with_a_slash_exports_and_imports_stably(api: RunningServer, vault_root: Path) -> None:
    mine = Tenant(api)
    await mine.note(title="daily/2026-06-09 Notes", body="- one\n")
    first = await mine.export(vault_root / "first", EXPORT_WRITTEN)
    assert first["written"] == ["daily/2026-06-09 Notes.md"]
    again = await mine.import_(vault_root / "first", query=IMPORT_FILES)
    assert again["unchanged"] == ["daily/2026-06-09 Notes.md"] and again["created"] == []
    fresh = Tenant(api)
    await fresh.import_(vault_root / "first", query=IMPORT_FILES)
    assert [(n["title"], n["slug"]) for n in await fresh.notes()] == [("daily/2026-06-09 Notes",
                                                                        "daily/2026-06-09-notes")]
    second = await fresh.export(vault_root / "second", EXPORT_WRITTEN)
    assert files(vault_root / "second") == files(vault_root / "first") and second["written"] == first["written"]


async def test_import_honours_kind_date_and_pinned_in_frontmatter(api: RunningServer, vault_root: Path) -> None:
    vault = vault_root / "vault"
    vault.mkdir()
    body = "---\nkind: meeting\ndate: 2026-06-09\npinned: true\n---\n# Standup\n"
    (vault / "Standup.md").write_text(body)
    (vault / "Plain.md").write_text("---\ndate: soon\n---\nno kind here\n")
    mine = Tenant(api)
    await mine.import_(vault, query=IMPORT_FILES)
    notes = {n["title"]: n for n in await mine.notes()}
    assert (notes["Standup"]["kind"], notes["Standup"]["noteDate"], notes["Standup"]["pinned"]) == (
        "meeting", "2026-06-09", True)
    assert notes["Standup"]["body"] == body
    assert (notes["Plain"]["kind"], notes["Plain"]["noteDate"], notes["Plain"]["pinned"]) == ("note", None, False)


async def test_a_nul_in_a_title_is_kept_and_a_file_that_cannot_be_written_is_skipped(
    api: RunningServer, vault_root: Path
) -> None:
    mine = Tenant(api)
    await mine.note(title="Bad\x00Name", body="x\n")
    await mine.note(title="Good", body="y\n")
    await mine.note(title="Other", body="z\n")
    out = vault_root / "out"
    (out / "Good.md").mkdir(parents=True)  # something in the way of one file
    report = await mine.export(out)
    assert sorted(report["written"]) == ["BadName.md", "Other.md"]
    assert [s["path"] for s in report["skipped"]] == ["Good.md"]
    assert "Is a directory" in report["skipped"][0]["reason"]
    (out / "Good.md").rmdir()
    fresh = Tenant(api)
    await fresh.import_(out)
    assert sorted(n["title"] for n in await fresh.notes()) == ["Bad\x00Name", "Other"]


async def test_a_nul_in_a_vault_folder_is_invalid_input(api: RunningServer, vault_root: Path) -> None:
    mine = Tenant(api)
    for mutation in (IMPORT_FILES, EXPORT_WRITTEN):
        errors = await mine.errors(mutation, {"path": f"{vault_root}/in\x00side"})
        assert errors[0]["extensions"]["code"] == "INVALID_INPUT"
        assert errors[0]["extensions"]["field"] == "path"
