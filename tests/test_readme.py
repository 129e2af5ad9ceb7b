"""The README stays true: every setting appears in its configuration table, its Layout names every package and
top-level module of vaultgraph (and nothing that is not there), and its tour runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.server import RunningServer
from vaultgraph.config import Settings

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PACKAGE = ROOT / "vaultgraph"


def _env_names() -> list[str]:
    names = []
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        choices = getattr(alias, "choices", None)
        names.append(str(choices[0]) if choices else f"VAULTGRAPH_{name.upper()}")
    return names


def test_every_setting_is_documented() -> None:
    text = README.read_text()
    missing = [name for name in _env_names() if f"`{name}`" not in text]
    assert not missing, f"add these settings to the README's configuration table: {missing}"


def _layout_of_the_package() -> str:
    """The `vaultgraph/` part of the Layout section's tree: from its line to the next line that is not indented."""
    text = README.read_text()
    section = text[text.index("## Layout\n") :]
    block = section[section.index("```\n") + 4 : section.index("\n```", section.index("```\n") + 4)]
    lines = block.splitlines()
    start = lines.index("vaultgraph/")
    end = next((n for n in range(start + 1, len(lines)) if not lines[n].startswith(" ")), len(lines))
    return "\n".join(lines[start + 1 : end])


def test_the_layout_names_every_package_and_module() -> None:
    layout = _layout_of_the_package()
    here = {f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    here |= {p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    named = set(re.findall(r"(?<![\w/.])([a-z_0-9]+(?:/|\.py))(?![\w/])", layout))
    missing = sorted(here - named)
    assert not missing, f"name these in the README's Layout section, with what each owns: {missing}"
    # Each entry of the tree (the first name on a line at the package's level) is a package or module that exists.
    entries = {line.split()[0] for line in layout.splitlines() if re.match(r"  [a-z]", line)}
    gone = sorted(entries - here)
    assert not gone, f"the README's Layout names what vaultgraph/ no longer has: {gone}"


def test_the_modules_a_package_entry_names_are_in_that_package() -> None:
    """Inside a package's entry, each `name.py` and `sub/` it names is a module or package of that package (at
    any depth), and each subpackage is named: a split or a move shows up here until the Layout follows it."""
    entries: dict[str, str] = {}
    current = None
    for line in _layout_of_the_package().splitlines():
        if re.match(r"  [a-z]", line):
            current = line.split()[0]
            entries[current] = line[len(current) + 2 :]
        elif current is not None:
            entries[current] += "\n" + line
    stale, unnamed = [], []
    for entry, text in entries.items():
        if not entry.endswith("/"):
            continue
        package = PACKAGE / entry
        modules = {p.name for p in package.rglob("*.py")}
        subpackages = {f"{p.parent.name}/" for p in package.rglob("__init__.py") if p.parent != package}
        # a top-level module (`runtime.py`) or another package's (`http/auth.py`) is a reference, not a module here
        named = set(re.findall(r"(?<![\w/.*])([a-z_0-9]+(?:/|\.py))(?![\w/])", text)) - set(entries)
        stale += [f"{entry}{name}" for name in sorted(named - modules - subpackages)]
        unnamed += [f"{entry}{name}" for name in sorted(subpackages - named)]
    assert not stale, f"the README's Layout names modules these packages do not have: {stale}"
    assert not unnamed, f"name these subpackages in the README's Layout: {unnamed}"


def _tour_blocks() -> list[str]:
    text = README.read_text()
    tour = text[text.index("## A five-minute tour") : text.index("## Neo4j: the local default")]
    return re.findall(r"```graphql\n(.*?)```", tour, re.DOTALL)


@pytest.mark.api
@pytest.mark.graph
async def test_the_tour_runs_as_written(server: RunningServer) -> None:
    ids: dict[str, str] = {}
    blocks = _tour_blocks()
    assert len(blocks) >= 10
    for block in blocks:
        query = block
        for placeholder in re.findall(r"<id of ([^>]+)>", block):
            if placeholder not in ids:
                if "." in placeholder:  # a document path
                    found = await server.data("query($p: String!) { document(path: $p) { id } }", {"p": placeholder})
                    ids[placeholder] = found["document"]["id"]
                else:
                    found = await server.data("query($s: String!) { note(slug: $s) { id } }", {"s": placeholder})
                    ids[placeholder] = found["note"]["id"]
            query = query.replace(f"<id of {placeholder}>", ids[placeholder])
        data = await server.data(query)
        assert data, block
    hits = await server.data('{ search(query: "milestones and owners", limit: 5) { item { title } } }')
    assert hits["search"][0]["item"]["title"] == "Project Plan"
    first = await server.data('{ note(slug: "kickoff") { outgoing { edges { node { isGhost to { title } } } } } }')
    assert first["note"]["outgoing"]["edges"] == [{"node": {"isGhost": False, "to": {"title": "Project Plan"}}}]
