"""Sequences of the link-graph state machine (test_link_graph.py) written out as plain tests, each marked with the
defect it shows: the steps hypothesis found (shrunk), or the shortest form of a defect of issue 18 in the machine's
own terms. Each runs the machine's checks (tests/model/world.py) after its last step; on main they fail until the
fix named in their docstring is merged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.model.world import World
from tests.support.server import RunningServer

pytestmark = pytest.mark.api

ALPHA, BETA, GAMMA, SETUP = ("", "Alpha"), ("", "Beta"), ("", "Gamma Ray"), ("", "Setup")
PROJECTS_BETA, DELTA = ("projects", "Beta"), ("projects", "Delta")


@pytest.fixture
def world(model_server: RunningServer, vault_root: Path) -> World:
    return World(model_server, vault_root)


async def test_backlinks_keep_the_target_outgoing_gives(world: World) -> None:
    """Issue 18 defect 1 (links-core): backlinks read the resolved link as a ghost (`to: null`, `isGhost: true`)."""
    await world.save_note(0, BETA, "The target.")
    await world.save_note(0, ALPHA, "See [[Beta]].")
    await world.check(0)
    await world.check_mcp(0, BETA)


async def test_ref_is_the_target_as_authored(world: World) -> None:
    """Issue 18 defect 2 (links-core): `[[gamma RAY#Intro|this]]` reads `ref: "gamma-ray"`, not `gamma RAY`."""
    await world.save_note(0, GAMMA, "")
    await world.save_note(0, ALPHA, "[[gamma RAY#Intro|this]] and [[Nowhere]]")
    await world.check(0)


async def test_a_document_link_binds_the_same_in_either_order(world: World) -> None:
    """Issue 18 defect 4 (links-core): `[[specs/api]]` names no file by GoClaw's order (`specs/api.txt` needs its
    suffix), so it is a ghost when saved after the document; saved before it, the document's creation binds it."""
    await world.save_note(0, ALPHA, "[[specs/api]]")
    await world.create_document(0, "specs/api.txt")
    await world.check(0)


async def test_a_note_takes_a_link_from_a_document_of_the_same_name(world: World) -> None:
    """Issue 18 defect 4 (links-core): `[[setup]]` resolves to the note Setup before the document guides/setup.md
    when both exist (notes first, as the outgoing pass does); the note written after the link leaves it on the
    document."""
    await world.create_document(0, "guides/setup.md")
    await world.save_note(0, ALPHA, "[[setup]]")
    await world.save_note(0, SETUP, "")
    await world.check(0)


async def test_delete_link_refuses_a_wikilink_the_body_holds(world: World) -> None:
    """Issue 18 defect 5 (links-core): deleteLink of a body-owned wikilink is refused with LINK_OWNED_BY_BODY."""
    await world.save_note(0, ALPHA, "[[Beta]]")
    await world.check(0)
    await world.delete_link(0, 0)
    await world.check(0)


async def test_canvas_file_nodes_name_the_vault_path(world: World) -> None:
    """Issue 18 defect 6 (links-core): a note's canvas node is `file: "projects/delta.md"` (the slug), not its vault
    path `projects/Delta.md`."""
    await world.save_note(0, DELTA, "[[Alpha]]")
    await world.save_note(0, ALPHA, "")
    await world.check(0)


async def test_a_rename_rewrites_the_links_to_it(world: World) -> None:
    """Issue 18 defect 10 (notes-writes): renaming Beta to Gamma Ray leaves `[[Beta|b]]` in Alpha's body, bound by
    id, so body and graph disagree."""
    await world.save_note(0, BETA, "")
    await world.save_note(0, ALPHA, "[[Beta|b]] and ![[beta#Intro]]")
    await world.rename(0, BETA, "Gamma Ray")
    await world.check(0)


async def test_export_and_import_keep_typed_links_and_attachments(world: World) -> None:
    """Issue 18 defect 7 (interop): exportVault then importVault into a fresh tenant loses the typed link and the
    attachment (and with them the links to it)."""
    await world.save_note(0, ALPHA, "![[diagram.png]]")
    await world.save_note(0, BETA, "[[Alpha]]")
    await world.import_vault(0, [], attachment=True)
    await world.create_link(0, ALPHA, BETA, "RELATED")
    await world.check(0)
    await world.round_trips(0)


async def test_a_hard_delete_lets_the_link_fall_to_the_next_note_of_its_name(world: World) -> None:
    """Found by the machine (links-core): `[[Beta]]` in projects/Delta resolves to Beta (the exact path); once Beta is
    hard-deleted, Obsidian resolves it to projects/Beta (its own folder). The server leaves it a ghost."""
    await world.save_note(0, PROJECTS_BETA, "")
    await world.save_note(0, BETA, "")
    await world.save_note(0, DELTA, "[[Beta]]")
    await world.check(0)
    await world.hard_delete(0, BETA)
    await world.check(0)


async def test_export_keeps_archived_notes(world: World) -> None:
    """Issue 18 defect 7 (interop), by the model's choice: archivedAt is in the schema, so an archived note survives
    exportVault → importVault, archived, and the links to it stay resolved. exportVault writes active notes only."""
    await world.save_note(0, BETA, "")
    await world.save_note(0, ALPHA, "[[Beta]]")
    await world.archive(0, BETA)
    await world.check(0)
    await world.round_trips(0)


async def test_found_the_same_bodies_in_another_order(world: World) -> None:
    """Found by the machine, shrunk (issue 18 defect 4, links-core): in tenant 0 the document comes first and
    `[[specs/api#Open questions|this]]` stays a ghost (GoClaw's order needs the suffix); the teardown's fresh tenant
    writes the note first and the document's creation binds it."""
    await world.save_note(1, ("", "ALPHA"), "`[[Alpha]]` in code [[diagram.png]] [[specs/api]] #topic")
    await world.create_document(0, "specs/api.txt")
    await world.import_vault(0, [(GAMMA, "- a point")], attachment=True, force=True)
    await world.save_note(0, DELTA, "Some words. #topic [[gamma ray#Open questions]] [[specs/api#Open questions|this]]")
    await world.check(0)
    await world.round_trips(0)


async def test_found_an_imported_note_exports_under_its_new_name(world: World) -> None:
    """Found by the machine (notes-writes or interop): a note imported from `Beta.md` keeps that file name
    (`vaultPath`) through a rename to Gamma Ray, so exportVault writes `Beta.md` and the import of the export makes a
    note Beta: the rename is lost."""
    await world.import_vault(0, [(BETA, "plain")])
    await world.rename(0, BETA, "Gamma Ray")
    await world.check(0)
    await world.round_trips(0)


async def test_found_a_blank_capture_is_refused_and_makes_no_day_note(world: World) -> None:
    """Found by the 2,000-step run (2026-12-02): captureNote of blank text is refused with INVALID_INPUT; the
    machine expected it accepted. Nothing is made: the day's note does not exist after."""
    await world.capture(0, "2026-06-09", "\n\n")
    await world.check(0)
    await world.capture(0, "2026-06-09", "a [[Beta]] thought")
    await world.check(0)


async def test_a_document_edit_moves_its_wikilinks_and_a_stale_hash_changes_nothing(world: World) -> None:
    """updateDocument(content): the document's wikilinks follow its new text once enrichment ran (one bound, one a
    ghost, one to the other document), its hash and full-text entry follow; a stale ifContentHash is a CONFLICT that
    leaves text, hash and links as they were; a rename rewrites the document's link to the note, a hard delete
    turns it into a ghost, and the same texts in another order and through export and import give the same links."""
    await world.save_note(0, BETA, "The target.")
    await world.create_document(0, "specs/api.txt", "No links yet.")
    await world.create_document(0, "guides/setup.md", "The guide, linking [[Beta]].")
    await world.check(0)
    await world.edit_document(0, "guides/setup.md", "Now [[beta#Intro|the other]], [[Nowhere]] and [[api.txt]].")
    await world.check(0)
    await world.edit_document(0, "guides/setup.md", "A lost update: [[Alpha]].", fresh=False)
    await world.check(0)
    await world.save_note(0, ALPHA, "Binds the ghost [[Setup]].")
    await world.rename(0, BETA, "Delta", rewrite=True)
    await world.check(0)
    await world.hard_delete(0, ("", "Delta"))
    await world.check(0)
    await world.round_trips(0)


async def test_a_document_emptied_keeps_no_links_and_no_words(world: World) -> None:
    """Found by the machine's edit_document step: updateDocument to a blank text left the document's old wikilinks
    and its full-text entry in place (enrichment SKIPPED the empty file and cleared nothing it had derived)."""
    await world.save_note(0, BETA, "The target.")
    # `zqjjword`: a word of the text, which the edit's full-text check must no longer find.
    await world.create_document(0, "guides/setup.md", "Linking [[Beta]] and [[Nowhere]], zqjjword.")
    await world.check(0)
    await world.edit_document(0, "guides/setup.md", "")
    await world.check(0)


async def test_a_note_edited_twice_is_found_by_its_new_words_only(world: World) -> None:
    """Issue 24's one bag of words per node (graph/search_text.py): each MCP edit ends the body with a fresh word;
    the full-text index, not the substring scan behind it, finds the note by the second and no longer by the first."""
    await world.save_note(0, ALPHA, "First text.")
    await world.edit_through_mcp(0, ALPHA, "Second text.")
    await world.edit_through_mcp(0, ALPHA, "Third text.")
    await world.check(0)
