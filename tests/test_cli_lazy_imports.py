"""`vaultgraph --help` answers without importing the app: the CLI imports what a command needs when it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("vaultgraph.app", "uvicorn", "neo4j", "openai", "onnxruntime", "strawberry", "vaultgraph.services.notes",
         "vaultgraph.config", "pydantic", "rich", "asyncio", "importlib.metadata")

# A fresh interpreter: the subprocess is what is under test (this process has imported everything already).
PROBE = """
import sys
from vaultgraph import cli
assert cli.main(["--help"]) == 0
print("imported:" + ",".join(name for name in {heavy!r} if name in sys.modules))
"""


def test_help_imports_none_of_the_heavy_modules() -> None:
    run = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY)], cwd=REPO, capture_output=True,
                         text=True, timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert "Usage: vaultgraph [OPTIONS] COMMAND" in run.stdout and "import-vault" in run.stdout
    assert run.stdout.splitlines()[-1] == "imported:", run.stdout.splitlines()[-1]


def test_the_entry_point_as_a_process_answers_help_and_refuses_a_mistyped_command() -> None:
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    entry = [sys.executable, "-m", "vaultgraph.cli"]
    helped = subprocess.run([*entry, "--help"], cwd=REPO, capture_output=True, text=True, timeout=120, env=env)
    assert helped.returncode == 0 and "rescan" in helped.stdout, helped.stderr
    wrong = subprocess.run([*entry, "rescna"], cwd=REPO, capture_output=True, text=True, timeout=120, env=env)
    assert wrong.returncode == 2 and "No such command 'rescna'" in wrong.stderr
