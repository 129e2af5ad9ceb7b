"""schema.graphql is the printed public API; a change to it is a deliberate, reviewed diff."""

from __future__ import annotations

import os
from pathlib import Path

from vaultgraph.resolvers.root import build_schema

SNAPSHOT = Path(__file__).resolve().parents[1] / "schema.graphql"


def test_schema_graphql_matches_the_printed_schema() -> None:
    printed = build_schema().as_str() + "\n"
    if os.environ.get("VAULTGRAPH_UPDATE_SCHEMA"):
        SNAPSHOT.write_text(printed)
    assert SNAPSHOT.read_text() == printed, "schema changed: rerun with VAULTGRAPH_UPDATE_SCHEMA=1 and review"


def test_design_names_are_kept() -> None:
    sdl = build_schema().as_str()
    for name in ("interface Node", "interface Item implements Node", "type Document implements Item & Node",
                 "node(id: ID!): Node", "createDocument(input: DocumentInput!)", "enum EnrichmentStage"):
        assert name in sdl, name
