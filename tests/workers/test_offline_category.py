"""The category pick without a chat model: zero-shot by embedding similarity to the taxonomy, through the real
pipeline and Neo4j with the offline model, and the cache of the taxonomy's vectors against the test server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.openai_server import OpenAICompatibleServer
from tests.workers.conftest import Harness
from vaultgraph.models import LocalModelClient, OpenAIModelClient
from vaultgraph.services.taxonomy import DEFAULT_CATEGORIES, DEFAULT_TAXONOMY, FALLBACK, Category, Taxonomy
from vaultgraph.workers.offline_category import OfflineCategories, category_texts, choose

pytestmark = [pytest.mark.graph, pytest.mark.workers]

LABELLED = json.loads((Path(__file__).parents[2] / "bench" / "data" / "category_set.json").read_text())["documents"]
OAUTH = "Signing in with OAuth"


def labelled(title: str) -> tuple[str, str]:
    """(category, markdown) of one document of the bench's labelled set."""
    [row] = [row for row in LABELLED if row["title"] == title]
    return row["category"], f"# {row['title']}\n\n{row['text']}\n"


async def categories_after_enrichment(harness: Harness, models: LocalModelClient, titles: list[str]) -> dict[str, str]:
    docs = {title: await harness.create_one(f"notes/doc-{n}.md", labelled(title)[1]) for n, title in enumerate(titles)}
    await harness.started(models)
    await harness.recorder.wait_final([doc.id for doc in docs.values()])
    return {title: (await harness.documents.get(harness.principal, doc.id)).category or "" for title, doc in
            docs.items()}


async def test_offline_documents_land_in_their_category_not_in_others(
    harness: Harness, offline_models: LocalModelClient
) -> None:
    titles = ["Rotating API keys", "Marathon training week 12", "Weeknight tomato pasta",
              "Three days in Lisbon", "Crop rotation plan for the north field", "Coping with anxiety at work"]
    picked = await categories_after_enrichment(harness, offline_models, titles)
    assert picked == {title: labelled(title)[0] for title in titles}


async def test_the_issues_technology_documents_land_in_technology_with_the_default_taxonomy(
    harness: Harness, offline_models: LocalModelClient
) -> None:
    # Issue 23.4: with no chat model these went to Others (the old cosine floor), then to Finance, Environment and
    # RealEstate (the terse default description alone); the default's everyday vocabulary puts them right.
    titles = [OAUTH, "Setting up the development environment", "Why the search endpoint got slow"]
    assert await categories_after_enrichment(harness, offline_models, titles) == dict.fromkeys(titles, "Technology")


async def test_an_oauth_document_follows_the_taxonomy_description_of_the_tenant(
    harness: Harness, offline_models: LocalModelClient
) -> None:
    # A tenant's own description of Technology (no default vocabulary then) that names the topic.
    tenant_root = harness.workspace.root / harness.principal.tenant_id
    tenant_root.mkdir(parents=True, exist_ok=True)
    technology = "Software, programming, APIs, authentication and OAuth, servers, setup, performance"
    entries = "".join(f"  - id: {c.id}\n    description: {technology if c.id == 'Technology' else c.description}\n"
                      for c in DEFAULT_CATEGORIES)
    (tenant_root / ".taxonomy.md").write_text(f"---\nkind: knowledge_taxonomy\ncategories:\n{entries}---\n")
    assert await categories_after_enrichment(harness, offline_models, [OAUTH]) == {OAUTH: "Technology"}


def test_the_winner_must_lead_the_others_by_a_standard_deviation() -> None:
    assert choose([0.9, 0.1, 0.12, 0.08]) == 0
    assert choose([0.1, 0.1, 0.1]) is None  # nothing stands out
    assert choose([0.5, 0.49, 0.0, 0.48, 0.02, 0.47]) is None  # leads by 0.21, the others spread 0.23
    assert choose([0.5, 0.49, 0.0, 0.48, 0.02, 0.47], min_lead=0.5) == 0
    assert choose([0.4]) == 0 and choose([]) is None


def test_a_category_is_embedded_whole_and_item_by_item() -> None:
    assert category_texts(Category("Kitchen", "Culinary, nutrition, food safety")) == [
        "Kitchen: Culinary, nutrition, food safety", "Culinary", "nutrition", "food safety"]
    # A default category as it ships has its field's everyday words too; changed, only its own.
    food = category_texts(Category("Food", "Culinary, nutrition, food safety"))
    assert food[:4] == ["Food: Culinary, nutrition, food safety", "Culinary", "nutrition", "food safety"]
    assert "recipes" in food and "cooking" in food
    assert category_texts(Category("Food", "Street food")) == ["Food: Street food"]
    assert category_texts(Category("Runbooks", "")) == ["Runbooks"]
    assert category_texts(Category("Ops", "Runbooks.")) == ["Ops: Runbooks."]


async def test_the_taxonomy_is_embedded_once_per_taxonomy_and_model(
    remote_models: OpenAIModelClient, model_server: OpenAICompatibleServer
) -> None:
    def embedded() -> list[str]:
        return [text for request in model_server.requests("embeddings") for text in request.body["input"]]

    categories = OfflineCategories(remote_models)
    [vector] = await remote_models.embed(["culinary nutrition recipes"])
    model_server.reset()
    assert await categories.pick(DEFAULT_TAXONOMY, [vector]) == ["Food"]
    assert await categories.pick(DEFAULT_TAXONOMY, [vector, vector]) == ["Food", "Food"]
    default_texts = [text for category in DEFAULT_TAXONOMY.choosable() for text in category_texts(category)]
    assert embedded() == default_texts
    small = Taxonomy((Category("Kitchen", "Culinary, recipes"), Category("Garage", "Cars, tools"),
                      Category("Garden", "Plants, lawn"), Category(FALLBACK, "")))
    assert await categories.pick(small, [vector]) == ["Kitchen"]
    assert embedded() == [*default_texts, "Kitchen: Culinary, recipes", "Culinary", "recipes", "Garage: Cars, tools",
                          "Cars", "tools", "Garden: Plants, lawn", "Plants", "lawn"]
    assert await categories.pick(Taxonomy((Category(FALLBACK, ""),)), [vector]) == [FALLBACK]
