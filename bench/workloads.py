"""The read workloads over the graph core, each on three sides: vaultgraph's GraphQL, the floor and the peer.

Every floor function mirrors what the service does for the same GraphQL operation, statement for statement
(see vaultgraph/services/notes.py and links.py), so `vaultgraph ÷ floor` is the price of HTTP, GraphQL and the
Python layers above the driver. The peer's queries ask the Neo4j GraphQL Library for the same objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.generate import Dataset, NoteSpec, Seeds
from bench.measure import Target
from bench.targets import Endpoint, Floor
from vaultgraph.domain import Direction
from vaultgraph.graph import whole_reads as whole_cypher
from vaultgraph.graph.note_query import query_statement
from vaultgraph.services.note_query import parse_order, parse_where

PAGE = 100  # the N+1 trap: a page of notes, each with its backlink count
BACKLINKS = 50
HOPS = 2
MAX_NODES = 200
GRAPH_EDGE_CAP = 5000  # services/links.py


@dataclass
class Workload:
    name: str
    targets: list[Target]
    note: str = ""
    per_object: int | None = None  # result size used for the "per object" overhead, when it matters


@dataclass
class Sides:
    """What a workload is built from: the endpoints, the floor, the data and the seeds."""

    vaultgraph: Endpoint
    floor: Floor
    peer: Endpoint | None
    dataset: Dataset
    seeds: Seeds
    skipped: dict[str, str] = field(default_factory=dict)

    def note(self, i: int) -> NoteSpec:
        return self.dataset.notes[i]


def _targets(*targets: Target | None) -> list[Target]:
    return [t for t in targets if t is not None]


def _fixed(variables: dict[str, Any]) -> Callable[[int], dict[str, Any]]:
    return lambda i: variables


# --- round trip: what each stack costs for nothing ------------------------------------------------------------

TYPENAME = "{ __typename }"


def round_trip(s: Sides) -> Workload:
    async def floor(worker: int, i: int) -> int:
        return len(await s.floor.graph.read(_return_one))

    return Workload("round trip: { __typename } (floor: RETURN 1)", _targets(
        s.vaultgraph.target(TYPENAME, _fixed({}), lambda d: 0),
        Target("floor", floor),
        s.peer.target(TYPENAME, _fixed({}), lambda d: 0) if s.peer else None,
    ), note="HTTP + GraphQL fixed cost")


async def _return_one(tx: Any) -> list[Any]:
    result = await tx.run("RETURN 1 AS one")
    return [record async for record in result]


# --- backlinks page: the first 50 with their context ---------------------------------------------------------
# No `createdAt` in the selection: the library formats a relationship's DateTime with APOC, which the bench's
# Neo4j (vaultgraph's embedded default) does not have. Both sides still order by it.

VG_BACKLINKS = """
query Backlinks($slug: String!) {
  note(slug: $slug) {
    id title
    backlinks(first: 50) {
      totalCount
      edges { cursor node { id type ref context from { id title ... on Note { slug } } } }
    }
  }
}"""

PEER_BACKLINKS = """
query Backlinks($tenant: String!, $slug: String!) {
  notes(where: { tenantId: { eq: $tenant }, slug: { eq: $slug } }) {
    id title
    backlinksConnection(first: 50, sort: [{ edge: { createdAt: ASC } }]) {
      totalCount
      edges { cursor properties { id ref context } node { id title slug } }
    }
  }
}"""


async def floor_backlinks(floor: Floor, slug: str) -> int:
    """The `note` resolver asked for a note's backlinks page and total: the note by slug, its page and its count in
    one auto-commit statement (graph/whole_reads.py, as services/whole_reads.py runs it)."""
    params = {"types": None, "ownerKeys": None, "afterTs": None, "afterId": None, "beforeTs": None,
              "beforeId": None, "limit": BACKLINKS + 1}
    # The selection asks no text of the backlinks' sources: their summaries (schema/prefetch.py summary_enough).
    statement = whole_cypher.note_with_links_statement(
        True, [whole_cypher.link_ask(False, True, True, params, summaries=True)])
    links = whole_cypher.link_params(0, params)
    [record] = await floor.read_one(statement, slug=slug, ownerKeys=None, preferOwner="shared", **links)
    return min(len(record["c0_page"]), BACKLINKS)


def backlinks(s: Sides, which: str, index: int) -> Workload:
    slug = s.note(index).slug
    degree = int(s.dataset.in_degree[index])

    async def floor(worker: int, i: int) -> int:
        return await floor_backlinks(s.floor, slug)

    return Workload(f"backlinks page (first {BACKLINKS}), {which}", _targets(
        s.vaultgraph.target(VG_BACKLINKS, _fixed({"slug": slug}),
                            lambda d: len(d["note"]["backlinks"]["edges"])),
        Target("floor", floor),
        s.peer.target(PEER_BACKLINKS, _fixed({"tenant": s.dataset.tenant, "slug": slug}),
                      lambda d: len(d["notes"][0]["backlinksConnection"]["edges"])) if s.peer else None,
    ), note=f"{degree} backlinks in all", per_object=min(degree, BACKLINKS))


# --- a page of 100 notes with their backlink counts (the N+1 trap) -------------------------------------------

VG_PAGE = """
query Page {
  notes(first: 100) {
    totalCount
    edges { cursor node { id title slug backlinks { totalCount } } }
  }
}"""

PEER_PAGE = """
query Page($tenant: String!) {
  notesConnection(first: 100, where: { tenantId: { eq: $tenant } }, sort: [{ updatedAt: DESC }, { id: ASC }]) {
    totalCount
    edges { cursor node { id title slug backlinksConnection { totalCount } } }
  }
}"""


async def floor_page(floor: Floor) -> int:
    """The `notes` resolver asked for a page with each note's backlink count: the page, its total and the 100
    counts in one auto-commit statement (graph/whole_reads.py, as services/whole_reads.py runs it)."""
    links = {"types": None, "ownerKeys": None, "afterTs": None, "afterId": None, "beforeTs": None, "beforeId": None,
             "limit": 21}
    statement = whole_cypher.notes_page_with_links_statement([whole_cypher.link_ask(False, False, True, links)])
    [record] = await floor.read_one(
        statement, ownerKeys=None, includeArchived=False, scope=None, kind=None, tag=None, pinned=None, afterTs=None,
        afterId=None, beforeTs=None, beforeId=None, limit=PAGE + 1, **whole_cypher.link_params(0, links))
    return min(len(record["rows"]), PAGE)


def notes_page(s: Sides) -> Workload:
    async def floor(worker: int, i: int) -> int:
        return await floor_page(s.floor)

    return Workload(f"page of {PAGE} notes with backlink counts", _targets(
        s.vaultgraph.target(VG_PAGE, _fixed({}), lambda d: len(d["notes"]["edges"])),
        Target("floor", floor),
        s.peer.target(PEER_PAGE, _fixed({"tenant": s.dataset.tenant}),
                      lambda d: len(d["notesConnection"]["edges"])) if s.peer else None,
    ), note="N+1 trap: 1 count query or 100?", per_object=PAGE)


# --- a property query: front matter filtered and sorted (Bases style) -----------------------------------------

QUERY_WHERE = {"and": [{"property": "status", "op": "eq", "value": "open"},
                       {"property": "priority", "op": "gte", "value": 5}]}
QUERY_ORDER = [{"property": "priority", "direction": "DESC"}]
VG_QUERY = """
query Query($where: NoteWhere, $order: [NoteOrder!]) {
  notes(where: $where, orderBy: $order, first: 100) { totalCount edges { node { id title } } }
}"""


async def floor_query(floor: Floor) -> int:
    """NoteService.query's one statement (the page and its total) in a read transaction."""
    statement, params = query_statement(parse_where(QUERY_WHERE), parse_order(QUERY_ORDER))
    [rows] = await floor.read_together((statement, {
        "ownerKeys": None, "includeArchived": False, "scope": None, "kind": None, "tag": None, "pinned": None,
        "offset": 0, "limit": PAGE + 1, **params}))
    return min(len(rows[0]["page"]), PAGE)


def property_query(s: Sides) -> Workload:
    async def floor(worker: int, i: int) -> int:
        return await floor_query(s.floor)

    return Workload(f"property query (status = open, priority >= 5, by priority), first {PAGE}", _targets(
        s.vaultgraph.target(VG_QUERY, _fixed({"where": QUERY_WHERE, "order": QUERY_ORDER}),
                            lambda d: len(d["notes"]["edges"])),
        Target("floor", floor),
    ), note="front matter as fm.* node properties, read with n[$key]", per_object=PAGE)


# --- 2-hop traversal, capped at 200 nodes ---------------------------------------------------------------------

VG_TRAVERSE = """
query Traverse($id: ID!) {
  traverse(from: [$id], hops: 2, maxNodes: 200) {
    count
    nodes { depth viaLinkId viaType direction fromId item { id title } }
  }
}"""

# The library has no bounded BFS: the nearest query nests both directions twice, and neither deduplicates nor caps.
PEER_TRAVERSE = """
query Neighbourhood($tenant: String!, $id: ID!) {
  notes(where: { tenantId: { eq: $tenant }, id: { eq: $id } }) {
    id
    links { id title links { id title } backlinks { id title } }
    backlinks { id title links { id title } backlinks { id title } }
  }
}"""

VG_GRAPH = """
query View($id: ID!) {
  graph(center: $id, hops: 2, limit: 201) {
    truncated
    nodes { id title }
    edges { id type from { id } to { id } }
  }
}"""


async def floor_traverse(floor: Floor, seed: str, max_nodes: int, truncate: bool, edges: bool = False) -> list[str]:
    """LinkService.traverse (and graph_view with `edges`): the seed check, both BFS levels (and the edges among what
    they reached) in one auto-commit statement, then the same cut-off rule over its rows."""
    params: dict[str, Any] = {"seeds": [seed], "frontier": [seed], "types": None, "ownerKeys": None,
                              "maxNodes": max_nodes}
    if edges:
        params["edgeLimit"] = GRAPH_EDGE_CAP
    # `traverse { nodes { item { id title } } }` asks no text: summaries; the graph view reads whole items.
    statement = whole_cypher.traversal_statement(Direction.BOTH, HOPS, edges, summaries=not edges)
    [record] = await floor.read_one(statement, **params)
    reached: list[str] = []
    for level in record["levels"]:
        for row in level:
            if len(reached) == max_nodes:
                if truncate:
                    return reached
                raise RuntimeError(f"LIMIT_EXCEEDED: more than {max_nodes} nodes")
            reached.append(row["m"]["id"])
    return reached


def _distinct_neighbours(data: dict[str, Any]) -> int:
    seen: set[str] = set()

    def walk(node: dict[str, Any]) -> None:
        for key in ("links", "backlinks"):
            for other in node.get(key) or ():
                seen.add(other["id"])
                walk(other)

    root = data["notes"][0]
    walk(root)
    seen.discard(root["id"])
    return len(seen)


def traverse(s: Sides) -> Workload:
    seed = s.note(s.seeds.traverse).id

    async def floor(worker: int, i: int) -> int:
        return len(await floor_traverse(s.floor, seed, MAX_NODES, truncate=False))

    return Workload(f"2-hop traverse (≤{MAX_NODES} nodes), ordinary note", _targets(
        s.vaultgraph.target(VG_TRAVERSE, _fixed({"id": seed}), lambda d: int(d["traverse"]["count"])),
        Target("floor", floor),
        s.peer.target(PEER_TRAVERSE, _fixed({"tenant": s.dataset.tenant, "id": seed}),
                      _distinct_neighbours) if s.peer else None,
    ), note=f"seed reaches {s.seeds.traverse_reach}; peer: nested, not deduplicated",
        per_object=s.seeds.traverse_reach)


def graph_view_hub(s: Sides) -> Workload:
    """From a hub, `traverse` refuses (more than 200 is an error by design), so the capped form is the explorer's
    `graph(center, hops: 2, limit: 201)`: the same BFS, cut at 200, plus the edges among the nodes."""
    hub = s.note(s.seeds.hub).id

    async def floor(worker: int, i: int) -> int:
        return 1 + len(await floor_traverse(s.floor, hub, MAX_NODES, truncate=True, edges=True))

    s.skipped.setdefault(
        "peer: 2-hop from a hub", "@neo4j/graphql has no capped BFS; a nested query returns every neighbour's "
        "neighbours (hundreds of thousands of rows) instead of stopping at 200")
    return Workload(f"2-hop graph view (cut at {MAX_NODES}), hub", _targets(
        s.vaultgraph.target(VG_GRAPH, _fixed({"id": hub}), lambda d: len(d["graph"]["nodes"])),
        Target("floor", floor),
    ), note=f"hub: {int(s.dataset.in_degree[s.seeds.hub])} backlinks", per_object=MAX_NODES + 1)


def graph_workloads(s: Sides) -> list[Workload]:
    return [
        round_trip(s),
        backlinks(s, "ordinary note", s.seeds.ordinary),
        backlinks(s, "hub", s.seeds.hub),
        notes_page(s),
        property_query(s),
        traverse(s),
        graph_view_hub(s),
    ]
