"""The vector channel's similarity floor: below it, a neighbour is no more like the query than unrelated text is.

A vector index always returns its k nearest neighbours, however far: for a nonsense query ("qwzx blorf") those are
arbitrary items. The floor is read off the score distribution, per query, not set as a constant:

1. The null: the query's cosine to a background sample of ordinary, unrelated sentences (text/background.py),
   embedded by the same model. Its mean μ and standard deviation σ say what "unrelated" scores for this model
   (models differ widely: all-MiniLM puts unrelated pairs near 0.0, others near 0.7) and this query (a long
   generic question is closer to everything than a rare term).
2. The corpus size: the tenant's N items are N chances for an unrelated item to score high by luck. The floor is the
   score that, under a normal null, at most a share `alpha` (0.05) of corpora of N unrelated items would reach
   anywhere (Šidák's correction): `μ + σ·Φ⁻¹((1 - alpha)^(1/N))`, about μ + 2.1σ for 3 items and μ + 4.3σ for 5,000.
3. Never below the best background score: a hit must beat every unrelated sentence of the sample (the normal
   approximation is thin in the tail when the sample is small or the model's scores are skewed).

A hit must score above the floor to be brought in by the vector channel. Measured on SciFact in bench/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from vaultgraph.models.client import ModelClient
from vaultgraph.text.background import BACKGROUND_TEXTS

ALPHA = 0.05  # the conventional significance level, not a fitted constant


@dataclass(frozen=True, slots=True)
class Null:
    """The query's cosines to the background sample: mean, standard deviation, best."""

    mean: float
    std: float
    best: float

    def floor(self, items: int, alpha: float = ALPHA) -> float:
        """The floor for a corpus of `items` items (at least 1)."""
        per_item = 1.0 - (1.0 - alpha) ** (1.0 / max(1, items))  # Šidák: each item's share of alpha
        z = NormalDist().inv_cdf(1.0 - per_item)
        return max(self.mean + z * self.std, self.best)


def null_of(query: list[float], background: np.ndarray) -> Null:
    """`background`: the sample's vectors, one unit-length row each."""
    vector = np.asarray(query, dtype=np.float64)
    norm = float(np.linalg.norm(vector))
    scores = background @ (vector / norm) if norm > 0 else np.zeros(len(background))
    return Null(float(scores.mean()), float(scores.std()), float(scores.max()))


class Background:
    """The background sample embedded by the configured model, once per model name (a few hundred ms)."""

    def __init__(self, models: ModelClient) -> None:
        self.models = models
        self._vectors: dict[str, np.ndarray] = {}

    async def vectors(self) -> np.ndarray:
        """One unit-length row per background sentence."""
        name = self.models.embedding_model_name
        if name not in self._vectors:
            # On the query path (the first search computes it): the query lane, never behind indexing batches.
            matrix = np.asarray(await self.models.embed_query(list(BACKGROUND_TEXTS)), dtype=np.float64)
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            self._vectors[name] = matrix / np.where(norms > 0, norms, 1.0)
        return self._vectors[name]
