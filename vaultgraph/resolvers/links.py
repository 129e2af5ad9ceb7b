"""Links, traversal, the graph view, JSON Canvas, and `node(id)`."""

from __future__ import annotations

from typing import Annotated, cast

import strawberry
from strawberry.scalars import JSON

from vaultgraph.interop.canvas import neighbourhood_canvas
from vaultgraph.schema.arguments import LinkTypes
from vaultgraph.schema.context import Info
from vaultgraph.schema.prefetch import fields_at, summary_enough
from vaultgraph.schema.types.inputs import DeletePayload, LinkInput
from vaultgraph.schema.types.items import Direction, Item, Node, Topic, item_type
from vaultgraph.schema.types.links import GraphPath, GraphView, Link, TraversalNode, TraversalResult
from vaultgraph.services.links import LinkDraft
from vaultgraph.services.topics import TOPIC_ID_PREFIX


async def node(
    info: Info,
    id: Annotated[strawberry.ID, strawberry.argument(description=(
        "A global id (`doc_…`, `note_…`, `lnk_…`, `topic_…`)."))],
) -> Node | None:
    """Any object by its global id (the Relay Node interface); null when it does not exist or you cannot see it."""
    ctx = info.context
    if str(id).startswith("lnk_"):
        link = await ctx.services.links.find(ctx.principal, str(id))
        return Link.from_domain(link) if link else None
    if str(id).startswith(TOPIC_ID_PREFIX):
        topic = await ctx.services.topics.find(ctx.principal, str(id))
        return Topic.from_domain(topic) if topic else None
    item = await ctx.services.links.find_item(ctx.principal, str(id))
    return item_type(item) if item else None


async def traverse(
    info: Info,
    from_: Annotated[list[strawberry.ID], strawberry.argument(name="from", description=(
        "Seed item ids, 1-100 (NOT_FOUND for one you cannot see); seeds are not in the result."))],
    hops: Annotated[int, strawberry.argument(description="Links to follow from a seed, 1-5.")] = 2,
    direction: Annotated[Direction, strawberry.argument(description="Which way to follow links.")] = Direction.BOTH,
    link_types: LinkTypes = None,
    max_nodes: Annotated[int, strawberry.argument(description=(
        "Most items to reach, 1-5,000; reaching more is LIMIT_EXCEEDED, never a silent cut."))] = 200,
) -> TraversalResult:
    """Bounded breadth-first search over resolved links (ghosts never followed); more than `maxNodes` is
    LIMIT_EXCEEDED, never a silent cut."""
    ctx = info.context
    # Items read without their text when the selection asks none of it (a traversal reaches up to 5,000).
    summaries = summary_enough(fields_at(info.selected_fields, "nodes", "item"))
    reached, _ = await ctx.services.links.traverse(
        ctx.principal, [str(i) for i in from_], hops=hops, direction=direction, types=link_types, max_nodes=max_nodes,
        summaries=summaries)
    return TraversalResult(nodes=[TraversalNode.from_domain(r) for r in reached], count=len(reached))


async def graph(
    info: Info,
    center: Annotated[strawberry.ID | None, strawberry.argument(description=(
        "Draw the neighbourhood of this item (NOT_FOUND if you cannot see it); null: the whole tenant."))] = None,
    hops: Annotated[int, strawberry.argument(description="With `center`: links to follow from it, 1-5.")] = 2,
    limit: Annotated[int, strawberry.argument(description="Most items to draw, 1-2,000; `truncated` says when "
                                                          "there were more.")] = 500,
    direction: Annotated[Direction, strawberry.argument(description=(
        "With `center`: which way to follow links from it (the whole-tenant view ignores it)."))] = Direction.BOTH,
    link_types: LinkTypes = None,
) -> GraphView:
    """Items and resolved links for drawing: the whole tenant (newest first) or a neighbourhood, capped at
    `limit` items and 5,000 edges, saying so (`truncated`, `edgesTruncated`)."""
    ctx = info.context
    view = await ctx.services.links.graph_view(ctx.principal, str(center) if center else None, hops, limit,
                                               direction, link_types)
    nodes: list[Item] = [item_type(n) for n in view.nodes]
    typed = {str(node.id): node for node in nodes}  # each edge's ends are among the nodes: made once, not per edge
    return GraphView(nodes=nodes, edges=[Link.from_domain(e, typed) for e in view.edges],
                     truncated=view.truncated, reached=[TraversalNode.from_domain(r) for r in view.reached],
                     edges_truncated=view.edges_truncated, total_edges=view.total_edges)


async def shortest_path(
    info: Info,
    from_: Annotated[strawberry.ID, strawberry.argument(name="from", description=(
        "Where the path starts (NOT_FOUND if you cannot see it)."))],
    to: Annotated[strawberry.ID, strawberry.argument(description="Where it ends (NOT_FOUND if you cannot see it).")],
    max_hops: Annotated[int, strawberry.argument(description="The longest path to look for, 1-5 links.")] = 5,
    direction: Annotated[Direction, strawberry.argument(description=(
        "OUT: follow links forwards only; IN: backwards only; BOTH: either way."))] = Direction.BOTH,
    link_types: LinkTypes = None,
) -> GraphPath | None:
    """The shortest path between two items over resolved links (ghosts never on it), through items you can see;
    null when none is at most `maxHops` long. One of the shortest when several are."""
    ctx = info.context
    path = await ctx.services.links.shortest_path(ctx.principal, str(from_), str(to), max_hops, direction, link_types)
    if path is None:
        return None
    return GraphPath(nodes=[item_type(n) for n in path.nodes], links=[Link.from_domain(e) for e in path.links],
                     length=len(path.links))


async def canvas(
    info: Info,
    center: Annotated[strawberry.ID, strawberry.argument(description=(
        "The item in the middle (NOT_FOUND if you cannot see it)."))],
    hops: Annotated[int, strawberry.argument(description="Links to follow from it, 1-5.")] = 1,
) -> JSON:
    """A JSON Canvas 1.0 document (Obsidian's open format: `nodes` and `edges`) of the neighbourhood of
    `center`, at most 200 items in rings by depth."""
    ctx = info.context
    return cast(JSON, await neighbourhood_canvas(ctx.services.links, ctx.principal, str(center), hops))


async def create_link(
    info: Info, input: Annotated[LinkInput, strawberry.argument(description="The link to make.")],
) -> Link:
    """A manual link of any type; made by an agent's key it records `origin: agent`. CONFLICT when the same
    link exists; INVALID_INPUT for a bad type, target or confidence."""
    ctx = info.context
    draft = LinkDraft(
        source_id=str(input.from_), type=input.type, target_id=str(input.to) if input.to else None, ref=input.ref,
        label=input.label, heading=input.heading, context=input.context, confidence=input.confidence,
    )
    return Link.from_domain(await ctx.services.links.create(ctx.principal, draft))


async def delete_link(
    info: Info, id: Annotated[strawberry.ID, strawberry.argument(description="The link (`lnk_…`).")],
) -> DeletePayload:
    """Remove one link. NOT_FOUND for a link you cannot write; LINK_OWNED_BY_BODY for a [[wikilink]] its
    source's text still holds (edit the text instead: the link would come back at its next save)."""
    ctx = info.context
    await ctx.services.links.delete(ctx.principal, str(id))
    return DeletePayload(id=id, deleted=True)
