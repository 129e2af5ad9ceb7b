"""Typed links: manual create/delete, pages of outgoing links and backlinks (batched for DataLoaders), bounded
BFS, the explorer's graph view, JSON Canvas export, and hard delete (inbound edges become ghosts again)."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from vaultgraph.domain import Direction, Document, Item, Link, LinkOrigin, Note, Page, Principal, Reached
from vaultgraph.errors import Conflict, InvalidInput, LimitExceeded, LinkOwnedByBody, NotFound
from vaultgraph.graph import items as item_cypher
from vaultgraph.graph import links as cypher
from vaultgraph.graph import whole_reads
from vaultgraph.graph.records import link_from_record
from vaultgraph.graph.session import Graph
from vaultgraph.graph.wikilinks import lock_names
from vaultgraph.services.pagination import Window, encode_cursor, timestamp_cursor, window
from vaultgraph.services.wikilink_sync import (
    body_keys,
    canonical_ref,
    item_key,
    item_name,
    key_in,
    rebind_ghosts,
    resolve_refs,
)
from vaultgraph.text.resolve import key_name
from vaultgraph.text.wikilinks import parse
from vaultgraph.workspace import Workspace

KNOWN_TYPES = ("WIKILINK", "REFERENCES", "DEPENDS_ON", "EXTENDS", "RELATED", "SUPERSEDES", "CONTRADICTS",
               "MENTIONS", "DERIVED_FROM", "CHILD_OF", "TAGGED", "ATTENDED")
_TYPE_PATTERN = re.compile(r"^[A-Z][A-Z0-9_]{0,49}$")
MAX_HOPS = 5
MAX_TRAVERSAL_NODES = 5000
MAX_SEEDS = 100
GRAPH_NODE_CAP = 2000
GRAPH_EDGE_CAP = 5000  # edges a graph view carries at most; past it the view says `edgesTruncated`


def link_type(value: str, field: str = "type") -> str:
    """A relationship type from input: one of the design's, or a new one in UPPER_SNAKE_CASE (no migration)."""
    normalized = value.strip().upper()
    if not _TYPE_PATTERN.match(normalized):
        raise InvalidInput(field, f"{value!r} is not a link type; use one of {', '.join(KNOWN_TYPES)} or UPPER_SNAKE")
    return normalized


def link_types(values: list[str] | None, field: str = "types") -> list[str] | None:
    return [link_type(v, field) for v in values] if values else None


def link_page_params(
    principal: Principal, types: list[str] | None, first: int | None, after: str | None, max_page_size: int,
    last: int | None = None, before: str | None = None,
) -> tuple[Window, dict[str, Any]]:
    """The window and the parameters of a page of links (graph/links.py's page statements, without the tenant
    and the items): INVALID_INPUT for a bad size, cursor or type."""
    span = window(first, after, last, before, max_page_size, timestamp_cursor)
    return span, {"types": link_types(types), "ownerKeys": principal.visible_owner_keys(), **span.params("Ts")}


def link_cursor(link: Link) -> str:
    """A link's cursor in a connection of links (oldest first)."""
    return encode_cursor(link.created_at.isoformat(), link.id)


@dataclass(frozen=True, slots=True)
class LinkDraft:
    source_id: str
    type: str
    target_id: str | None = None
    ref: str | None = None
    label: str | None = None
    heading: str | None = None
    context: str | None = None
    confidence: float | None = None


@dataclass(frozen=True, slots=True)
class GraphView:
    nodes: list[Item]
    edges: list[Link]
    truncated: bool  # the node cap cut the view
    reached: list[Reached]
    edges_truncated: bool = False  # the edge cap (GRAPH_EDGE_CAP) cut the edges among the nodes
    total_edges: int = 0  # the edges among the nodes, before that cap


@dataclass(frozen=True)
class PathView:
    nodes: list[Item]  # from the source to the target
    links: list[Link]  # links[i] joins nodes[i] and nodes[i + 1], whichever way it points


class LinkService:
    def __init__(self, graph: Graph, workspace: Workspace, max_page_size: int) -> None:
        self.graph = graph
        self.workspace = workspace
        self.max_page_size = max_page_size

    async def item(self, principal: Principal, item_id: str, field: str = "id") -> Item:
        """A visible item, or NOT_FOUND — the same answer whether it is absent or someone else's."""
        found = await self.graph.read(item_cypher.item_by_id, principal.tenant_id, item_id)
        if found is None or not principal.may_read(found.owner):
            raise NotFound(f"no item with id {item_id!r}", id=item_id, field=field)
        return found

    async def find_item(self, principal: Principal, item_id: str) -> Item | None:
        found = await self.graph.read(item_cypher.item_by_id, principal.tenant_id, item_id)
        return found if found is not None and principal.may_read(found.owner) else None

    async def items(self, principal: Principal, item_ids: list[str]) -> dict[str, Item]:
        """Visible items by id, in one query; the absent and the invisible are simply missing."""
        found = await self.graph.read(item_cypher.items_by_ids, principal.tenant_id, item_ids)
        return {item_id: item for item_id, item in found.items() if principal.may_read(item.owner)}

    async def create(self, principal: Principal, draft: LinkDraft) -> Link:
        kind = link_type(draft.type)
        source = await self.item(principal, draft.source_id, "from")
        if not principal.may_write(source.owner):
            raise NotFound(f"no item with id {draft.source_id!r}", id=draft.source_id, field="from")
        if (draft.target_id is None) == (draft.ref is None):
            raise InvalidInput("to", "give exactly one of `to` (an item id) or `ref` (a name, may be a ghost)")
        if draft.confidence is not None and not 0.0 <= draft.confidence <= 1.0:
            raise InvalidInput("confidence", "between 0 and 1")
        target: Item | None = None
        if draft.target_id is not None:
            target = await self.item(principal, draft.target_id, "to")
            ref, key = canonical_ref(target), item_key(target)
        else:
            ref = (draft.ref or "").strip()
            key = key_in(source, ref) or ""
            if not key:
                raise InvalidInput("ref", "needs at least one letter or digit")
        # A duplicate the caller cannot see both ends of is answered as absent: naming it would tell what it
        # points at (a ghost's end is the name the caller typed).
        for existing, owner in await self.graph.read(cypher.links_with_key, principal.tenant_id, source.id, key,
                                                     kind):
            if owner is None or principal.sees_owner_key(owner):
                raise Conflict(f"{source.id} already has a {kind} link to {ref!r} ({existing})", id=existing)
        props: dict[str, Any] = {
            "id": f"lnk_{uuid.uuid4().hex}", "ref": ref, "key": key, "label": draft.label,
            "heading": draft.heading, "context": draft.context, "confidence": draft.confidence,
            "origin": "agent" if principal.agent_id else "user", "createdByAgentId": principal.agent_id,
        }
        row: dict[str, Any] = {"sourceId": source.id, "type": kind, "key": key,
                               "targetId": target.id if target else None, "props": props}
        await self.graph.write(self._create_tx, principal, source, row)
        link = await self.graph.read(cypher.link_by_id, principal.tenant_id, props["id"])
        assert link is not None  # written just above
        return link

    @staticmethod
    async def _create_tx(tx: Any, principal: Principal, source: Item, row: dict[str, Any]) -> None:
        """Write one link; by a ref, resolved here under the name's lock, so an item of that name saved meanwhile
        is either found or binds this link when it commits (never a ghost beside it)."""
        if row["targetId"] is None:
            await lock_names(tx, principal.tenant_id, [key_name(row["key"])])
            resolved = (await resolve_refs(tx, source, [row["key"]], row["type"])).get(row["key"])
            found = None if resolved is None else await item_cypher.item_by_id(tx, principal.tenant_id, resolved)
            if found is not None and principal.may_read(found.owner):
                row = {**row, "targetId": found.id}
        statement = cypher.CREATE_RESOLVED if row["targetId"] else cypher.CREATE_GHOSTED
        await cypher.run_counted(tx, cypher.WriteCount(), statement, tenant=principal.tenant_id, rows=[row])

    async def find(self, principal: Principal, link_id: str) -> Link | None:
        link = await self.graph.read(cypher.link_by_id, principal.tenant_id, link_id)
        if link is None or link.source is None or not principal.may_read(link.source.owner):
            return None
        if link.target is not None and not principal.may_read(link.target.owner):
            return None
        return link

    async def get(self, principal: Principal, link_id: str) -> Link:
        link = await self.find(principal, link_id)
        if link is None:
            raise NotFound(f"no link with id {link_id!r}", id=link_id)
        return link

    async def delete(self, principal: Principal, link_id: str) -> Link:
        """Remove a link; LINK_OWNED_BY_BODY for a [[wikilink]] its source's text still holds (the text is the
        truth: the edge would come back at the next save, so the text is what to edit)."""
        link = await self.get(principal, link_id)
        assert link.source is not None  # checked by get
        if not principal.may_write(link.source.owner):
            raise NotFound(f"no link with id {link_id!r}", id=link_id)
        if link.origin is LinkOrigin.WIKILINK and link.type == "WIKILINK":
            source = link.source
            if isinstance(source, Document):
                raise LinkOwnedByBody(
                    f"the link to {link.ref!r} is a [[wikilink]] in the document {source.path!r}; edit the document's "
                    "file to remove it", id=link_id)
            if isinstance(source, Note) and link.key in body_keys(source, parse(source.body).all_links):
                raise LinkOwnedByBody(
                    f"the link to {link.ref!r} is a [[wikilink]] in the body of the note {source.slug!r}; edit the "
                    "note's body (saveNote) to remove it", id=link_id)
        await self.graph.write(cypher.run_counted, cypher.WriteCount(), cypher.DELETE_LINK,
                               tenant=principal.tenant_id, linkId=link_id)
        return link

    async def pages(
        self, principal: Principal, item_ids: list[str], outgoing: bool, types: list[str] | None,
        first: int | None, after: str | None, with_totals: bool = False, last: int | None = None,
        before: str | None = None,
    ) -> dict[str, Page[Link]]:
        """Pages of links for many items in one query (a DataLoader batches these), oldest first, between the
        cursors: the first `first` or the last `last`. With `with_totals`, each page's `total_count` comes from the
        same transaction (one round trip for a connection asking for both)."""
        span, params = link_page_params(principal, types, first, after, self.max_page_size, last, before)
        params.update(tenant=principal.tenant_id, ids=item_ids)
        totals: dict[str, int] = {}
        if with_totals:
            rows, totals = await self.graph.read(cypher.link_pages_and_counts, outgoing, span.backward, **params)
        else:
            rows = await self.graph.read(cypher.link_pages, outgoing, span.backward, **params)
        return {item_id: span.page(links, link_cursor, totals.get(item_id, 0)) for item_id, links in rows.items()}

    async def counts(
        self, principal: Principal, item_ids: list[str], outgoing: bool, types: list[str] | None
    ) -> dict[str, int]:
        return await self.graph.read(cypher.link_counts, outgoing, tenant=principal.tenant_id, ids=item_ids,
                                     types=link_types(types), ownerKeys=principal.visible_owner_keys())

    async def traverse(
        self, principal: Principal, seeds: list[str], hops: int = 2, direction: Direction = Direction.BOTH,
        types: list[str] | None = None, max_nodes: int = 200, truncate: bool = False, summaries: bool = False,
    ) -> tuple[list[Reached], bool]:
        """Bounded BFS over resolved edges: the seed check and every level in one statement. Past `max_nodes`:
        LIMIT_EXCEEDED, or with `truncate` (the explorer's view) stop there and say so. With `summaries` the items
        reached come without their text (graph/records.py ITEM_SUMMARY_FIELDS), for a caller that shows none."""
        if not 1 <= hops <= MAX_HOPS:
            raise InvalidInput("hops", f"between 1 and {MAX_HOPS}")
        if not 1 <= max_nodes <= MAX_TRAVERSAL_NODES:
            raise InvalidInput("maxNodes", f"between 1 and {MAX_TRAVERSAL_NODES}")
        if not seeds or len(seeds) > MAX_SEEDS:
            raise InvalidInput("from", f"give 1 to {MAX_SEEDS} item ids")
        link_types(types, "linkTypes")
        _, reached, truncated, _, _ = await self._traverse(
            principal, seeds, "from", hops, direction, types, max_nodes, truncate, summaries=summaries)
        return reached, truncated

    async def _traverse(
        self, principal: Principal, seeds: list[str], field: str, hops: int, direction: Direction,
        types: list[str] | None, max_nodes: int, truncate: bool, edges: bool = False, summaries: bool = False,
    ) -> tuple[list[Item], list[Reached], bool, list[Link], int]:
        """The seeds (NOT_FOUND for one the caller cannot see) and the BFS from them, one statement; with `edges`
        the resolved edges among the seeds and what the BFS kept, too (the explorer's view: the first
        GRAPH_EDGE_CAP, and how many there are)."""
        frontier = list(dict.fromkeys(seeds))
        params: dict[str, Any] = {
            "tenant": principal.tenant_id, "seeds": frontier, "frontier": frontier,
            "types": link_types(types, "linkTypes"), "ownerKeys": principal.visible_owner_keys(),
            "maxNodes": max_nodes,
        }
        if edges:
            params["edgeLimit"] = GRAPH_EDGE_CAP
        found = await whole_reads.traversal(self.graph, direction, hops, edges, summaries, **params)
        roots: list[Item] = []
        for seed in seeds:
            item = found.seeds.get(seed)
            if item is None or not principal.may_read(item.owner):
                raise NotFound(f"no item with id {seed!r}", id=seed, field=field)
            roots.append(item)
        reached, truncated = self._cut(found.levels, set(seeds), max_nodes, truncate)
        links: list[Link] = []
        if edges:
            by_id = {item.id: item for item in (*roots, *(r.item for r in reached))}
            links = [link_from_record(row, items=by_id) for row in found.edges]
        return roots, reached, truncated, links, found.total_edges

    @staticmethod
    def _cut(
        levels: list[list[dict[str, Any]]], visited: set[str], max_nodes: int, truncate: bool
    ) -> tuple[list[Reached], bool]:
        """The BFS levels as reached items, depth by depth, stopping at `max_nodes` (each level holds at most one
        item more than the traversal could still take: that one says "over")."""
        reached: list[Reached] = []
        for depth, rows in enumerate(levels, start=1):
            grew = False
            for row in rows:
                item = row["item"]
                if item.id in visited:
                    continue
                if len(reached) == max_nodes:
                    if truncate:
                        return reached, True
                    raise LimitExceeded(
                        f"the traversal reaches more than maxNodes={max_nodes} items; narrow it with fewer hops, "
                        "linkTypes or a direction, or raise maxNodes", field="maxNodes", limit=max_nodes)
                visited.add(item.id)
                grew = True
                reached.append(Reached(item=item, depth=depth, via_link_id=row["linkId"], via_type=row["type"],
                                       via_direction=Direction.OUT if row["outgoing"] else Direction.IN,
                                       from_id=row["fid"]))
            if not grew:
                break
        return reached, False

    async def graph_view(
        self, principal: Principal, center: str | None, hops: int, limit: int,
        direction: Direction = Direction.BOTH, types: list[str] | None = None,
    ) -> GraphView:
        """Nodes and resolved edges for the explorer, capped and saying so (ghosts never drawn); with a center, the
        neighbourhood `direction` and `types` allow (the explorer's local graph)."""
        if not 1 <= limit <= GRAPH_NODE_CAP:
            raise InvalidInput("limit", f"between 1 and {GRAPH_NODE_CAP}")
        if not 1 <= hops <= MAX_HOPS:  # refused, not clamped, even where the whole graph ignores it
            raise InvalidInput("hops", f"between 1 and {MAX_HOPS}")
        link_types(types, "linkTypes")
        if center is None:
            nodes, truncated, edges, total = await self.graph.read(
                cypher.global_graph, principal.tenant_id, principal.visible_owner_keys(), limit, GRAPH_EDGE_CAP)
            return GraphView(nodes, edges, truncated, [], total > len(edges), total)
        [root], reached, truncated, edges, total = await self._traverse(
            principal, [center], "center", hops, direction, types, max(1, limit - 1), True, True)
        return GraphView([root, *(r.item for r in reached)], edges, truncated, reached, total > len(edges), total)

    async def shortest_path(
        self, principal: Principal, source: str, target: str, max_hops: int = MAX_HOPS,
        direction: Direction = Direction.BOTH, types: list[str] | None = None,
    ) -> PathView | None:
        """The shortest path from `source` to `target` over resolved links, at most `max_hops` long, through items
        the caller can see; None when there is none that short. NOT_FOUND for an end the caller cannot see."""
        if not 1 <= max_hops <= MAX_HOPS:
            raise InvalidInput("maxHops", f"between 1 and {MAX_HOPS}")
        kinds = link_types(types, "linkTypes")
        start = await self.item(principal, source, "from")
        await self.item(principal, target, "to")
        if source == target:
            return PathView([start], [])
        ends = {"from": source, "to": target}  # Cypher parameter names, not Python ones
        found = await self.graph.read(cypher.shortest_path, direction, max_hops, tenant=principal.tenant_id,
                                      ownerKeys=principal.visible_owner_keys(), types=kinds, **ends)
        return PathView(*found) if found else None

    async def hard_delete(self, principal: Principal, item: Item) -> None:
        """Remove the item, its chunks and outbound edges; inbound edges turn back into ghosts, and those whose key
        still names another item bind to it."""
        await self.graph.write(self._hard_delete_tx, principal.tenant_id, item.id, item_name(item))
        if isinstance(item, Document):
            await self.workspace.remove(self.workspace.file_for(principal.tenant_id, item.owner, item.path))

    @staticmethod
    async def _hard_delete_tx(tx: Any, tenant: str, item_id: str, name: str) -> None:
        # First the name's lock: a save resolving this name meanwhile waits and then finds the item gone.
        await lock_names(tx, tenant, [name])
        await (await tx.run(cypher.UNBIND_INBOUND, tenant=tenant, id=item_id)).consume()
        await (await tx.run(cypher.DELETE_ITEM, tenant=tenant, id=item_id)).consume()
        await rebind_ghosts(tx, tenant, [name])
