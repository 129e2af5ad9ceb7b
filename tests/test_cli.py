"""The command line in-process through `cli.main()`: exit codes, `--json`, plain progress lines and summaries.

The commands that need Neo4j run against the suite's; `main(argv, settings)` takes the test's settings in place of
the environment's. tests/test_cli_lazy_imports.py starts the entry point as a process."""

from __future__ import annotations

import asyncio
import fcntl
import io
import json
import os
import struct
import termios
import threading
from pathlib import Path

import pytest

from vaultgraph import cli
from vaultgraph.cli.output import Progress, Summary
from vaultgraph.config import Settings


def test_a_mistyped_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["import-vualt", "x"]) == 2
    assert "No such command 'import-vualt'" in capsys.readouterr().err


def test_a_missing_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["import-vault"]) == 2
    assert "Missing argument 'PATH'" in capsys.readouterr().err


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in cli.COMMANDS:
        assert cli.main([command, "--help"]) == 0, command
        assert f"Usage: vaultgraph {command}" in capsys.readouterr().out


def test_neo4j_status_of_a_local_server_not_running_is_exit_3_with_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(data_dir=tmp_path, log_level="WARNING")
    assert cli.main(["neo4j", "status", "--json"], settings) == 3
    status = json.loads(capsys.readouterr().out)
    assert status["running"] is False and status["data"] == str(tmp_path / "neo4j")


def test_plain_progress_prints_the_first_line_then_one_per_tenth() -> None:
    stream = io.StringIO()
    with Progress("import", stream=stream, rich=False) as progress:
        for done in range(1, 101):
            progress(done, 100, f"note{done}.md")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11 and "\r" not in stream.getvalue()
    assert lines[0] == f"[{'.' * 30}] 1/100 note1.md"
    assert lines[1] == f"[{'#' * 3}{'.' * 27}] 10/100 note10.md"
    assert lines[-1] == f"[{'#' * 30}] 100/100 note100.md"


def test_a_summary_is_aligned_lines_for_a_script_and_one_object_as_json() -> None:
    summary = Summary("3 files: 2 created, 1 skipped", [("created", 2), ("skipped", 1)], ["  skipped a.md: why"],
                      {"created": 2, "skipped": 1})
    plain, as_json = io.StringIO(), io.StringIO()
    summary.show(False, plain)
    summary.show(True, as_json)
    assert plain.getvalue().splitlines() == ["3 files: 2 created, 1 skipped", "  created  2", "  skipped  1",
                                             "  skipped a.md: why"]
    assert json.loads(as_json.getvalue()) == {"created": 2, "skipped": 1}


def test_on_a_terminal_progress_is_a_rich_bar_and_the_summary_a_table() -> None:
    """A real pseudo-terminal (`os.openpty`), 100 columns: both see a terminal and draw with rich."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    chunks: list[bytes] = []

    def drain() -> None:  # read as it is written, so a full pty buffer never blocks the writer
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other end is closed
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    with open(follower, "w", encoding="utf-8") as terminal:
        with Progress("import", stream=terminal) as progress:
            assert progress.rich
            for done in range(1, 4):
                progress(done, 3, f"note{done}.md")
        Summary("3 files: 3 created", [("created", 3), ("skipped", 0)], ["  all went in"], {}).show(False, terminal)
    reader.join(timeout=10)
    os.close(leader)
    shown = b"".join(chunks).decode()
    assert "import" in shown and "3/3" in shown and "note3.md" in shown
    assert "3 files: 3 created" in shown and "┃" in shown and "all went in" in shown  # rich's table border
    assert "[" + "#" * 30 + "]" not in shown  # not the plain lines a script gets


@pytest.mark.graph
async def test_import_vault_json_and_a_path_that_is_no_folder(
    settings: Settings, tenant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "One.md").write_text("The first note links [[Two]].\n")
    (vault / "Two.md").write_text("The second note.\n")

    assert await asyncio.to_thread(cli.main, ["import-vault", str(vault), "--tenant", tenant, "--json"],
                                   settings) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert (report["files"], report["created"], report["skipped"]) == (2, 2, 0)
    assert f"[{'#' * 30}] 2/2 " in err  # plain progress lines on a stream that is not a terminal

    missing = tmp_path / "nowhere"
    assert await asyncio.to_thread(cli.main, ["import-vault", str(missing), "--tenant", tenant], settings) == 1
    assert "is not a folder" in capsys.readouterr().err

    assert await asyncio.to_thread(cli.main, ["import-vault", str(vault), "--tenant", "no/slashes"], settings) == 1
    assert "--tenant" in capsys.readouterr().err

    exported = tmp_path / "out"
    assert await asyncio.to_thread(cli.main, ["export-vault", str(exported), "--tenant", tenant, "--json"],
                                   settings) == 0
    written = json.loads(capsys.readouterr().out)
    assert written["notes"] == 2 and sorted(p.name for p in exported.glob("*.md")) == ["One.md", "Two.md"]
