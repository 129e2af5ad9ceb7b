"""Fixtures for the security tests: a server that requires API keys (the `keys` fixture is in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings


@pytest.fixture(scope="module")
async def keyed_server(settings: Settings) -> AsyncIterator[RunningServer]:
    """Development mode off: every request needs a key. Keys are checked against Neo4j on every request
    (no cache), so a revocation bites at once. One server per module: keys and tenants isolate the tests."""
    keyed = settings.model_copy(update={"dev_mode": False, "port": 0, "api_key_cache_seconds": 0.0})
    async with run_server(keyed) as running:
        yield running
