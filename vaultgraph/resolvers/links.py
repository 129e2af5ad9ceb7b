"""Links, traversal, the graph view, JSON Canvas, and `node(id)`."""

from __future__ import annotations

from typing import Annotated, cast

import strawberry
from strawberry.scalars import JSON

from vaultgraph.interop.canvas import neighbourhood_canvas
from vaultgraph.schema.context import Info
from vaultgraph.schema.inputs import DeletePayload, LinkInput
from vaultgraph.schema.links import GraphView, Link, TraversalNode, TraversalResult
from vaultgraph.schema.types import Direction, Node, item_type
from vaultgraph.services.links import LinkDraft


async def node(info: Info, id: strawberry.ID) -> Node | None:
    """Any object by its global id; null when it does not exist or is not visible."""
    ctx = info.context
    if str(id).startswith("lnk_"):
        link = await ctx.services.links.find(ctx.principal, str(id))
        return Link.from_domain(link) if link else None
    item = await ctx.services.links.find_item(ctx.principal, str(id))
    return item_type(item) if item else None


async def traverse(
    info: Info,
    from_: Annotated[list[strawberry.ID], strawberry.argument(name="from", description="Seed item ids.")],
    hops: int = 2,
    direction: Direction = Direction.BOTH,
    link_types: list[str] | None = None,
    max_nodes: int = 200,
) -> TraversalResult:
    """Bounded breadth-first search over resolved links; more than `maxNodes` is an error, never a silent cut."""
    ctx = info.context
    reached, _ = await ctx.services.links.traverse(
        ctx.principal, [str(i) for i in from_], hops=hops, direction=direction, types=link_types, max_nodes=max_nodes
    )
    return TraversalResult(nodes=[TraversalNode.from_domain(r) for r in reached], count=len(reached))


async def graph(info: Info, center: strawberry.ID | None = None, hops: int = 2, limit: int = 500) -> GraphView:
    """Items and resolved links for drawing: the whole tenant (newest first) or a neighbourhood, capped."""
    ctx = info.context
    view = await ctx.services.links.graph_view(ctx.principal, str(center) if center else None, hops, limit)
    return GraphView(nodes=[item_type(n) for n in view.nodes], edges=[Link.from_domain(e) for e in view.edges],
                     truncated=view.truncated, reached=[TraversalNode.from_domain(r) for r in view.reached],
                     edges_truncated=view.edges_truncated, total_edges=view.total_edges)


async def canvas(info: Info, center: strawberry.ID, hops: int = 1) -> JSON:
    """A JSON Canvas (Obsidian's open format) of the neighbourhood of `center`."""
    ctx = info.context
    return cast(JSON, await neighbourhood_canvas(ctx.services.links, ctx.principal, str(center), hops))


async def create_link(info: Info, input: LinkInput) -> Link:
    """A manual link of any type; made by an agent's key it records `origin: agent`."""
    ctx = info.context
    draft = LinkDraft(
        source_id=str(input.from_), type=input.type, target_id=str(input.to) if input.to else None, ref=input.ref,
        label=input.label, heading=input.heading, context=input.context, confidence=input.confidence,
    )
    return Link.from_domain(await ctx.services.links.create(ctx.principal, draft))


async def delete_link(info: Info, id: strawberry.ID) -> DeletePayload:
    """Remove one link (a [[wikilink]] comes back if its note's text still holds it when next changed)."""
    ctx = info.context
    await ctx.services.links.delete(ctx.principal, str(id))
    return DeletePayload(id=id, deleted=True)
