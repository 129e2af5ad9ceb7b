"""Bounds of the size arguments (`first`, `limit`, `maxNodes`, `maxItems`, `hops`, `budgetTokens`), checked once
for the whole document before anything executes.

The services check their own arguments too (the MCP tools and the CLI call them directly), but a resolver that
never reaches the service would let a size through: `backlinks(first: 1000) { totalCount }` only counts, so the
page size was never looked at. Checked here, every field at every depth (fragments included) answers the same
error its service would: `INVALID_INPUT` naming the argument, with the service's message.

The rule reads literals, the operation's variables (integer values only, an integral float counting as the integer
graphql-core coerces it to; a value of another type fails variable coercion with its own error) and variables'
defaults, which is exactly what the parse/validate cache keys on (schema/extensions/document_cache.py: the query
text and the variables' integer values).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    GraphQLError,
    GraphQLNonNull,
    GraphQLScalarType,
    IntValueNode,
    OperationDefinitionNode,
    ValidationContext,
    ValidationRule,
    ValueNode,
    VariableNode,
)

from vaultgraph.services.context_pack import MAX_BUDGET, MAX_ITEMS, MIN_BUDGET
from vaultgraph.services.fuzzy_links import MAX_GHOSTS
from vaultgraph.services.links import GRAPH_NODE_CAP, MAX_HOPS, MAX_TRAVERSAL_NODES
from vaultgraph.services.mentions import MAX_PAGE as MENTIONS_MAX_PAGE
from vaultgraph.services.pagination import page_size_problem
from vaultgraph.services.search_request import MAX_LIMIT as SEARCH_MAX_LIMIT
from vaultgraph.services.suggestions import MAX_SUGGESTIONS
from vaultgraph.services.topics import MAX_TOPICS

INVALID_INPUT = "INVALID_INPUT"
# An argument of one of these names that the table below does not list is a page size (fail closed: a new list
# field with `first` is bounded the day it is added; tests/security/test_size_bounds.py lists them all).
PAGE_ARGUMENTS = frozenset({"first", "last", "limit", "maxNodes", "maxItems"})
CONNECTION_SIZES = frozenset({"first", "last"})  # a connection's page size, forward or backward (Relay)


@dataclass(frozen=True, slots=True)
class Bound:
    low: int
    high: int
    page: bool = False  # a connection's page size: the message of services.pagination.page_size

    def problem(self, value: int, argument: str = "first") -> str | None:
        if self.page:
            return page_size_problem(value, self.high, argument)
        return None if self.low <= value <= self.high else f"between {self.low} and {self.high}"


def argument_bounds(page_size_max: int) -> dict[tuple[str, str], Bound]:
    """(field, argument) → bound, whatever type the field is on (`backlinks` of Item, Note and Document alike)."""
    page = Bound(1, page_size_max, page=True)
    hops = Bound(1, MAX_HOPS)
    return {
        **{(field, size): page for field in ("documents", "notes", "outgoing", "backlinks")
           for size in CONNECTION_SIZES},
        ("ghosts", "first"): Bound(1, MAX_GHOSTS),
        ("topics", "first"): Bound(1, MAX_TOPICS),
        ("unlinkedMentions", "first"): Bound(1, MENTIONS_MAX_PAGE, page=True),
        ("search", "limit"): Bound(1, SEARCH_MAX_LIMIT),
        ("searchReport", "limit"): Bound(1, SEARCH_MAX_LIMIT),
        ("suggestions", "limit"): Bound(1, MAX_SUGGESTIONS),
        ("traverse", "maxNodes"): Bound(1, MAX_TRAVERSAL_NODES),
        ("traverse", "hops"): hops,
        ("graph", "limit"): Bound(1, GRAPH_NODE_CAP),
        ("graph", "hops"): hops,
        ("shortestPath", "maxHops"): hops,
        ("canvas", "hops"): hops,
        ("contextPack", "maxItems"): Bound(1, MAX_ITEMS),
        ("contextPack", "budgetTokens"): Bound(MIN_BUDGET, MAX_BUDGET),
    }


@dataclass(frozen=True, slots=True)
class Sizes:
    """The bounds of one schema (the page maximum comes from its Settings)."""

    bounds: Mapping[tuple[str, str], Bound]
    page_size_max: int

    @classmethod
    def for_page_size(cls, page_size_max: int) -> Sizes:
        return cls(argument_bounds(page_size_max), page_size_max)

    def bound(self, field: str, argument: str) -> Bound | None:
        found = self.bounds.get((field, argument))
        if found is None and argument in PAGE_ARGUMENTS:
            return Bound(1, self.page_size_max, page=argument in CONNECTION_SIZES)
        return found


def _is_int(type_: Any) -> bool:
    inner = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
    return isinstance(inner, GraphQLScalarType) and inner.name == "Int"


def as_integer(value: Any) -> int | None:
    """The integer an `Int` variable's value stands for, as graphql-core coerces it (an integral float too:
    `1e3` and `1000.0` are 1000), or None for a value it refuses (its own error, during variable coercion)."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def variables_key(variables: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    """What the size and cost rules read of an operation's variables: each variable's integer value (an integral
    float is the integer it coerces to), else its type's name. Two operations with the same key are judged alike."""
    def key(value: Any) -> Any:
        integer = as_integer(value)
        return type(value).__name__ if integer is None else integer

    return tuple(sorted((name, key(value)) for name, value in (variables or {}).items()))


def literal_values(value: ValueNode, given: Mapping[str, Any], defaults: Mapping[str, list[int]]) -> list[int]:
    """The integers an argument may take in this request: its literal, its variable's value, or (the variable
    not given) the default of each operation declaring it."""
    if isinstance(value, IntValueNode):
        return [int(value.value)]
    if isinstance(value, VariableNode):
        name = value.name.value
        if name in given:
            sent = as_integer(given[name])
            return [] if sent is None else [sent]
        return defaults.get(name, [])
    return []


def size_rule(sizes: Sizes, variables: Mapping[str, Any] | None) -> type[ValidationRule]:
    """A rule refusing every size argument outside its bound, at any depth; built per operation (it reads the
    variables)."""
    given = dict(variables or {})

    class SizeRule(ValidationRule):
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            self.defaults: dict[str, list[int]] = {}
            for definition in context.document.definitions:
                if isinstance(definition, OperationDefinitionNode):
                    for variable in definition.variable_definitions or ():
                        if isinstance(variable.default_value, IntValueNode):
                            self.defaults.setdefault(variable.variable.name.value, []).append(
                                int(variable.default_value.value))

        def enter_field(self, node: FieldNode, *_: Any) -> None:
            definition = self.context.get_field_def()
            if definition is None or not node.arguments:
                return  # an unknown field: FieldsOnCorrectTypeRule reports it
            field = node.name.value
            for argument in node.arguments:
                name = argument.name.value
                declared = definition.args.get(name)
                bound = sizes.bound(field, name)
                if declared is None or bound is None or not _is_int(declared.type):
                    continue
                for value in literal_values(argument.value, given, self.defaults):
                    problem = bound.problem(value, name)
                    if problem is not None:
                        self.report_error(GraphQLError(
                            f"{name}: {problem}", argument,
                            extensions={"code": INVALID_INPUT, "field": name}))
                        break

    return SizeRule
