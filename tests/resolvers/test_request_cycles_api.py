"""A request's objects go when its answer is sent: none of them in a reference cycle, which only the cyclic
collector frees. A cycle holding the context kept the request, its loaders and everything they loaded until the
next collection, and those collections were a fifth of a `{ __typename }`'s CPU (bench/README.md, the request's
garbage). Three shapes of request over real HTTP, with the collector saving what it finds instead of freeing it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from tests.support.server import RunningServer
from vaultgraph.schema.context import Context
from vaultgraph.schema.execution import LeafFieldsExecutor
from vaultgraph.schema.loaders import Loaders

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }"
BACKLINKS = """query($slug: String!) { note(slug: $slug) { id
  backlinks(first: 5) { totalCount edges { cursor node { id ref from { id title ... on Note { slug } } } } }
  outgoing { nodes { id isGhost } }
} }"""
TRAVERSE = "query($id: ID!) { traverse(from: [$id], hops: 2) { count nodes { depth item { id title } } } }"

# What a request builds and nothing outlives: the context (its request, principal and loaders) and the executor.
REQUEST_SCOPED = (Context, Loaders, LeafFieldsExecutor)


@pytest.fixture
def saved_garbage() -> Iterator[list[object]]:
    """What the collector finds unreachable from here on, kept in `gc.garbage` rather than freed."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


async def test_no_request_leaves_its_context_or_executor_to_the_cyclic_collector(
        server: RunningServer, saved_garbage: list[object]) -> None:
    hub = (await server.data(SAVE, {"input": {"title": "Hub", "body": "plain"}}))["saveNote"]["note"]["id"]
    await server.data(SAVE, {"input": {"title": "Spoke", "body": "see [[Hub]] and [[Nowhere]]"}})
    gc.collect()
    saved_garbage.clear()  # the saves' own (their requests are checked below, as reads)

    answers = [await server.data("{ __typename }"),
               await server.data(BACKLINKS, {"slug": "hub"}),
               await server.data(TRAVERSE, {"id": hub})]
    assert answers[1]["note"]["backlinks"]["totalCount"] == 1  # the loaders were used, and the reads answered
    assert answers[2]["traverse"]["count"] == 1  # Spoke; the ghost is never followed
    gc.collect()

    left = sorted({type(o).__qualname__ for o in saved_garbage if isinstance(o, REQUEST_SCOPED)})
    assert left == [], f"in reference cycles after their request: {left}"
