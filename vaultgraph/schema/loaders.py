"""Per-request DataLoaders: a page of items with their links or link counts costs one query per kind, not N."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from strawberry.dataloader import DataLoader

from vaultgraph.domain import Item, Link, Page, Principal, Topic

if TYPE_CHECKING:
    from vaultgraph.schema.use_cases import Services


@dataclass(frozen=True, slots=True)
class PageKey:
    item_id: str
    outgoing: bool
    types: tuple[str, ...] | None
    first: int | None
    after: str | None
    last: int | None = None
    before: str | None = None


@dataclass(frozen=True, slots=True)
class CountKey:
    item_id: str
    outgoing: bool
    types: tuple[str, ...] | None


class Loaders:
    """A request's loaders. Their batch functions live on `_Reads`, which does not refer to the loaders: a loader
    given a bound method of the object that holds it is a reference cycle, and the request's context with all it
    loaded would wait for the cyclic collector instead of going with the answer (bench/README.md)."""

    def __init__(self, services: Services, principal: Principal) -> None:
        reads = _Reads(services, principal)
        self.items: DataLoader[str, Item | None] = DataLoader(load_fn=reads.items)
        self.link_pages: DataLoader[PageKey, Page[Link]] = DataLoader(load_fn=reads.pages)
        # For connections that ask for their links and their totalCount: both from one transaction.
        self.link_pages_with_totals: DataLoader[PageKey, Page[Link]] = DataLoader(load_fn=reads.pages_with_totals)
        self.link_counts: DataLoader[CountKey, int] = DataLoader(load_fn=reads.counts)
        self.topics: DataLoader[str, list[Topic]] = DataLoader(load_fn=reads.topics)  # by document id


class _Reads:
    """The loaders' batch functions, for one caller."""

    def __init__(self, services: Services, principal: Principal) -> None:
        self.services = services
        self.principal = principal

    async def items(self, ids: Sequence[str]) -> list[Item | None]:
        found = await self.services.links.items(self.principal, list(ids))
        return [found.get(item_id) for item_id in ids]

    async def topics(self, document_ids: Sequence[str]) -> list[list[Topic]]:
        found = await self.services.topics.of_documents(self.principal, list(document_ids))
        return [found.get(document_id, []) for document_id in document_ids]

    async def pages(self, keys: Sequence[PageKey]) -> list[Page[Link] | BaseException]:
        return await self._load_pages(keys, with_totals=False)

    async def pages_with_totals(self, keys: Sequence[PageKey]) -> list[Page[Link] | BaseException]:
        return await self._load_pages(keys, with_totals=True)

    async def _load_pages(self, keys: Sequence[PageKey], with_totals: bool) -> list[Page[Link] | BaseException]:
        # Keys differing only in their item share one statement.
        groups: dict[PageKey, list[str]] = defaultdict(list)
        for key in keys:
            groups[replace(key, item_id="")].append(key.item_id)
        results: dict[PageKey, Page[Link] | BaseException] = {}
        for shape, ids in groups.items():
            try:
                pages = await self.services.links.pages(
                    self.principal, ids, shape.outgoing, list(shape.types) if shape.types else None, shape.first,
                    shape.after, with_totals, last=shape.last, before=shape.before)
            except Exception as exc:  # an invalid argument fails exactly the fields that asked for it
                for item_id in ids:
                    results[replace(shape, item_id=item_id)] = exc
                continue
            for item_id in ids:
                results[replace(shape, item_id=item_id)] = pages[item_id]
        return [results[key] for key in keys]

    async def counts(self, keys: Sequence[CountKey]) -> list[int | BaseException]:
        groups: dict[tuple[bool, tuple[str, ...] | None], list[str]] = defaultdict(list)
        for key in keys:
            groups[(key.outgoing, key.types)].append(key.item_id)
        results: dict[CountKey, int | BaseException] = {}
        for (outgoing, types), ids in groups.items():
            try:
                counts = await self.services.links.counts(self.principal, ids, outgoing, list(types) if types else None)
            except Exception as exc:
                for item_id in ids:
                    results[CountKey(item_id, outgoing, types)] = exc
                continue
            for item_id in ids:
                results[CountKey(item_id, outgoing, types)] = counts.get(item_id, 0)
        return [results[key] for key in keys]
