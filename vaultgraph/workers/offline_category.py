"""The category pick when no chat model is configured: zero-shot, by embedding similarity to the taxonomy.

Each category is embedded as several texts with the configured embedder: its name with its description, and each
comma-separated item of the description alone ("CS, software, AI/ML, cloud, cybersecurity" gives five more). A
short item alone is a sharper target than the whole list, whose vector is an average of topics. A category's score
is its best cosine to the document's own vector (the one the embed phase made); the best category wins, unless it
does not stand out from the rest, and then the document is the fallback (`Others`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vaultgraph.lru import Lru
from vaultgraph.models import ModelClient
from vaultgraph.services.taxonomy import DEFAULT_CATEGORIES, FALLBACK, Category, Taxonomy

# The best category must lead the mean of the other categories' scores by more than this many standard deviations
# of those scores, else nothing stands out and the document is the fallback. The floor is taken from each
# document's own score distribution rather than a fixed cosine: cosines shift with the embedder, the length of the
# text and the taxonomy (the old 0.2 floor sent 35 of the 63 labelled documents of bench/data to Others under
# MiniLM, whose best cosine to a category there is 0.1 to 0.5), while "above the rest" holds for any of them.
# It is a low bar: with the twenty defaults the best of 19 scores leads the rest by about 1.8 deviations by chance
# alone (the expected maximum of 18 normal draws), so it sends to Others only a flat distribution (ties, a taxonomy
# of near-identical descriptions), not every off-topic text (bench/README.md, "Categories without a chat model").
MIN_LEAD_DEVIATIONS = 1.0
CACHE_SIZE = 8  # (taxonomy, embedding model) pairs; a tenant's taxonomy rarely changes, there are few of them

Matrix = np.ndarray[Any, np.dtype[np.float32]]


# The default categories' descriptions are written for a chat model, which knows that "CS, software" covers an OAuth
# login or a slow endpoint; a small embedding model matches words, and finds none of those there. So a default
# category whose description is still the default one is also embedded as the everyday words of its field (what
# people write in such a document, not the field's name). A category a tenant wrote or changed has only its own words.
DEFAULT_VOCABULARY: dict[str, str] = {
    "Technology": "software development, programming, source code, APIs, databases, servers, authentication, "
                  "OAuth login, passwords and tokens, encryption, deployment, installation and setup, "
                  "configuration, performance and latency, bugs, computers, networks, apps",
    "Science": "scientific research, experiments, laboratory, physics, chemistry, biology, astronomy, mathematics, "
               "hypotheses, genetics, molecules, particles",
    "Medical": "patients, doctors, hospitals, diagnosis, treatment, disease, symptoms, medication, vaccines, surgery, "
               "clinical trials, health care",
    "Finance": "money, investing, stocks, bonds, banks, loans, interest rates, budgets, taxes, accounting, payments, "
               "revenue, insurance",
    "Legal": "law, lawyers, courts, lawsuits, contracts, regulations, compliance, privacy law, patents, trademarks, "
             "copyright, licences, liability",
    "Education": "schools, students, teachers, classes, courses, lessons, exams, homework, universities, tutoring",
    "Business": "companies, customers, sales, marketing, management, strategy, hiring, employees, products, "
                "startups, suppliers",
    "Engineering": "mechanical design, bridges, structures, circuits, electronics, manufacturing, machines, "
                   "materials, power systems",
    "Arts": "painting, drawing, music, songs, novels, poetry, books, movies, theatre, photography, museums",
    "Sports": "football, basketball, running, training, exercise, gym, athletes, matches, coaching, fitness",
    "Travel": "trips, vacations, flights, hotels, airports, trains, tourism, destinations, itineraries, sightseeing",
    "Food": "cooking, recipes, meals, restaurants, ingredients, baking, diet, nutrition, kitchen",
    "Environment": "climate change, carbon emissions, pollution, ecosystems, wildlife, conservation, renewable "
                   "energy, recycling, forests, oceans",
    "Politics": "elections, government, parliament, diplomacy, political parties, voting, public policy",
    "History": "the past, ancient civilizations, wars, empires, historical events, centuries, archives, revolutions",
    "Psychology": "the mind, emotions, behaviour, mental health, anxiety, therapy, cognition, memory, habits, "
                  "motivation, stress",
    "Agriculture": "farms, farmers, crops, harvest, soil, livestock, irrigation, fertiliser, seeds",
    "RealEstate": "houses, apartments, rent, mortgages, property, buying a home, landlords, tenants, housing market",
    "Media": "news, journalism, newspapers, reporters, social media, broadcasting, press releases, podcasts, "
             "advertising",
}
_DEFAULT_DESCRIPTIONS = {category.id: category.description for category in DEFAULT_CATEGORIES}


def category_texts(category: Category) -> list[str]:
    """What one category is embedded as: "name: description", then each item of the description alone (and of
    its everyday vocabulary, for a default category as it ships)."""
    description = category.description.strip()
    whole = f"{category.id}: {description}" if description else category.id
    items = [item.strip() for item in description.split(",") if item.strip()]
    if _DEFAULT_DESCRIPTIONS.get(category.id) == category.description:
        items += [item.strip() for item in DEFAULT_VOCABULARY.get(category.id, "").split(",") if item.strip()]
    return [whole, *(item for item in items if item != description)]


@dataclass(frozen=True, slots=True)
class _Targets:
    categories: tuple[Category, ...]
    vectors: Matrix  # one unit row per text
    owners: np.ndarray[Any, np.dtype[np.intp]]  # the index in `categories` of each row


def _unit(matrix: Matrix) -> Matrix:
    unit: Matrix = matrix / np.clip(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12, None)
    return unit


def choose(scores: Sequence[float] | Matrix, min_lead: float = MIN_LEAD_DEVIATIONS) -> int | None:
    """The index of the winning score, or None when it leads the mean of the others by less than `min_lead` of
    their standard deviations (a tie included). A single score wins: there is nothing to compare it with."""
    values = np.asarray(scores, dtype=np.float64)
    if values.size == 0:
        return None
    best = int(np.argmax(values))
    others = np.delete(values, best)
    if others.size == 0:
        return best
    lead = float(values[best] - others.mean())
    return best if lead > min_lead * float(others.std()) else None


class OfflineCategories:
    """Picks categories for document vectors; the taxonomy's vectors are made once per (taxonomy, model)."""

    def __init__(self, models: ModelClient, cache_size: int = CACHE_SIZE) -> None:
        self.models = models
        self._targets: Lru[tuple[tuple[Category, ...], str], _Targets] = Lru(cache_size)

    async def pick(self, taxonomy: Taxonomy, vectors: Sequence[Sequence[float]]) -> list[str]:
        """One category id per vector, the fallback where none stands out."""
        if not vectors:
            return []
        targets = await self._targets_for(taxonomy)
        if not targets.categories:
            return [FALLBACK] * len(vectors)
        cosines = _unit(np.asarray(vectors, dtype=np.float32)) @ targets.vectors.T  # documents x texts
        scores = np.full((len(vectors), len(targets.categories)), -np.inf, dtype=np.float32)
        np.maximum.at(scores.T, targets.owners, cosines.T)  # each category's best text
        picks = []
        for row in scores:
            chosen = choose(row)
            picks.append(FALLBACK if chosen is None else targets.categories[chosen].id)
        return picks

    async def _targets_for(self, taxonomy: Taxonomy) -> _Targets:
        categories = taxonomy.choosable()
        key = (categories, self.models.embedding_model_name)
        cached = self._targets.get(key)
        if cached is not None:
            return cached
        texts, owners = [], []
        for index, category in enumerate(categories):
            for text in category_texts(category):
                texts.append(text)
                owners.append(index)
        vectors = _unit(np.asarray(await self.models.embed(texts), dtype=np.float32)) if texts else \
            np.zeros((0, self.models.embedding_dimensions), dtype=np.float32)
        targets = _Targets(categories, vectors, np.asarray(owners, dtype=np.intp))
        self._targets.put(key, targets)
        return targets
