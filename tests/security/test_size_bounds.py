"""Every size argument (`first`, `limit`, `maxNodes`, `maxItems`, `hops`, `budgetTokens`) is held to its bound at
any depth, whatever is selected below it: refused before anything runs with the error its service answers
(`INVALID_INPUT` naming the argument). The rule is schema/extensions/sizes.py; these run it on the real server over
HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import GraphQLInterfaceType, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType

from tests.support.server import RunningServer
from vaultgraph.errors import InvalidInput
from vaultgraph.resolvers.root import build_schema
from vaultgraph.schema.extensions.sizes import argument_bounds
from vaultgraph.services.pagination import page_size

pytestmark = [pytest.mark.security, pytest.mark.api]

PAGE_MAX = 100  # the default VAULTGRAPH_PAGE_SIZE_MAX
SAVE = "mutation($input: NoteInput!) { saveNote(input: $input) { note { id } } }"

# One query per bounded argument, `{n}` its size; `{id}` a note of the tenant. Nested fields sit under a page of
# notes that holds notes, so they resolve (an empty page would never reach them).
QUERIES: dict[tuple[str, str], str] = {
    ("documents", "first"): "{{ documents(first: {n}) {{ totalCount }} }}",
    ("notes", "first"): "{{ notes(first: {n}) {{ totalCount }} }}",
    ("backlinks", "first"): "{{ notes(first: 10) {{ nodes {{ backlinks(first: {n}) {{ totalCount }} }} }} }}",
    ("outgoing", "first"): "{{ notes(first: 10) {{ edges {{ node {{ outgoing(first: {n}) {{ totalCount }} }} }} }} }}",
    ("documents", "last"): "{{ documents(last: {n}) {{ totalCount }} }}",
    ("notes", "last"): "{{ notes(last: {n}) {{ totalCount }} }}",
    ("backlinks", "last"): "{{ notes(first: 10) {{ nodes {{ backlinks(last: {n}) {{ totalCount }} }} }} }}",
    ("outgoing", "last"): "{{ notes(first: 10) {{ edges {{ node {{ outgoing(last: {n}) {{ totalCount }} }} }} }} }}",
    ("suggestions", "limit"): "{{ notes(first: 10) {{ nodes {{ suggestions(limit: {n}) {{ similarity }} }} }} }}",
    ("ghosts", "first"): "{{ ghosts(first: {n}) {{ ref }} }}",
    ("topics", "first"): "{{ documents(first: 5) {{ nodes {{ topics(first: {n}) {{ id }} }} }} }}",
    ("unlinkedMentions", "first"): "{{ notes(first: 10) {{ nodes {{ unlinkedMentions(first: {n}) {{ "
                                   "pageInfo {{ hasNextPage }} }} }} }} }}",
    ("search", "limit"): '{{ search(query: "target", mode: KEYWORD, limit: {n}) {{ score }} }}',
    ("searchReport", "limit"): '{{ searchReport(query: "target", mode: KEYWORD, limit: {n}) {{ mode }} }}',
    ("traverse", "maxNodes"): '{{ traverse(from: ["{id}"], maxNodes: {n}) {{ count }} }}',
    ("traverse", "hops"): '{{ traverse(from: ["{id}"], hops: {n}) {{ count }} }}',
    ("graph", "limit"): "{{ graph(limit: {n}) {{ truncated }} }}",
    ("graph", "hops"): '{{ graph(center: "{id}", hops: {n}) {{ truncated }} }}',
    ("canvas", "hops"): '{{ canvas(center: "{id}", hops: {n}) }}',
    ("shortestPath", "maxHops"): '{{ shortestPath(from: "{id}", to: "{id}", maxHops: {n}) {{ length }} }}',
    ("contextPack", "maxItems"): '{{ contextPack(query: "target", budgetTokens: 99, maxItems: {n}) {{ usedTokens }} }}',
    ("contextPack", "budgetTokens"): '{{ contextPack(query: "target", budgetTokens: {n}) {{ usedTokens }} }}',
}


def _int_arguments() -> set[tuple[str, str]]:
    """(field, argument) for every Int argument of every field in the served schema."""
    schema = build_schema()._schema
    found: set[tuple[str, str]] = set()
    for type_ in schema.type_map.values():
        if type_.name.startswith("__") or not isinstance(type_, GraphQLObjectType | GraphQLInterfaceType):
            continue
        for field_name, field in type_.fields.items():
            for argument_name, argument in field.args.items():
                inner = argument.type.of_type if isinstance(argument.type, GraphQLNonNull) else argument.type
                if isinstance(inner, GraphQLScalarType) and inner.name == "Int":
                    found.add((field_name, argument_name))
    return found


def _refused(body: dict[str, Any], argument: str) -> dict[str, Any]:
    assert body["data"] is None, body
    [error] = body["errors"]
    assert error["extensions"] == {"code": "INVALID_INPUT", "field": argument}, body
    return dict(error)


async def _two_linked_notes(server: RunningServer) -> str:
    target = (await server.data(SAVE, {"input": {"title": "Target", "body": "the target note"}}))
    await server.data(SAVE, {"input": {"title": "Source", "body": "points at [[Target]]"}})
    note_id: str = target["saveNote"]["note"]["id"]
    return note_id


def test_every_int_argument_of_the_schema_has_a_bound_and_a_query_here() -> None:
    assert _int_arguments() == set(argument_bounds(PAGE_MAX)) == set(QUERIES)


async def test_a_nested_connection_asking_only_its_count_is_held_to_the_page_maximum(server: RunningServer) -> None:
    await _two_linked_notes(server)
    counted = await server.data("{ notes(first: 10) { nodes { title backlinks(first: 100) { totalCount } } } }")
    assert {n["title"]: n["backlinks"]["totalCount"] for n in counted["notes"]["nodes"]} == {"Target": 1, "Source": 0}
    with pytest.raises(InvalidInput) as service:  # what the service answers a top-level page of 1000
        page_size(1000, PAGE_MAX)
    for query in [
        "{ notes(first: 1000) { totalCount } }",
        "{ notes(first: 10) { nodes { backlinks(first: 1000) { totalCount } } } }",
        "{ notes(first: 10) { edges { node { outgoing(first: 1000) { totalCount } } } } }",
        "{ documents { nodes { backlinks(first: 1000) { totalCount } } } }",
        "{ notes { nodes { ...Counted } } } fragment Counted on Item { backlinks(first: 1000) { totalCount } }",
        "{ notes { nodes { ... on Note { backlinks(first: 1000) { pageInfo { hasNextPage } } } } } }",
    ]:
        error = _refused(await server.graphql(query), "first")
        assert error["message"] == service.value.message == \
            "first: at most 100 items a page; ask for the next page with `after`"
    assert _refused(await server.graphql("{ notes { nodes { backlinks(first: 0) { totalCount } } } }"),
                    "first")["message"] == "first: must be at least 1"


@pytest.mark.parametrize("key", sorted(QUERIES), ids=lambda key: ".".join(key))
async def test_each_bounded_argument_is_refused_past_either_end_and_served_at_them(
    server: RunningServer, key: tuple[str, str]
) -> None:
    note_id = await _two_linked_notes(server)
    field, argument = key
    bound = argument_bounds(PAGE_MAX)[key]
    query = QUERIES[key]
    for outside in (bound.high + 1, bound.low - 1, 10**6):
        _refused(await server.graphql(query.format(n=outside, id=note_id)), argument)
    for inside in (bound.low, bound.high):
        body = await server.graphql(query.format(n=inside, id=note_id))
        assert "errors" not in body, (field, inside, body)


async def test_variables_and_their_defaults_are_read(server: RunningServer) -> None:
    await _two_linked_notes(server)
    nested = "query($n: Int) { notes(first: 5) { nodes { backlinks(first: $n) { totalCount } } } }"
    _refused(await server.graphql(nested, {"n": 101}), "first")
    assert len((await server.data(nested, {"n": 100}))["notes"]["nodes"]) == 2
    defaulted = "query($n: Int = 500) { notes(first: 5) { nodes { outgoing(first: $n) { totalCount } } } }"
    _refused(await server.graphql(defaulted), "first")
    assert len((await server.data(defaulted, {"n": 3}))["notes"]["nodes"]) == 2
    # The parse/validate cache keys on the integer variables, so an accepted text is judged again with new ones.
    for _ in range(2):
        assert len((await server.data(nested, {"n": 7}))["notes"]["nodes"]) == 2
        _refused(await server.graphql(nested, {"n": 1000}), "first")
    # An integral float is the Int graphql-core coerces it to (JSON `1e3` is 1000): held to the same bound.
    _refused(await server.graphql(nested, {"n": 1000.0}), "first")
    assert len((await server.data(nested, {"n": 1e2}))["notes"]["nodes"]) == 2
    # A size of the wrong type is the variable coercion's error, not a size refusal.
    wrong = await server.graphql(nested, {"n": "1000"})
    assert wrong["data"] is None and wrong["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"


async def test_a_size_past_its_bound_is_one_error_not_a_cost_refusal_too(server: RunningServer) -> None:
    body = await server.graphql("{ documents(first: 1000000) { nodes { backlinks(first: 50) { totalCount } } } }")
    _refused(body, "first")
