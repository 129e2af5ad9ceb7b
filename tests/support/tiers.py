"""How much of a sampled check `make test` runs, and how much `make test-all` runs (VAULTGRAPH_TEST_THOROUGH=1).

A check over random examples or over a sample of combinations keeps its property in the pre-commit suite at a
smaller size and runs whole in the slower tier (issue 20: nothing is dropped, the budget holds)."""

from __future__ import annotations

import os

THOROUGH = os.environ.get("VAULTGRAPH_TEST_THOROUGH", "") == "1"


def sized(quick: int, thorough: int) -> int:
    """`quick` in `make test`, `thorough` in `make test-all`."""
    return thorough if THOROUGH else quick
