"""The `JSON` scalar, refusing what is not JSON: NaN and ±Infinity.

Python's `json` reads `NaN` and `Infinity` in a request body, and graphql-core reads `1e999` as infinity; stored
as they came, they would be written back out as invalid JSON (`{"x": NaN}`) to every client that reads the item.
strawberry's own scalar passes any value through, so this one takes its place (`scalar_map`, wired by
`build_schema` through schema/scalars.py) with the same name and description: the printed schema does not change.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from graphql import GraphQLError, ValueNode, value_from_ast_untyped
from strawberry.types.scalar import ScalarDefinition, scalar

DESCRIPTION = ("The `JSON` scalar type represents JSON values as specified by [ECMA-404]"
               "(https://ecma-international.org/wp-content/uploads/ECMA-404_2nd_edition_december_2017.pdf).")
SPECIFIED_BY = "https://ecma-international.org/wp-content/uploads/ECMA-404_2nd_edition_december_2017.pdf"


def finite(value: Any, path: str = "") -> Any:
    """`value` itself, once every number in it is finite; a GraphQLError (INVALID_INPUT) naming where, if not."""
    if isinstance(value, float) and not math.isfinite(value):
        where = f" at `{path}`" if path else ""
        raise GraphQLError(f"{value} is not a JSON number{where}: JSON has no NaN or Infinity",
                           extensions={"code": "INVALID_INPUT", "field": path or "JSON"})
    if isinstance(value, Mapping):
        for key, item in value.items():
            finite(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            finite(item, f"{path}.{index}" if path else str(index))
    return value


def parse_literal(node: ValueNode, variables: dict[str, Any] | None = None) -> Any:
    return finite(value_from_ast_untyped(node, variables))


JSON_SCALAR: ScalarDefinition = scalar(
    name="JSON", description=DESCRIPTION, specified_by_url=SPECIFIED_BY,
    serialize=lambda value: value, parse_value=finite, parse_literal=parse_literal,
)
