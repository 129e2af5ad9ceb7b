"""The README stays true: every setting appears in its configuration table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.server import RunningServer
from vaultgraph.config import Settings

README = Path(__file__).resolve().parents[1] / "README.md"


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
