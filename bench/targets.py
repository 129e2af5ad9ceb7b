"""How a workload reaches each side: GraphQL over HTTP (vaultgraph, the peer) or Cypher over the driver (the floor).

The floor runs the very statements vaultgraph's services run — the constants of vaultgraph/graph/*.py, with the
same parameters, in the same transactions, through `Graph` and the same async driver — and stops there: records
are fetched (the driver decodes the projected maps) but not mapped to domain objects, and nothing goes through
HTTP, GraphQL parsing, validation or resolvers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from neo4j import AsyncManagedTransaction, Record

from bench.client import GraphQLClient
from bench.measure import Target
from vaultgraph.graph.session import Graph

T = TypeVar("T")
Variables = Callable[[int], dict[str, Any]]
Counter = Callable[[dict[str, Any]], int]


async def rows(tx: AsyncManagedTransaction, statement: str, **params: Any) -> list[Record]:
    """Run one statement and fetch every record: the floor's only transaction function."""
    result = await tx.run(statement, **params)
    return [record async for record in result]


@dataclass
class Endpoint:
    """A GraphQL server the bench talks to, with one keep-alive connection per concurrent worker."""

    name: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    _clients: dict[int, GraphQLClient] = field(default_factory=dict)

    def client(self, worker: int) -> GraphQLClient:
        if worker not in self._clients:
            self._clients[worker] = GraphQLClient(self.url, headers=self.headers)
        return self._clients[worker]

    def target(self, query: str, variables: Variables, count: Counter) -> Target:
        async def call(worker: int, i: int) -> int:
            return count(await self.client(worker).execute(query, variables(i)))

        async def ready(worker: int) -> None:
            await self.client(worker).ready()

        return Target(self.name, call, ready)

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients.clear()


@dataclass(frozen=True)
class Floor:
    graph: Graph
    tenant: str

    async def read(self, statement: str, **params: Any) -> list[Record]:
        return await self.graph.read(rows, statement, tenant=self.tenant, **params)

    async def read_one(self, statement: str, **params: Any) -> list[Record]:
        """One statement in an auto-commit read transaction (`Graph.read_records`), as the whole-request reads of
        graph/whole_reads.py run."""
        return await self.graph.read_records(statement, tenant=self.tenant, **params)

    async def read_together(self, *statements: tuple[str, dict[str, Any]]) -> list[list[Record]]:
        """Several statements in one read transaction, one after the other (as a service's transaction runs them)."""
        async def together(tx: AsyncManagedTransaction) -> list[list[Record]]:
            return [await rows(tx, statement, tenant=self.tenant, **params) for statement, params in statements]

        return await self.graph.read(together)

    async def transaction(self, fn: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """`fn` in one read transaction; it runs its statements through `rows` with `self.tenant`."""
        return await self.graph.read(fn)
