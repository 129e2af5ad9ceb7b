"""relay-compiler accepts the schema (issue 22, item 2): the fragments of tests/clients/relay/src, a note's
backlinks paged forward and the notes paged backward, each with @connection, @refetchable and
@argumentDefinitions, compile against schema.graphql. relay-compiler comes from tests/clients/relay's lockfile
(`make clients-relay`, part of `make test`); its npm package carries its own binary, which needs no network."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

RELAY = Path(__file__).resolve().parent / "relay"
SCHEMA = Path(__file__).resolve().parents[2] / "schema.graphql"
COMPILER = RELAY / "node_modules" / ".bin" / "relay-compiler"


def _compile(tmp_path: Path, sources: Path) -> subprocess.CompletedProcess[str]:
    """relay-compiler over a copy of `sources` (it writes its artifacts beside them), against schema.graphql."""
    assert COMPILER.is_file(), "relay-compiler is not installed: run `make clients-relay` (npm ci there)"
    shutil.copytree(sources, tmp_path / "src")
    config = tmp_path / "relay.config.json"
    config.write_text(json.dumps({"src": "./src", "schema": str(SCHEMA), "language": "typescript"}))
    return subprocess.run([str(COMPILER), str(config)], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          check=False)


def test_relay_compiler_compiles_paginated_fragments_against_the_schema(tmp_path: Path) -> None:
    done = _compile(tmp_path, RELAY / "src")
    assert done.returncode == 0, done.stdout + done.stderr
    generated = tmp_path / "src" / "__generated__"
    assert {path.name for path in generated.iterdir()} == {
        "NoteBacklinks_note.graphql.ts", "NoteBacklinksPaginationQuery.graphql.ts",
        "NotesHistory_query.graphql.ts", "NotesHistoryPaginationQuery.graphql.ts"}
    # Paging backward, Relay asks the connection for where the page starts, which PageInfo now has.
    backward = (generated / "NotesHistoryPaginationQuery.graphql.ts").read_text()
    assert "hasPreviousPage" in backward and "startCursor" in backward
    assert '"node"' in (generated / "NoteBacklinksPaginationQuery.graphql.ts").read_text()  # refetched by Node


@pytest.mark.parametrize(("fragment", "named"), [
    ("notes(last: $count, before: $cursor) @connection(key: \"Bad_notes\") { edges { node { nope } } }", "nope"),
    ("documents(around: $count) @connection(key: \"Bad_documents\") { edges { node { id } } }", "around"),
])
def test_relay_compiler_refuses_what_the_schema_does_not_have(tmp_path: Path, fragment: str, named: str) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "Bad.ts").write_text(
        'import { graphql } from "relay-runtime";\n'
        "export const bad = graphql`\n  fragment Bad_query on Query\n"
        '  @argumentDefinitions(count: { type: "Int", defaultValue: 5 }, cursor: { type: "String" }) {\n'
        f"    {fragment}\n  }}\n`;\n")
    done = _compile(tmp_path / "run", sources)
    assert done.returncode != 0
    assert named in done.stdout + done.stderr
