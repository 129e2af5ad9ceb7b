"""A small bounded mapping that forgets the least recently used entry first (caches and recent-history sets)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """`get` and `put` both count as a use; with `maxsize` 0 nothing is kept."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def pop(self, key: K) -> V | None:
        return self._items.pop(key, None)

    def put(self, key: K, value: V) -> None:
        if self.maxsize <= 0:
            return
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.maxsize:
            self._items.popitem(last=False)
