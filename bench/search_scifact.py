"""The SciFact search benchmark under the name the task list gave it; `search_quality.py` is the script."""

from __future__ import annotations

import runpy
from pathlib import Path

if __name__ == "__main__":
    runpy.run_path(str(Path(__file__).with_name("search_quality.py")), run_name="__main__")
