"""One server for a module of model-based tests: development mode (each tenant chosen per request by the
X-Vaultgraph-Tenant header), enrichment workers for the model's tenants only (a document's [[wikilinks]] are synced by
enrichment; World.new_tenant hands each tenant to them, so no other test's documents are enriched here), the offline
models (no chat model: link classification is skipped, so enrichment adds no typed links), and operation limits
raised so that one check is a few requests, not hundreds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings


@pytest.fixture(scope="module")
async def model_server(settings: Settings) -> AsyncIterator[RunningServer]:
    # No tenant's documents but those World.new_tenant adds (an empty list would mean every tenant).
    update = {"port": 0, "enrichment_tenants": ["model-tenants-only"], "rate_limit_per_second": 0.0,
              "max_aliases": 1000,
              "max_tokens": 100_000, "max_query_cost": 10_000_000}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


@pytest.fixture(scope="module")
def vault_root(workspace_root: Path) -> Path:
    """Where generated vaults are written and exports go: a folder of the server's data directory."""
    root = workspace_root / "model-vaults"
    root.mkdir(exist_ok=True)
    return root
