"""Whole-request reads: one statement for what a GraphQL request would otherwise ask in several.

Every transaction costs round trips (BEGIN, the statements, COMMIT: each a Bolt exchange, each a wake-up of a
Neo4j worker thread), and on a small machine those cost more than the reading itself. So the reads a request
makes most often are single statements here:

- a note (by slug or id) with the link pages and counts its selection asks for (`note_with_links`);
- a page of notes with its total and, per note, the link pages and counts asked (`notes_page_with_links`);
- a bounded BFS, every level in one statement, with the seed check (`traversal`), and for the explorer's view
  the edges among what it reached too.

They return exactly what the statements they stand for return (`graph/notes.py`'s note and page statements,
`graph/links.py`'s pages, counts and BFS level, `graph/items.py`'s seed check), in the same order with the same
cut rules; tests/graph/test_whole_reads.py holds them to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vaultgraph.domain import Direction, Item, Link, Note
from vaultgraph.graph import items as item_cypher
from vaultgraph.graph import links as link_cypher
from vaultgraph.graph import notes as note_cypher
from vaultgraph.graph.records import (
    item_from_node,
    item_map,
    item_summary_map,
    link_from_record,
    link_map,
    note_from_node,
    note_map,
    vanished,
)
from vaultgraph.graph.session import Graph


@dataclass(frozen=True, slots=True)
class LinkAsk:
    """One link connection a request asks of each item: its page (rows up to `$<p>limit`), its total, or both.
    Its parameters are those of links.py's page statements, prefixed with `c<i>_`; with `degree` its total is the
    item's degree (links.py BACKLINK_DEGREES: no type or owner to filter on); with `summaries` its page brings
    the other ends as `item_summary_map`s."""

    outgoing: bool
    page: bool
    count: bool
    degree: bool = False
    summaries: bool = False


def link_ask(outgoing: bool, page: bool, count: bool, params: Mapping[str, Any], summaries: bool = False) -> LinkAsk:
    """The ask for a connection read with these parameters (links.py's page statements')."""
    return LinkAsk(outgoing, page, count, degree=count and link_cypher.counted_by_degree(outgoing, params),
                   summaries=summaries)


def _prefix(i: int) -> str:
    return f"c{i}_"


def _page_call(ask: LinkAsk, p: str) -> str:
    """links.py's `page_rows` (its parameters prefixed), read forward, collected in order into one list per item
    (a connection paging backward is not read ahead: services/whole_reads.py)."""
    return f"""
CALL (n) {{
  {link_cypher.page_rows(ask.outgoing, backward=False).replace("$", "$" + p)}
  RETURN collect({{r: {link_map('r')}, other: {(item_summary_map if ask.summaries else item_map)('other')}}}) AS {p}page
}}"""


def _count_call(ask: LinkAsk, p: str) -> str:
    """links.py's OUTGOING_COUNTS / BACKLINK_COUNTS / BACKLINK_DEGREES for the item bound to `n`."""
    if ask.degree:
        return f"""
CALL (n) {{
  RETURN {link_cypher.DEGREE} AS {p}total
}}"""
    if ask.outgoing:
        match = "OPTIONAL MATCH (n)-[r]->(other)\n  WHERE (other:Item OR other:Ghost)"
        owners = f"(${p}ownerKeys IS NULL OR other:Ghost OR other.ownerKey IN ${p}ownerKeys)"
    else:
        match = "OPTIONAL MATCH (n)<-[r]-(other:Item)\n  WHERE true"
        owners = f"(${p}ownerKeys IS NULL OR other.ownerKey IN ${p}ownerKeys)"
    return f"""
CALL (n) {{
  {match} AND (${p}types IS NULL OR type(r) IN ${p}types) AND {owners}
  RETURN count(r) AS {p}total
}}"""


def _link_calls(asks: Sequence[LinkAsk]) -> str:
    calls = []
    for i, ask in enumerate(asks):
        if ask.page:
            calls.append(_page_call(ask, _prefix(i)))
        if ask.count:
            calls.append(_count_call(ask, _prefix(i)))
    return "".join(calls) + "\n"


def _link_columns(asks: Sequence[LinkAsk]) -> list[str]:
    columns = []
    for i, ask in enumerate(asks):
        if ask.page:
            columns.append(f"{_prefix(i)}page")
        if ask.count:
            columns.append(f"{_prefix(i)}total")
    return columns


def link_params(i: int, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of links.py's page statements (`types`, `ownerKeys`, `afterTs`, `afterId`, `limit`) for
    connection `i`."""
    return {f"{_prefix(i)}{key}": value for key, value in params.items()}


def _rows_of(statement: str, returned: str) -> str:
    """`statement` without its final `RETURN <returned>`: the rows it returns, still bound to their variables."""
    head, found, tail = statement.rpartition("RETURN ")
    if not found or tail.strip() != returned:
        raise RuntimeError(f"expected a statement ending in RETURN {returned}: {statement!r}")
    return head


_NOTE = note_map("n") + " AS n"
_NOTE_BY_SLUG_ROWS = _rows_of(note_cypher.NOTE_BY_SLUG, _NOTE)
_NOTE_BY_ID_ROWS = _rows_of(note_cypher.NOTE_BY_ID, _NOTE) + "\n"
_NOTES_PAGE_ROWS = {False: _rows_of(note_cypher.NOTES_PAGE, _NOTE),
                    True: _rows_of(note_cypher.NOTES_PAGE_BACKWARD, _NOTE)}  # by `backward`


def note_with_links_statement(by_slug: bool, asks: Sequence[LinkAsk]) -> str:
    """NOTE_BY_SLUG (or NOTE_BY_ID) and, for the note found, the link pages and counts of `asks`."""
    rows = _NOTE_BY_SLUG_ROWS if by_slug else _NOTE_BY_ID_ROWS
    return rows + _link_calls(asks) + "RETURN " + ", ".join([_NOTE, *_link_columns(asks)])


def notes_page_with_links_statement(asks: Sequence[LinkAsk], backward: bool = False) -> str:
    """COUNT_NOTES, then NOTES_PAGE (or NOTES_PAGE_BACKWARD) with the link pages and counts of `asks` for each
    note: one record."""
    # The page's order is numbered where it is made (`i`), so no later clause has to keep it.
    entries = ", ".join(["i: i", f"n: {note_map('n')}", *(f"{c}: {c}" for c in _link_columns(asks))])
    return (f"CALL () {{\n{note_cypher.COUNT_NOTES}}}\n"
            f"CALL () {{\n{_NOTES_PAGE_ROWS[backward]}WITH collect(n) AS page\n"
            "UNWIND range(0, size(page) - 1) AS i\nWITH i, page[i] AS n"
            f"{_link_calls(asks)}RETURN collect({{{entries}}}) AS rows\n}}\n"
            "RETURN total, rows")


@dataclass(frozen=True, slots=True)
class LinkResult:
    """What one connection's statement parts gave for one item: the rows of its page (up to `limit`, one more
    than the page shows) and its total."""

    links: list[Link] | None
    total: int | None


def _link_results(record: Any, asks: Sequence[LinkAsk]) -> list[LinkResult]:
    results = []
    for i, ask in enumerate(asks):
        p = _prefix(i)
        links = None
        if ask.page:
            # The links name their own ends (exactly as links.py's `link_pages` maps them).
            links = [link_from_record(row["r"], row["other"]) for row in record[f"{p}page"]]
        results.append(LinkResult(links, int(record[f"{p}total"]) if ask.count else None))
    return results


async def note_with_links(
    graph: Graph, asks: Sequence[LinkAsk], **params: Any
) -> tuple[Note, list[LinkResult]] | None:
    """`params`: those of NOTE_BY_SLUG (with `slug`) or NOTE_BY_ID (with `id`), plus `link_params` per ask."""
    records = await graph.read_records(note_with_links_statement("slug" in params, asks), **params)
    if not records:
        return None
    [record] = records
    if vanished(record["n"]):  # deleted by a concurrent transaction after the MATCH
        return None
    return note_from_node(record["n"]), _link_results(record, asks)


async def notes_page_with_links(
    graph: Graph, asks: Sequence[LinkAsk], backward: bool = False, **params: Any
) -> tuple[list[tuple[Note, list[LinkResult]]], int]:
    """`params`: those of NOTES_PAGE, plus `link_params` per ask. The notes in reading order (backward: the
    nearest to `before` first), and the total."""
    [record] = await graph.read_records(notes_page_with_links_statement(asks, backward), **params)
    page = []
    for row in sorted(record["rows"], key=lambda row: int(row["i"])):
        if not vanished(row["n"]):
            page.append((note_from_node(row["n"]), _link_results(row, asks)))
    return page, int(record["total"])


# --- bounded BFS, every level in one statement ------------------------------------------------------------------

_PATTERNS = {Direction.OUT: "-[r]->", Direction.IN: "<-[r]-", Direction.BOTH: "-[r]-"}


def _level(k: int, pattern: str, summaries: bool) -> str:
    """links.py's `_LEVEL` (unranked) from frontier `f{k}`, excluding `v{k}`, after `n{k}` items reached: each item
    once by its first edge in (fid, createdAt, id) order, cut at one more than the traversal can still take (a
    LIMIT takes no variable, so the level keeps its first $maxNodes + 1 in a heap, and the slice cuts the rest).
    A level runs only while the traversal is not over ($maxNodes) and has a frontier."""
    return f"""
CALL (f{k}, v{k}, n{k}) {{
  WITH f{k}, v{k}, n{k} WHERE n{k} <= $maxNodes
  UNWIND f{k} AS fid
  MATCH (f:Item {{tenantId: $tenant, id: fid}}){pattern}(m:Item {{tenantId: $tenant}})
  WHERE NOT m.id IN v{k} AND m.deletedAt IS NULL AND m.archivedAt IS NULL
    AND ($types IS NULL OR type(r) IN $types)
    AND ($ownerKeys IS NULL OR m.ownerKey IN $ownerKeys)
  WITH n{k}, fid, f, r, m ORDER BY fid, r.createdAt, r.id
  WITH n{k}, m, collect({{fid: fid, linkId: r.id, type: type(r), outgoing: startNode(r) = f,
                          at: r.createdAt}})[0] AS via
  WITH n{k}, m, via ORDER BY via.fid, via.at, via.linkId LIMIT $maxNodes + 1
  WITH n{k}, collect({{m: m, via: via}}) AS found
  UNWIND found[0..($maxNodes - n{k} + 1)] AS kept
  WITH kept.m AS m, kept.via AS via
  RETURN collect({{fid: via.fid, linkId: via.linkId, type: via.type, outgoing: via.outgoing,
                  m: {(item_summary_map if summaries else item_map)('m')}}}) AS level{k + 1}
}}"""


def traversal_statement(direction: Direction, hops: int, edges: bool, summaries: bool = False) -> str:
    """ITEMS_BY_IDS for the seeds, then `hops` BFS levels from `$frontier` (every level in this statement), and
    with `edges` the EDGES_AMONG of the seeds and the first `$maxNodes` items reached (`$edgeLimit`; sliced, not a
    LIMIT: inside a subquery Neo4j's Top reserves memory for the whole limit, 260 MB for 5,000, on every call)."""
    pattern = _PATTERNS[direction]
    seeds = _rows_of(item_cypher.ITEMS_BY_IDS.replace("$ids", "$seeds"), item_map("n") + " AS n")
    parts = [f"CALL () {{\n{seeds}RETURN collect({item_map('n')}) AS seeds\n}}\n"
             "WITH seeds, $frontier AS f0, $frontier AS v0, 0 AS n0"]
    carried = ["seeds"]
    for k in range(hops):
        parts.append(_level(k, pattern, summaries))
        carried.append(f"level{k + 1}")
        ids = f"[x IN level{k + 1} | x.m.id]"
        parts.append(f"\nWITH {', '.join(carried)}, {ids} AS f{k + 1}, v{k} + {ids} AS v{k + 1}, "
                     f"n{k} + size(level{k + 1}) AS n{k + 1}")
    levels = " + ".join(f"level{k + 1}" for k in range(hops))
    if edges:
        parts.append(f"""
WITH {', '.join(carried)}, $frontier + [x IN ({levels})[0..$maxNodes] | x.m.id] AS ids
CALL (ids) {{
  MATCH (s:Item {{tenantId: $tenant}})-[r]->(t:Item {{tenantId: $tenant}})
  WHERE s.id IN ids AND t.id IN ids
  WITH r ORDER BY r.createdAt, r.id
  WITH collect({link_map('r')}) AS found
  RETURN found[0..$edgeLimit] AS edges, size(found) AS totalEdges
}}""")
        carried += ["edges", "totalEdges"]
    parts.append(f"\nRETURN seeds, [{', '.join(carried[1:hops + 1])}] AS levels"
                 + (", edges, totalEdges" if edges else ""))
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class Traversal:
    seeds: dict[str, Item]
    levels: list[list[dict[str, Any]]]  # per depth, rows {fid, linkId, type, outgoing, item} as bfs_level gives
    edges: list[dict[str, Any]]  # link_maps (first $edgeLimit), when asked
    total_edges: int  # all the edges among the seeds and what was reached, when asked


async def traversal(
    graph: Graph, direction: Direction, hops: int, edges: bool = False, summaries: bool = False, **params: Any
) -> Traversal:
    """`params`: tenant, seeds (ids to check), frontier (distinct seed ids, in order), types, ownerKeys, maxNodes,
    and edgeLimit with `edges`. With `summaries`, the items reached are `item_summary_map`s (the seeds whole)."""
    [record] = await graph.read_records(traversal_statement(direction, hops, edges, summaries), **params)
    seeds = [item_from_node(node) for node in record["seeds"] if not vanished(node)]
    levels = [[{"fid": row["fid"], "linkId": row["linkId"], "type": row["type"], "outgoing": row["outgoing"],
                "item": item_from_node(row["m"])} for row in level if not vanished(row["m"])]
              for level in record["levels"]]
    return Traversal({item.id: item for item in seeds}, levels, list(record["edges"]) if edges else [],
                     int(record["totalEdges"]) if edges else 0)
