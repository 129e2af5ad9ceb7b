"""Link resolution: Obsidian's rule for notes, GoClaw's order for workspace documents."""

from __future__ import annotations

import pytest

from vaultgraph.text.resolve import resolve, resolve_workspace

pytestmark = pytest.mark.text

VAULT = (
    "Note.md",
    "projects/Note.md",
    "projects/deep/Note.md",
    "archive/Note.md",
    "projects/Plan.md",
    "projects/deep/Plan.md",
    "ab/Plan.md",
    "people/Ada Lovelace.md",
    "assets/diagram.png",
    "assets/report.pdf",
)


@pytest.mark.parametrize(
    ("target", "source", "expected"),
    [
        ("projects/Note", "elsewhere/x.md", "projects/Note.md"),  # exact path
        ("Note", "projects/x.md", "Note.md"),  # the exact vault path beats the source's folder
        ("Plan", "projects/deep/x.md", "projects/deep/Plan.md"),  # the source's own folder
        ("Plan", "projects/x.md", "projects/Plan.md"),
        ("Plan", "people/x.md", "ab/Plan.md"),  # shortest
        ("deep/Note", "people/x.md", "projects/deep/Note.md"),  # a path suffix
        ("ada lovelace", "x.md", "people/Ada Lovelace.md"),  # case-insensitive
        ("Ada Lovelace.md", "x.md", "people/Ada Lovelace.md"),  # ".md" optional
        ("diagram.png", "x.md", "assets/diagram.png"),
        ("diagram", "x.md", None),  # attachments need their extension
        ("./Note", "archive/x.md", "archive/Note.md"),
        ("../Note", "projects/deep/x.md", "projects/Note.md"),
        ("../../Note", "projects/x.md", None),  # above the vault root
        ("/projects/Note", "archive/x.md", "projects/Note.md"),
        ("Missing", "x.md", None),
        ("", "projects/x.md", "projects/x.md"),  # [[#Heading]] is the note itself
        ("  Note  ", "people/x.md", "Note.md"),
    ],
)
def test_resolve(target: str, source: str, expected: str | None) -> None:
    assert resolve(target, source, VAULT) == expected


def test_shortest_path_ties_break_alphabetically_whatever_the_order() -> None:
    vault = ["b/Topic.md", "a/Topic.md", "c/Topic.md"]

    assert resolve("topic", "x/y.md", vault) == "a/Topic.md"
    assert resolve("topic", "x/y.md", list(reversed(vault))) == "a/Topic.md"


def test_exact_case_wins_when_paths_differ_only_by_case() -> None:
    vault = ["notes/readme.md", "notes/README.md"]

    assert resolve("README", "x.md", vault) == "notes/README.md"
    assert resolve("readme", "x.md", vault) == "notes/readme.md"


def test_a_note_beats_an_extensionless_file_of_the_same_name() -> None:
    assert resolve("LICENSE", "x.md", ["LICENSE", "LICENSE.md"]) == "LICENSE.md"


def test_a_name_with_a_dot_prefers_the_file_it_spells() -> None:
    assert resolve("v1.2", "x.md", ["v1.2.md", "v1.2"]) == "v1.2"
    assert resolve("v1.2", "x.md", ["v1.2.md"]) == "v1.2.md"


def test_the_vault_is_not_mutated() -> None:
    vault = ["b/Topic.md", "a/Topic.md"]

    resolve("Topic", "x.md", vault)
    resolve_workspace("Topic", vault)

    assert vault == ["b/Topic.md", "a/Topic.md"]


WORKSPACE = ("docs/auth", "docs/auth.md", "guides/auth.md", "auth", "README.md", "teams/t1/notes/Plan.md")


@pytest.mark.parametrize(
    ("target", "paths", "expected"),
    [
        ("docs/auth", WORKSPACE, "docs/auth"),  # 1. exact path
        ("docs/auth", ("docs/auth.md", "auth"), "docs/auth.md"),  # 2. path + .md beats the basename
        ("other/auth", ("docs/auth.md", "x/auth"), "x/auth"),  # 3. basename beats basename + .md
        ("other/auth", ("docs/auth.md", "guides/auth.md"), "docs/auth.md"),  # 4. basename + .md, shortest
        ("plan", WORKSPACE, "teams/t1/notes/Plan.md"),  # case-insensitive
        ("readme.md", WORKSPACE, "README.md"),
        ("./README.md", WORKSPACE, "README.md"),
        ("nothing", WORKSPACE, None),
        ("  ", WORKSPACE, None),
    ],
)
def test_resolve_workspace(target: str, paths: tuple[str, ...], expected: str | None) -> None:
    assert resolve_workspace(target, paths) == expected


def test_resolve_workspace_prefers_the_exact_case() -> None:
    assert resolve_workspace("Plan", ["a/plan.md", "b/Plan.md"]) == "b/Plan.md"
