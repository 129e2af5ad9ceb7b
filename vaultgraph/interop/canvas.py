"""JSON Canvas (jsoncanvas.org, 1.0) of a neighbourhood: the items of `graph(center, hops)` in rings by depth, each
a `file` node naming the path the item has in an exported vault (interop/names.py), so Obsidian opens it."""

from __future__ import annotations

import math
from typing import Any

from vaultgraph.domain import Item, Principal
from vaultgraph.interop.names import vault_file
from vaultgraph.services.links import LinkService


async def neighbourhood_canvas(links: LinkService, principal: Principal, center: str, hops: int) -> dict[str, Any]:
    """A JSON Canvas 1.0 document of a neighbourhood: rings by depth around the center."""
    view = await links.graph_view(principal, center, hops, 200)
    depth = {view.nodes[0].id: 0} | {r.item.id: r.depth for r in view.reached}
    rings: dict[int, list[Item]] = {}
    for node in view.nodes:
        rings.setdefault(depth[node.id], []).append(node)
    canvas_nodes = []
    for ring, members in rings.items():
        for i, node in enumerate(members):
            angle = 2 * math.pi * i / len(members)
            canvas_nodes.append({
                "id": node.id, "type": "file",
                "file": vault_file(node),  # the path it has in an exported vault, as the spec asks
                "x": round(ring * 420 * math.cos(angle)) - 130, "y": round(ring * 420 * math.sin(angle)) - 40,
                "width": 260, "height": 80, "vaultgraph:title": node.title,
            })
    canvas_edges = [{"id": e.id, "fromNode": e.source_id, "toNode": e.target_id, "toEnd": "arrow",
                     "label": e.label or e.type} for e in view.edges]
    return {"nodes": canvas_nodes, "edges": canvas_edges}
