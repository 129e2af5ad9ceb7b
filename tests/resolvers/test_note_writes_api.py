"""Writing notes without losing what the call did not mention: `updateNote` (a partial update), `saveNote` refusing
a missing body, front-matter fields, and a rename that rewrites the links to the note in their bodies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.agents.mcp_client import call, mcp_session
from tests.support.server import RunningServer
from tests.support.waiting import eventually

pytestmark = [pytest.mark.api, pytest.mark.graph]

NOTE = """fragment N on Note { id title slug body bodySha256 kind tags pinned noteDate archivedAt frontmatter
  outgoing { edges { node { isGhost to { id } } } } }"""
SAVE = """mutation($input: NoteInput!, $rewrite: Boolean! = true) {
  saveNote(input: $input, rewriteLinks: $rewrite) { changed note { ...N } rewrittenNotes { id body } } }""" + NOTE
UPDATE = "mutation($id: ID!, $input: NotePatch!) { updateNote(id: $id, input: $input) { ...N } }" + NOTE
READ = "query($id: ID!) { note(id: $id) { ...N } }" + NOTE
BACKLINKS = """query($id: ID!) { note(id: $id) { backlinks { edges { node { isGhost from { id } to { id } } } } } }"""


async def _save(server: RunningServer, rewrite: bool = True, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = (await server.data(SAVE, {"input": fields, "rewrite": rewrite}))["saveNote"]
    return payload


async def _update(server: RunningServer, id: str, **fields: Any) -> dict[str, Any]:
    note: dict[str, Any] = (await server.data(UPDATE, {"id": id, "input": fields}))["updateNote"]
    return note


async def _read(server: RunningServer, id: str) -> dict[str, Any]:
    note: dict[str, Any] = (await server.data(READ, {"id": id}))["note"]
    return note


def _targets(note: dict[str, Any]) -> list[str]:
    return sorted((e["node"]["to"] or {}).get("id") or "ghost" for e in note["outgoing"]["edges"])


def _error(answer: dict[str, Any]) -> dict[str, Any]:
    [error] = answer["errors"]
    extensions: dict[str, Any] = error["extensions"]
    return extensions


async def test_update_note_changes_only_what_it_is_given(server: RunningServer) -> None:
    b = (await _save(server, title="B"))["note"]
    body = "Read [[B]] first. #project"
    a = (await _save(server, title="A", body=body, kind="meeting", noteDate="2026-06-09"))["note"]

    pinned = await _update(server, a["id"], pinned=True)
    assert (pinned["pinned"], pinned["body"], pinned["bodySha256"]) == (True, body, a["bodySha256"])
    assert (pinned["kind"], pinned["noteDate"], pinned["tags"]) == ("meeting", "2026-06-09", ["project"])
    assert _targets(pinned) == [b["id"]]

    archived = await _update(server, a["id"], archived=True, kind="moc")
    assert archived["archivedAt"] is not None and archived["kind"] == "moc" and archived["pinned"] is True
    listed = await server.data("{ notes { nodes { id } } }")
    assert a["id"] not in [n["id"] for n in listed["notes"]["nodes"]]
    restored = await _update(server, a["id"], archived=False, noteDate=None)
    assert (restored["archivedAt"], restored["noteDate"], restored["kind"]) == (None, None, "moc")

    props = await _update(server, a["id"], properties={"status": "draft", "tags": ["review"], "up": "[[B]]"})
    assert props["frontmatter"] == {"status": "draft", "tags": ["review"], "up": "[[B]]"}
    assert props["body"].endswith("\n" + body) and props["body"].startswith("---\nstatus: draft\n")
    assert sorted(props["tags"]) == ["project", "review"] and _targets(props) == [b["id"]]
    dropped = await _update(server, a["id"], properties={"status": None, "tags": None, "up": None})
    assert (dropped["body"], dropped["frontmatter"], dropped["tags"]) == (body, {}, ["project"])
    assert (dropped["kind"], dropped["pinned"]) == ("moc", True)

    bad = await server.graphql(UPDATE, {"id": a["id"], "input": {"properties": ["not", "an", "object"]}})
    assert _error(bad) == {"code": "INVALID_INPUT", "field": "properties"}
    missing = await server.graphql(UPDATE, {"id": "note_missing", "input": {"pinned": True}})
    assert _error(missing)["code"] == "NOT_FOUND"
    assert await _read(server, a["id"]) == dropped


async def test_save_note_refuses_a_missing_body_instead_of_blanking_it(server: RunningServer) -> None:
    b = (await _save(server, title="B"))["note"]
    a = (await _save(server, title="A", body="See [[B]].", kind="daily", noteDate="2026-06-09"))["note"]

    refused = await server.graphql(SAVE, {"input": {"id": a["id"], "title": "A", "pinned": True}})
    assert _error(refused) == {"code": "INVALID_INPUT", "field": "body"}
    assert "updateNote" in refused["errors"][0]["message"]
    assert await _read(server, a["id"]) == a

    # Resending the body without kind or date keeps them: only the body is replaced.
    again = (await _save(server, id=a["id"], title="A", body="See [[B]] again."))["note"]
    assert (again["kind"], again["noteDate"], _targets(again)) == ("daily", "2026-06-09", [b["id"]])
    created = (await _save(server, title="Empty"))["note"]
    assert (created["body"], created["kind"], created["pinned"]) == ("", "note", False)


async def test_front_matter_sets_kind_date_and_pin(server: RunningServer, workspace_root: Path, tenant: str) -> None:
    body = "---\nkind: meeting\ndate: 2026-06-09\npinned: true\n---\n# Standup\n"
    saved = (await _save(server, title="Standup", body=body))["note"]
    assert (saved["kind"], saved["noteDate"], saved["pinned"]) == ("meeting", "2026-06-09", True)
    explicit = (await _save(server, title="Other", body=body, kind="literature", pinned=False))["note"]
    assert (explicit["kind"], explicit["pinned"]) == ("literature", False)

    vault = workspace_root / "vaults" / tenant / "in"  # the API reads and writes vaults under the data folder only
    vault.mkdir(parents=True)
    (vault / "Retro.md").write_text("---\nkind: meeting\ndate: 2026-07-01\n---\nWhat went well.\n")
    report = await server.data('mutation($p: String!) { importVault(path: $p) { created } }', {"p": str(vault)})
    assert report["importVault"]["created"] == ["Retro.md"]
    imported = (await server.data('{ note(slug: "retro") { kind noteDate } }'))["note"]
    assert imported == {"kind": "meeting", "noteDate": "2026-07-01"}


async def test_rename_rewrites_the_links_to_it(server: RunningServer, workspace_root: Path, tenant: str) -> None:
    target = (await _save(server, title="Old Name", body="Back to [[Old Name#Top]], [[#Top]]."))["note"]
    other = (await _save(server, title="Other"))["note"]
    one_body = ("See [[Old Name#H|alias]], ![[old name]] and [[Other]].\n"
                "Not `[[Old Name]]`, nor:\n```\n[[Old Name]]\n```\n")
    one = (await _save(server, title="One", body=one_body))["note"]
    two = (await _save(server, title="Two", body='---\nup: "[[Old Name]]"\n---\nx [[old name.md|o]] #t'))["note"]
    for note in (one, two):
        assert target["id"] in _targets(note)

    renamed = await _save(server, id=target["id"], title="New Name", body=target["body"])
    assert renamed["note"]["slug"] == "new-name"
    assert renamed["note"]["body"] == "Back to [[New Name#Top]], [[#Top]]."
    assert _targets(renamed["note"]) == [target["id"]]  # its own links, re-keyed, still bind to it
    assert sorted(n["id"] for n in renamed["rewrittenNotes"]) == sorted([target["id"], one["id"], two["id"]])

    one_after = await _read(server, one["id"])
    assert one_after["body"] == ("See [[New Name#H|alias]], ![[New Name]] and [[Other]].\n"
                                 "Not `[[Old Name]]`, nor:\n```\n[[Old Name]]\n```\n")
    assert one_after["bodySha256"] != one["bodySha256"]
    assert _targets(one_after) == sorted([target["id"], other["id"]])
    two_after = await _read(server, two["id"])
    assert two_after["body"] == '---\nup: "[[New Name]]"\n---\nx [[New Name.md|o]] #t'
    assert (two_after["tags"], _targets(two_after)) == (["t"], [target["id"]])
    back = (await server.data(BACKLINKS, {"id": target["id"]}))["note"]["backlinks"]["edges"]
    assert sorted(e["node"]["from"]["id"] for e in back) == sorted([target["id"], one["id"], two["id"]])

    # The export holds the new names, so a re-import binds them all again.
    out = workspace_root / "vaults" / tenant / "out"
    await server.data('mutation($p: String!) { exportVault(path: $p) { written } }', {"p": str(out)})
    exported = "\n".join(path.read_text() for path in out.rglob("*.md"))
    assert "[[New Name#H|alias]]" in exported and "[[Old Name#H|alias]]" not in exported


async def test_rename_without_rewriting_leaves_ghosts_of_the_old_name(server: RunningServer) -> None:
    target = (await _save(server, title="Old Name", body="x"))["note"]
    body = "See [[Old Name|it]]."
    one = (await _save(server, title="One", body=body))["note"]

    renamed = await _save(server, rewrite=False, id=target["id"], title="New Name", body="x")
    assert renamed["rewrittenNotes"] == []
    after = await _read(server, one["id"])
    assert (after["body"], after["bodySha256"], _targets(after)) == (body, one["bodySha256"], ["ghost"])
    assert (await server.data(BACKLINKS, {"id": target["id"]}))["note"]["backlinks"]["edges"] == []

    # The ghost is the old name's: a note taking that name gets the link.
    newcomer = (await _save(server, title="Old Name", body="I am new."))["note"]
    assert _targets(await _read(server, one["id"])) == [newcomer["id"]]


async def test_a_title_change_that_keeps_the_slug_rewrites_nothing(server: RunningServer) -> None:
    target = (await _save(server, title="Old name", body="x"))["note"]
    one = (await _save(server, title="One", body="[[Old name]]"))["note"]
    renamed = await _save(server, id=target["id"], title="Old Name", body="x")
    assert renamed["rewrittenNotes"] == [] and renamed["note"]["slug"] == "old-name"
    assert await _read(server, one["id"]) == one


async def test_a_rename_rewrites_links_in_notes_the_renamer_cannot_read(server: RunningServer) -> None:
    bob, ann = {"X-Vaultgraph-Agent": "bob"}, {"X-Vaultgraph-Agent": "ann"}
    shared = await server.data(SAVE, {"input": {"title": "Old Name", "body": "x"}}, ann)
    target = shared["saveNote"]["note"]
    mine = await server.data(SAVE, {"input": {"title": "Bob's", "body": "On [[Old Name]].", "scope": "PERSONAL",
                                              "agentId": "bob"}}, bob)
    renamed = await server.data(SAVE, {"input": {"id": target["id"], "title": "New Name", "body": "x"}}, ann)
    assert renamed["saveNote"]["rewrittenNotes"] == []  # bob's note is not ann's to see…
    after = (await server.data(READ, {"id": mine["saveNote"]["note"]["id"]}, bob))["note"]
    assert (after["body"], _targets(after)) == ("On [[New Name]].", [target["id"]])  # …and follows all the same


async def test_an_update_that_names_no_slug_keeps_the_note_where_it_is(server: RunningServer) -> None:
    """saveNote with the id and no slug (as MCP `write_note` always sends it) edits the note in place: the stored
    slug while the title stays (a custom one too), its folder when the title changes, as Obsidian renames a file
    where it is. It used to take the slug of the title, moving `projects/beta` to `beta` on an ordinary edit."""
    inner = (await _save(server, title="Beta", slug="projects/beta", body="inside"))["note"]
    custom = (await _save(server, title="Gamma", slug="g-custom", body="custom"))["note"]
    edited = (await _save(server, id=inner["id"], title="Beta", body="edited"))["note"]
    assert (edited["slug"], edited["body"]) == ("projects/beta", "edited")
    assert (await _save(server, id=custom["id"], title="Gamma", body="again"))["note"]["slug"] == "g-custom"
    renamed = (await _save(server, id=inner["id"], title="Delta", body="edited"))["note"]
    assert renamed["slug"] == "projects/delta"
    # A slug given is still taken as given.
    moved = (await _save(server, id=inner["id"], title="Delta", slug="delta", body="edited"))["note"]
    assert moved["slug"] == "delta"


async def test_mcp_write_note_edits_a_note_in_its_folder(server: RunningServer) -> None:
    inner = (await _save(server, title="Beta", slug="projects/beta", body="inside"))["note"]
    async with mcp_session(server.url) as session:
        written = await call(session, "write_note", id=inner["id"], title="Beta", body="edited by an agent")
    assert written["slug"] == "projects/beta"
    assert (await _read(server, inner["id"]))["body"] == "edited by an agent"


DOCUMENT_LINKS = """query($id: ID!) { document(id: $id) { contentHash
  outgoing { edges { node { ref isGhost to { id } } } } } }"""


async def test_rename_rewrites_the_links_in_documents_files(server: RunningServer, workspace_root: Path,
                                                            tenant: str) -> None:
    """Obsidian rewrites every file that links to a renamed note: a workspace document's text file too, its
    wikilinks (bound to the note by its new name) and its hash following in the rename's transaction."""
    target = (await _save(server, title="Old Name", body="x"))["note"]
    text = "Read [[Old Name#Setup|the guide]] and ![[old name]], not `[[Old Name]]`.\n"
    created = await server.data("mutation($i: DocumentInput!) { createDocument(input: $i) { id } }",
                                {"i": {"path": "guides/setup.md", "content": text}})
    document_id = created["createDocument"]["id"]

    async def links() -> dict[str, Any]:
        answer: dict[str, Any] = (await server.data(DOCUMENT_LINKS, {"id": document_id}))["document"]
        return answer

    bound = await eventually(links, lambda d: [e["node"]["to"] for e in d["outgoing"]["edges"]] == [
        {"id": target["id"]}], 120, "the document's wikilink bound by enrichment")

    await _save(server, id=target["id"], title="New Name", body="x")
    file = workspace_root / "workspace" / tenant / "guides" / "setup.md"
    assert file.read_text() == "Read [[New Name#Setup|the guide]] and ![[New Name]], not `[[Old Name]]`.\n"
    after = await links()
    assert [(e["node"]["ref"], e["node"]["isGhost"], e["node"]["to"]) for e in after["outgoing"]["edges"]] == [
        ("New Name", False, {"id": target["id"]})]
    assert after["contentHash"] != bound["contentHash"]
    # A rescan finds nothing changed: the stored hash is the file's.
    rescan = await server.data("mutation { rescanWorkspace { new changed } }")
    assert rescan["rescanWorkspace"]["changed"] == [] and rescan["rescanWorkspace"]["new"] == []


async def test_a_rename_leaves_a_file_grown_past_the_limit_alone(server: RunningServer, workspace_root: Path,
                                                                 tenant: str) -> None:
    """A document file that grew past the enrichment limit (4 MiB) since it was enriched is not read whole to be
    rewritten: the file stays byte for byte, and its link becomes a ghost of the old name, as with
    `rewriteLinks: false`."""
    target = (await _save(server, title="Old Name", body="x"))["note"]
    created = await server.data("mutation($i: DocumentInput!) { createDocument(input: $i) { id } }",
                                {"i": {"path": "guides/big.md", "content": "See [[Old Name]].\n"}})
    document_id = created["createDocument"]["id"]

    async def links() -> list[tuple[str, bool, Any]]:
        answer = (await server.data(DOCUMENT_LINKS, {"id": document_id}))["document"]["outgoing"]["edges"]
        return [(e["node"]["ref"], e["node"]["isGhost"], e["node"]["to"]) for e in answer]

    await eventually(links, lambda edges: edges == [("Old Name", False, {"id": target["id"]})], 120,
                     "the document's wikilink bound by enrichment")
    file = workspace_root / "workspace" / tenant / "guides" / "big.md"
    grown = b"See [[Old Name]].\n" + b"filler line\n" * (4 * 1024 * 1024 // 12 + 1)
    file.write_bytes(grown)

    await _save(server, id=target["id"], title="New Name", body="x")
    assert file.read_bytes() == grown
    assert await links() == [("Old Name", True, None)]


async def test_a_rename_writes_the_path_where_the_name_alone_would_lead_elsewhere(server: RunningServer) -> None:
    """Renaming projects/Delta to Beta beside a root note Beta: `[[Delta]]` in a root note becomes
    `[[projects/Beta]]`, since `[[Beta]]` there means the root one (found by the model test of issue 18)."""
    root_beta = (await _save(server, title="Beta", body="the root one"))["note"]
    delta = (await _save(server, title="Delta", slug="projects/delta", body="x"))["note"]
    alpha = (await _save(server, title="Alpha", body="[[Delta#Intro|this]] and [[Beta]]"))["note"]
    assert _targets(alpha) == sorted([root_beta["id"], delta["id"]])
    await _save(server, id=delta["id"], title="Beta", slug="projects/beta", body="x")
    after = await _read(server, alpha["id"])
    assert after["body"] == "[[projects/Beta#Intro|this]] and [[Beta]]"
    assert _targets(after) == sorted([root_beta["id"], delta["id"]])


async def test_a_note_removed_while_it_is_read_is_not_there_never_an_internal_error(server: RunningServer) -> None:
    # Under Neo4j's read-committed isolation a node another transaction deletes after a read's MATCH found it reads
    # with every property null; the reads must answer it as gone (null, or left out of a page), not fail on it.
    import asyncio

    ids = [(await _save(server, title=f"Fleeting {n}", body="Soon gone."))["note"]["id"] for n in range(18)]
    # A page of notes, and six of them one by one (node(id) reads an Item, note(id) a Note).
    aliases = " ".join(f'n{n}: node(id: "{id}") {{ id }} m{n}: note(id: "{id}") {{ id }}'
                       for n, id in enumerate(ids[::3]))
    reads = "{ notes(first: 100) { edges { node { id title } } } " + aliases + " }"
    done = asyncio.Event()
    answers: list[dict[str, Any]] = []

    async def read_until_done() -> None:
        while not done.is_set():
            answers.append(await server.graphql(reads))
            await asyncio.sleep(0.03)  # within the development key's rate limit (50 a second)

    async def remove_all() -> None:
        for id in ids:
            await server.data("mutation($id: ID!) { deleteNote(id: $id, hard: true) { id } }", {"id": id})
        done.set()

    await asyncio.gather(read_until_done(), read_until_done(), remove_all())
    # note(id) of a note that is gone is NOT_FOUND, node(id) null; nothing else, and never INTERNAL.
    codes = {error["extensions"]["code"] for answer in answers for error in answer.get("errors", [])}
    assert answers and codes <= {"NOT_FOUND"}, [a for a in answers if "errors" in a and "NOT_FOUND" not in str(a)][:1]
    last = await server.graphql(reads)
    assert last["data"]["notes"]["edges"] == [] and {last["data"][f"n{n}"] for n in range(6)} == {None}
    assert {error["path"][0] for error in last["errors"]} == {f"m{n}" for n in range(6)}
