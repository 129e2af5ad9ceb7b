"""GraphQL execution alone: no HTTP, no Neo4j, the schema's own types over domain objects made in memory, with
strawberry's executor and with the schema's (schema/execution.py) taking turns (issue 25, target 2).

    .venv/bin/python -m bench.execution [--nodes 200] [--rounds 5] [--calls 50]

Three shapes, each the selection its bench row asks: a traversal's `nodes { … item { id title } }` (plain fields all
the way down), a backlinks page's `edges { cursor node { … from { id title ... on Note { slug } } } }` (`from` a
resolver answering in place) and a graph view's `nodes` and `edges { from { id } to { id } }`. Prints the process
CPU per execution and per object of each executor, and their ratio. The answers of both are compared first.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import UTC, datetime, timedelta

import strawberry
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from vaultgraph import domain
from vaultgraph.schema.execution import LeafFieldsExecutor, use_lean_resolvers
from vaultgraph.schema.scalars import SCALARS
from vaultgraph.schema.types.items import Note, item_type
from vaultgraph.schema.types.links import GraphView, Link, LinkEdge, TraversalNode, TraversalResult

_T0 = datetime(2026, 12, 6, tzinfo=UTC)


def _note(i: int) -> domain.Note:
    return domain.Note(
        id=f"note_{i:032x}", tenant_id="bench", owner=domain.Owner(domain.Scope.SHARED, None, None),
        slug=f"topic/note-{i}", title=f"Note {i}", body="", body_sha256="", frontmatter={}, tags=("a", "b"),
        kind="note", note_date=None, pinned=False, archived_at=None, created_by_agent_id=None, indexed=True,
        created_at=_T0 + timedelta(seconds=i), updated_at=_T0 + timedelta(seconds=i))


def _link(i: int, source: domain.Note, target: domain.Note) -> domain.Link:
    return domain.Link(id=f"lnk_{i:032x}", type="WIKILINK", source_id=source.id, target_id=target.id,
                       ref=target.title, key=target.slug, label=None, heading=None, context=f"… [[{target.title}]] …",
                       origin=domain.LinkOrigin.USER, confidence=None, created_at=_T0 + timedelta(seconds=i),
                       source=source, target=target)


def schema_for(nodes: int) -> tuple[strawberry.Schema, strawberry.Schema, dict[str, str]]:
    """Both executors' schemas over the same objects, and the three queries."""
    notes = [_note(i) for i in range(nodes + 1)]
    hub = notes[0]
    reached = [domain.Reached(item=note, depth=1 + i % 2, via_link_id=f"lnk_{i:032x}", via_type="WIKILINK",
                              via_direction=domain.Direction.OUT if i % 2 else domain.Direction.IN, from_id=hub.id)
               for i, note in enumerate(notes[1:])]
    links = [_link(i, note, hub) for i, note in enumerate(notes[1:])]

    @strawberry.type
    class Query:
        @strawberry.field
        def traverse(self) -> TraversalResult:
            return TraversalResult(nodes=[TraversalNode.from_domain(r) for r in reached], count=len(reached))

        @strawberry.field
        def backlinks(self) -> list[LinkEdge]:
            return [LinkEdge(cursor=f"c{i}", node=Link.from_domain(link)) for i, link in enumerate(links)]

        @strawberry.field
        def graph(self) -> GraphView:
            return GraphView(nodes=[item_type(note) for note in notes], edges=[Link.from_domain(x) for x in links],
                             truncated=False, reached=[], edges_truncated=False, total_edges=len(links))

    def build(executor: type[StrawberryGraphQLCoreExecutionContext]) -> strawberry.Schema:
        schema = strawberry.Schema(Query, types=[Note], config=StrawberryConfig(scalar_map=SCALARS),
                                   execution_context_class=executor)
        if executor is LeafFieldsExecutor:
            use_lean_resolvers(schema)
        return schema

    queries = {
        "traversal": "{ traverse { count nodes { depth viaLinkId viaType direction fromId item { id title } } } }",
        "backlinks page": "{ backlinks { cursor node { id type ref context from { id title ...on Note { slug } } } } }",
        "graph view": "{ graph { truncated nodes { id title } edges { id type from { id } to { id } } } }",
    }
    return build(StrawberryGraphQLCoreExecutionContext), build(LeafFieldsExecutor), queries


async def _cpu(schema: strawberry.Schema, query: str, calls: int) -> float:
    started = time.process_time()
    for _ in range(calls):
        await schema.execute(query)
    return (time.process_time() - started) / calls


async def main(args: argparse.Namespace) -> None:
    theirs, ours, queries = schema_for(args.nodes)
    for name, query in queries.items():
        a, b = await theirs.execute(query), await ours.execute(query)
        assert a.errors is None and b.errors is None and a.data == b.data, (name, a.errors, b.errors)
        objects = args.nodes * (2 if name == "graph view" else 1)
        samples: dict[str, list[float]] = {"strawberry": [], "vaultgraph": []}
        for _ in range(args.rounds):  # taking turns, so a busy moment falls on both
            for side, schema in (("strawberry", theirs), ("vaultgraph", ours)):
                samples[side].append(await _cpu(schema, query, args.calls))
        best = {side: min(values) for side, values in samples.items()}
        print(f"{name} ({objects} objects): strawberry's executor {best['strawberry'] * 1e3:.2f} ms "
              f"({best['strawberry'] / objects * 1e6:.1f} µs an object), vaultgraph's "
              f"{best['vaultgraph'] * 1e3:.2f} ms ({best['vaultgraph'] / objects * 1e6:.1f} µs an object) = "
              f"{best['vaultgraph'] / best['strawberry']:.2f}×", flush=True)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=200, help="objects a list holds (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="turns each executor takes (default 5)")
    parser.add_argument("--calls", type=int, default=50, help="executions a turn (default 50)")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(_arguments()))
