"""The explorer knows the API from schema.graphql, not from introspection (issue 22, item 9): web/src/
schema.generated.ts is what web/scripts/schema-capabilities.mjs makes of the printed schema, so a schema change
without its regenerated module fails here (and in `npm run build`). VAULTGRAPH_UPDATE_SCHEMA=1 rewrites it, as it
rewrites schema.graphql (tests/test_schema_snapshot.py): run that one first."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
SCRIPT = WEB / "scripts" / "schema-capabilities.mjs"
GENERATED = WEB / "src" / "schema.generated.ts"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None, "node is required (make web needs it too): install Node.js 20 or newer"
    assert (WEB / "node_modules" / "graphql").is_dir(), "web/node_modules is missing: run `make web` (npm ci)"
    return subprocess.run([node, str(SCRIPT), *args], cwd=WEB, capture_output=True, text=True, timeout=60,
                          check=False)


def test_the_explorers_generated_schema_module_matches_schema_graphql() -> None:
    if os.environ.get("VAULTGRAPH_UPDATE_SCHEMA"):
        assert _run().returncode == 0
    checked = _run("--check")
    assert checked.returncode == 0, checked.stderr
    text = GENERATED.read_text()
    # What the panes look up is there: the root fields, a connection's backward arguments, an input's fields.
    for expected in ("roots: ", '{"name":"notes","type"', '{"name":"last","type"', '"name":"NoteInput"'):
        assert expected in text, expected


def test_a_stale_module_is_refused_naming_the_fix(tmp_path: Path) -> None:
    stale = tmp_path / "web"
    shutil.copytree(WEB / "scripts", stale / "scripts")
    (stale / "src").mkdir()
    (stale / "src" / "schema.generated.ts").write_text(GENERATED.read_text().replace('"name":"last"', '"name":"x"'))
    (stale / "node_modules").symlink_to(WEB / "node_modules")
    (tmp_path / "schema.graphql").write_text((WEB.parent / "schema.graphql").read_text())
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run([node, str(stale / "scripts" / SCRIPT.name), "--check"], cwd=stale, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "npm run generate:schema" in done.stderr
