"""Links, their connections, traversals and the explorer's graph view."""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import datetime

import strawberry

from vaultgraph import domain
from vaultgraph.schema.context import Info
from vaultgraph.schema.loaders import CountKey, PageKey
from vaultgraph.schema.types import Direction, Document, Item, LinkOrigin, Node, Note, PageInfo, item_type


@strawberry.type(description="A typed edge between items. `to` is null while it points at a ghost (unresolved ref).")
class Link(Node):
    type: str
    ref: str = strawberry.field(description="The authored target, never rewritten.")
    label: str | None
    heading: str | None
    context: str | None = strawberry.field(description="About 25 characters of source either side of the link.")
    origin: LinkOrigin
    confidence: float | None
    created_at: datetime
    _domain: strawberry.Private[domain.Link]

    @strawberry.field(name="from", description="The item the link starts at.")
    async def source(self, info: Info) -> Item:
        if self._domain.source is not None:
            return item_type(self._domain.source)
        item = await info.context.loaders.items.load(self._domain.source_id)
        assert item is not None  # a link is only listed when its source is visible
        return item_type(item)

    @strawberry.field(name="to", description="The item the link points at; null for a ghost.")
    async def target(self, info: Info) -> Item | None:
        if self._domain.target is not None:
            return item_type(self._domain.target)
        if self._domain.target_id is None:
            return None
        item = await info.context.loaders.items.load(self._domain.target_id)
        return item_type(item) if item else None

    @strawberry.field(description="True while the link points at nothing yet.")
    def is_ghost(self) -> bool:
        return self._domain.target_id is None

    @classmethod
    def from_domain(cls, link: domain.Link) -> Link:
        return cls(id=strawberry.ID(link.id), type=link.type, ref=link.ref, label=link.label, heading=link.heading,
                   context=link.context, origin=link.origin, confidence=link.confidence,
                   created_at=link.created_at, _domain=link)


@strawberry.type
class LinkEdge:
    cursor: str
    node: Link


@strawberry.type(description="A page of links. Fields load lazily and in batches across the items of a page.")
class LinkConnection:
    page_key: strawberry.Private[PageKey]
    count_key: strawberry.Private[CountKey]
    # True when the query asks for the page and its totalCount: then one loader reads both in one transaction;
    # a totalCount alone (a list of items with their counts) stays the cheap count statement.
    with_totals: strawberry.Private[bool] = False

    def _page(self, info: Info) -> Awaitable[domain.Page[domain.Link]]:
        loaders = info.context.loaders
        return (loaders.link_pages_with_totals if self.with_totals else loaders.link_pages).load(self.page_key)

    @strawberry.field
    async def edges(self, info: Info) -> list[LinkEdge]:
        page = await self._page(info)
        return [LinkEdge(cursor=cursor, node=Link.from_domain(link)) for cursor, link in page.items]

    @strawberry.field
    async def nodes(self, info: Info) -> list[Link]:
        page = await self._page(info)
        return [Link.from_domain(link) for _, link in page.items]

    @strawberry.field
    async def page_info(self, info: Info) -> PageInfo:
        page = await self._page(info)
        return PageInfo(has_next_page=page.has_next_page, end_cursor=page.items[-1][0] if page.items else None)

    @strawberry.field(description="All links matching the filters, across pages.")
    async def total_count(self, info: Info) -> int:
        if self.with_totals:
            return (await self._page(info)).total_count
        return await info.context.loaders.link_counts.load(self.count_key)


@strawberry.type(description="A node a traversal reached: how deep, and the link it came by, so a path can be drawn.")
class TraversalNode:
    item: Item
    depth: int
    via_link_id: strawberry.ID
    via_type: str
    direction: Direction = strawberry.field(description="OUT: followed the link forwards; IN: backwards.")
    from_id: strawberry.ID = strawberry.field(description="The item one step closer to the seeds.")

    @classmethod
    def from_domain(cls, reached: domain.Reached) -> TraversalNode:
        return cls(item=item_type(reached.item), depth=reached.depth, via_link_id=strawberry.ID(reached.via_link_id),
                   via_type=reached.via_type, direction=reached.via_direction, from_id=strawberry.ID(reached.from_id))


@strawberry.type
class TraversalResult:
    nodes: list[TraversalNode]
    count: int


@strawberry.type(description="Nodes and resolved edges for drawing; ghosts are never drawn.")
class GraphView:
    nodes: list[Item]
    edges: list[Link]
    truncated: bool = strawberry.field(description="True when the cap cut the view; ask for a smaller area.")
    reached: list[TraversalNode]


__all__ = ["Document", "GraphView", "Link", "LinkConnection", "Note", "TraversalResult"]
