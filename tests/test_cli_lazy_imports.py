"""`vaultgraph --help` answers without importing the app: the CLI imports what a command needs when it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("vaultgraph.app", "uvicorn", "neo4j", "openai", "onnxruntime", "strawberry", "vaultgraph.services.notes")

# A fresh interpreter: the subprocess is what is under test (this process has imported everything already).
PROBE = """
import sys
from vaultgraph import cli
try:
    cli.main(["--help"])
except SystemExit as exit:
    assert exit.code == 0, exit.code
print("imported:" + ",".join(name for name in {heavy!r} if name in sys.modules))
"""


def test_help_imports_none_of_the_heavy_modules() -> None:
    run = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY)], cwd=REPO, capture_output=True,
                         text=True, timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert "usage: vaultgraph" in run.stdout
    assert run.stdout.splitlines()[-1] == "imported:", run.stdout.splitlines()[-1]
