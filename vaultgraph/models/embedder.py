"""`Embedder`: what every embedding backend is (the offline model, an OpenAI-compatible endpoint), in a module of its
own so the backends and the factory that picks one (client.py) need not import each other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Embedder(Protocol):
    """Anything that turns texts into vectors of a fixed size."""

    @property
    def model_name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    async def warm_up(self) -> float: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """The same vectors for a search's query text: a lane of their own, never queued behind indexing."""
        ...
