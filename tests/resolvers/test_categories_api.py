"""EverOS's L0 tier: `categories` lists the taxonomy with descriptions and the caller's document counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.server import RunningServer
from vaultgraph.config import Settings
from vaultgraph.services.taxonomy import DEFAULT_CATEGORIES

pytestmark = [pytest.mark.api, pytest.mark.graph]

CREATE = "mutation($input: DocumentInput!) { createDocument(input: $input) { id } }"
CATEGORIES = "{ categories { name description documentCount inTaxonomy } }"
ALICE = {"X-Vaultgraph-Agent": "alice"}


async def test_categories_list_the_taxonomy_with_counts_scoped_to_the_caller(
    server: RunningServer, settings: Settings, tenant: str
) -> None:
    for path, category in (("a.md", "Finance"), ("b.md", "finance"), ("c.md", "Legal")):
        await server.data(CREATE, {"input": {"path": path, "content": "# x", "category": category}})
    await server.data(CREATE, {"input": {"path": "mine.md", "content": "# x", "category": "Legal",
                                         "scope": "PERSONAL", "agentId": "alice"}}, ALICE)

    listed = (await server.data(CATEGORIES, headers={"X-Vaultgraph-Agent": "bob"}))["categories"]
    assert [c["name"] for c in listed] == [c.id for c in DEFAULT_CATEGORIES]
    counts = {c["name"]: c["documentCount"] for c in listed}
    assert (counts["Finance"], counts["Legal"], counts["Technology"]) == (2, 1, 0)  # alice's is not bob's
    assert listed[0]["description"] == DEFAULT_CATEGORIES[0].description
    assert all(c["inTaxonomy"] for c in listed)
    alice = {c["name"]: c["documentCount"] for c in (await server.data(CATEGORIES, headers=ALICE))["categories"]}
    assert alice["Legal"] == 2

    # The tenant's own taxonomy, read at once; a category its documents still carry is listed after it, not lost.
    (Path(settings.workspace_dir) / tenant / ".taxonomy.md").write_text(
        "---\nkind: knowledge_taxonomy\ncategories:\n  - id: Finance\n    description: Money\n---\n")
    edited = (await server.data(CATEGORIES, headers={"X-Vaultgraph-Agent": "bob"}))["categories"]
    assert edited == [
        {"name": "Finance", "description": "Money", "documentCount": 2, "inTaxonomy": True},
        {"name": "Others", "description": "Fallback for unclassified documents", "documentCount": 0,
         "inTaxonomy": True},
        {"name": "Legal", "description": None, "documentCount": 1, "inTaxonomy": False},
    ]
