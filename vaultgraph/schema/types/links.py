"""Links, their connections, traversals and the explorer's graph view."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar, cast

import strawberry
from strawberry.dataloader import DataLoader

from vaultgraph import domain
from vaultgraph.schema.context import Context, Info
from vaultgraph.schema.execution import NOT_NOW, in_place
from vaultgraph.schema.loaders import CountKey, PageKey
from vaultgraph.schema.types.items import Direction, Document, Item, LinkOrigin, Node, Note, PageInfo, item_type

K = TypeVar("K")
V = TypeVar("V")
R = TypeVar("R")


def _now_or_later(loader: DataLoader[K, V], key: K, then: Callable[[V], R]) -> R:
    """`then(value)` at once when the loader holds the value already (read ahead with the item, see
    schema/prefetch.py, or loaded by an earlier field), else an awaitable of it. A resolver may return either:
    graphql-core awaits what is awaitable, and a field answered at once costs no coroutine and no task (a list of
    100 items with an async field each costs 100 tasks)."""
    answer = _now(loader, key, then)
    if answer is not NOT_NOW:
        return cast(R, answer)

    async def later() -> R:
        return then(await loader.load(key))

    return cast(R, later())


def _now(loader: DataLoader[K, V], key: K, then: Callable[[V], R]) -> R | object:
    """`then(value)` when the loader holds the value already, else NOT_NOW: what a field answers in place."""
    future = loader.cache_map.get(key)
    if future is not None and future.done() and not future.cancelled() and future.exception() is None:
        return then(future.result())
    return NOT_NOW


@strawberry.type(description="A typed edge between items. `to` is null while it points at a ghost (unresolved ref). "
                             "The same link reads the same through every field that lists it.")
class Link(Node):
    type: str = strawberry.field(description="WIKILINK, REFERENCES, DEPENDS_ON, … or another UPPER_SNAKE type.")
    ref: str = strawberry.field(description=(
        "The target exactly as authored, never rewritten: `Target Note` for [[Target Note#Part|alias]] (heading "
        "and alias apart, a final .md dropped); for a link made to an item by id, the item's slug or path."))
    key: str = strawberry.field(description=(
        "The resolution key binding compares: the ref case-folded and in slug form (`target-note`); a ghost is "
        "the placeholder of its key, and the link binds to whatever item the key names."))
    label: str | None = strawberry.field(description="The alias of [[Target|alias]]; null when none.")
    heading: str | None = strawberry.field(description="The heading of [[Target#Heading]]; null when none.")
    context: str | None = strawberry.field(description="About 25 characters of source either side of the link.")
    origin: LinkOrigin = strawberry.field(description="Who made it.")
    confidence: float | None = strawberry.field(description=(
        "0-1 for a guessed link (a fuzzy ghost binding, a classified link); null for exact or authored ones."))
    created_at: datetime = strawberry.field(description="When it was made (UTC); connections list links by it.")
    created_by_agent_id: str | None = strawberry.field(description=(
        "The agent whose request created the link (createLink, link_items, acceptSuggestion); null when a person "
        "made it, or for a [[wikilink]] (the note's text made it)."))
    _domain: strawberry.Private[domain.Link]

    # Endpoints already made schema objects by whoever listed the link (a graph view's nodes: its hub is an end of
    # most of its edges), by id; only ever the same domain items as the link's own.
    _typed: strawberry.Private[Mapping[str, Item] | None] = None

    # `from` and `to` answer at once when the statement that listed the link brought its endpoint (it mostly does).
    # They answer in place too (schema/execution.py `in_place`), by the same reading as their resolvers.
    @strawberry.field(name="from", description="The item the link starts at.",
                      metadata=in_place(lambda link, _: link._source_now()))
    def source(self, info: Info) -> Item:
        now = self._source_now()
        if now is not NOT_NOW:
            return cast(Item, now)
        return _now_or_later(info.context.loaders.items, self._domain.source_id, _visible_source)

    @strawberry.field(name="to", description="The item the link points at; null for a ghost.",
                      metadata=in_place(lambda link, _: link._target_now()))
    def target(self, info: Info) -> Item | None:
        now = self._target_now()
        if now is not NOT_NOW:
            return cast(Item | None, now)
        target_id = self._domain.target_id
        assert target_id is not None  # a ghost was answered now
        return _now_or_later(info.context.loaders.items, target_id, _maybe_item)

    def _source_now(self) -> Item | object:
        """The source's schema object when the statement brought it, else NOT_NOW."""
        return self._typed_item(self._domain.source) if self._domain.source is not None else NOT_NOW

    def _target_now(self) -> Item | None | object:
        """The target's schema object when the statement brought it, None for a ghost, else NOT_NOW."""
        if self._domain.target is not None:
            return self._typed_item(self._domain.target)
        return None if self._domain.target_id is None else NOT_NOW

    @strawberry.field(description="True while the link points at nothing yet.",
                      metadata=in_place(lambda link, _: link._domain.target_id is None))
    def is_ghost(self) -> bool:
        return self._domain.target_id is None

    def _typed_item(self, item: domain.Item) -> Item:
        typed = self._typed.get(item.id) if self._typed is not None else None
        return typed if typed is not None and getattr(typed, "_domain", None) is item else item_type(item)

    @classmethod
    def from_domain(cls, link: domain.Link, typed: Mapping[str, Item] | None = None) -> Link:
        """`typed`: schema objects of (some of) its endpoints' domain items, by id, made already."""
        return cls(id=strawberry.ID(link.id), type=link.type, ref=link.ref, key=link.key, label=link.label,
                   heading=link.heading, context=link.context, origin=link.origin, confidence=link.confidence,
                   created_at=link.created_at, created_by_agent_id=link.created_by_agent_id, _domain=link,
                   _typed=typed)


def _visible_source(item: domain.Item | None) -> Item:
    assert item is not None  # a link is only listed when its source is visible
    return item_type(item)


def _maybe_item(item: domain.Item | None) -> Item | None:
    return item_type(item) if item else None


@strawberry.type(description="A link in a page, with the cursor to page from it.")
class LinkEdge:
    cursor: str = strawberry.field(description="Opaque; pass it as `after` to continue after this link.")
    node: Link = strawberry.field(description="The link.")


@strawberry.type(description="A page of links. Fields load lazily and in batches across the items of a page.")
class LinkConnection:
    page_key: strawberry.Private[PageKey]
    count_key: strawberry.Private[CountKey]
    # True when the query asks for the page and its totalCount: then one loader reads both in one transaction;
    # a totalCount alone (a list of items with their counts) stays the cheap count statement.
    with_totals: strawberry.Private[bool] = False

    # Each field answers at once when its page or count is in the loaders already (see `_now_or_later`), and then
    # in place, without a resolve info (schema/execution.py `in_place`): a page of 100 notes asks 100 counts.
    def _page_loader(self, context: Context) -> DataLoader[PageKey, domain.Page[domain.Link]]:
        loaders = context.loaders
        return loaders.link_pages_with_totals if self.with_totals else loaders.link_pages

    def _page(self, info: Info, then: Callable[[domain.Page[domain.Link]], R]) -> R:
        return _now_or_later(self._page_loader(info.context), self.page_key, then)

    def _page_now(self, context: Context, then: Callable[[domain.Page[domain.Link]], R]) -> R | object:
        return _now(self._page_loader(context), self.page_key, then)

    def _total_ask(self, context: Context) -> tuple[DataLoader[Any, Any], Any, Callable[[Any], int]]:
        """Where the total is read: the page's own count when the page is read with it, else the count's loader."""
        if self.with_totals:
            return self._page_loader(context), self.page_key, _total
        return context.loaders.link_counts, self.count_key, int

    @strawberry.field(description="The links of this page, oldest first, with their cursors.",
                      metadata=in_place(lambda connection, context: connection._page_now(context, _edges)))
    def edges(self, info: Info) -> list[LinkEdge]:
        return self._page(info, _edges)

    @strawberry.field(description="The links of this page, without cursors.",
                      metadata=in_place(lambda connection, context: connection._page_now(context, _nodes)))
    def nodes(self, info: Info) -> list[Link]:
        return self._page(info, _nodes)

    @strawberry.field(description="Whether more pages follow, and the cursor to get them.",
                      metadata=in_place(lambda connection, context: connection._page_now(context, _page_info)))
    def page_info(self, info: Info) -> PageInfo:
        return self._page(info, _page_info)

    @strawberry.field(description="All links matching the filters, across pages.",
                      metadata=in_place(lambda connection, context: _now(*connection._total_ask(context))))
    def total_count(self, info: Info) -> int:
        return _now_or_later(*self._total_ask(info.context))


def _edges(page: domain.Page[domain.Link]) -> list[LinkEdge]:
    return [LinkEdge(cursor=cursor, node=Link.from_domain(link)) for cursor, link in page.items]


def _nodes(page: domain.Page[domain.Link]) -> list[Link]:
    return [Link.from_domain(link) for _, link in page.items]


def _page_info(page: domain.Page[domain.Link]) -> PageInfo:
    return PageInfo.of(page)


def _total(page: domain.Page[domain.Link]) -> int:
    return page.total_count


@strawberry.type(description="A node a traversal reached: how deep, and the link it came by, so a path can be drawn.")
class TraversalNode:
    item: Item = strawberry.field(description="The item reached (never a seed, never a ghost).")
    depth: int = strawberry.field(description="Hops from the nearest seed, 1 to `hops`.")
    via_link_id: strawberry.ID = strawberry.field(description="The link it was first reached by.")
    via_type: str = strawberry.field(description="That link's type.")
    direction: Direction = strawberry.field(description="OUT: followed the link forwards; IN: backwards.")
    from_id: strawberry.ID = strawberry.field(description="The item one step closer to the seeds.")

    @classmethod
    def from_domain(cls, reached: domain.Reached) -> TraversalNode:
        return cls(item=item_type(reached.item), depth=reached.depth, via_link_id=strawberry.ID(reached.via_link_id),
                   via_type=reached.via_type, direction=reached.via_direction, from_id=strawberry.ID(reached.from_id))


@strawberry.type(description="What a bounded traversal reached: never cut, an over-large result is an error.")
class TraversalResult:
    nodes: list[TraversalNode] = strawberry.field(description="Every item reached, nearest first.")
    count: int = strawberry.field(description="How many items were reached (the length of `nodes`).")


@strawberry.type(description="Nodes and resolved edges for drawing; ghosts are never drawn.")
class GraphView:
    nodes: list[Item] = strawberry.field(description="Items to draw, at most `limit`.")
    edges: list[Link] = strawberry.field(description="Resolved links among `nodes` (ghost links are never drawn).")
    truncated: bool = strawberry.field(description="True when the cap cut the view; ask for a smaller area.")
    reached: list[TraversalNode] = strawberry.field(description=(
        "With a `center`: how each item was reached from it; empty for the whole-tenant view."))
    edges_truncated: bool = strawberry.field(description=(
        "True when there are more edges among these nodes than a view carries (5,000); `edges` holds the oldest "
        "of them. Ask for a smaller area."))
    total_edges: int = strawberry.field(description="All the resolved edges among these nodes, before that cap.")


@strawberry.type(description="A shortest path between two items: the items along it and the links joining them.")
class GraphPath:
    nodes: list[Item] = strawberry.field(description="The items along the path, `from` first and `to` last.")
    links: list[Link] = strawberry.field(description=(
        "The links in order: `links[i]` joins `nodes[i]` and `nodes[i+1]`, pointing either way (see `from`/`to`)."))
    length: int = strawberry.field(description="How many links the path has (0 when `from` is `to`).")


__all__ = ["Document", "GraphPath", "GraphView", "Link", "LinkConnection", "Note", "TraversalResult"]
