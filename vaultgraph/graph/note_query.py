"""Bases-style property queries over notes: the front matter as node properties, and the statement for a query.

Neo4j stores no maps on a node, so a note's front matter (also kept whole as JSON in `frontmatter`) is spread
onto it at save: a scalar under `fm.<name>`, a list of scalars under `fml.<name>` (so `eq` on a list means
"contains"). A property name is data: it reaches Cypher only as a parameter read with `n[$key]`; the text of the
statement is built from fixed fragments, one per condition, with numbered parameters.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from neo4j import AsyncManagedTransaction

from vaultgraph.domain import Note
from vaultgraph.graph.notes import NOTE_LIST_FILTERS
from vaultgraph.graph.records import note_from_node, note_map, vanished

SCALAR_PREFIX = "fm."
LIST_PREFIX = "fml."

# The note fields a query may name besides front-matter properties, and the expression each reads. `tag` is a
# list (eq/in mean "carries"); the others are scalars.
FIELDS: dict[str, str] = {
    "kind": "n.kind", "title": "n.title", "slug": "n.slug", "pinned": "coalesce(n.pinned, false)",
    "noteDate": "n.noteDate", "createdAt": "n.createdAt", "updatedAt": "n.updatedAt", "tag": "n.tags",
}
LIST_FIELDS = frozenset({"tag"})
Op = Literal["eq", "ne", "in", "gt", "gte", "lt", "lte", "exists", "missing"]
RANGE_OPS = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


@dataclass(frozen=True, slots=True)
class Condition:
    """One test: a front-matter property (`field` None) or a note field, an operator, and its value."""

    name: str
    op: Op
    value: Any = None
    field: bool = False


@dataclass(frozen=True, slots=True)
class Group:
    kind: Literal["and", "or", "not"]
    children: tuple[Where, ...]


Where = Condition | Group


@dataclass(frozen=True, slots=True)
class Sort:
    name: str
    descending: bool = False
    field: bool = False


def _stored(value: Any) -> Any:
    """A front-matter value as Neo4j can hold it, or None when it holds nothing to query."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, sort_keys=True)  # an object: present (exists), compared as its JSON text


def _stored_list(items: list[Any]) -> list[Any] | None:
    """A list property: Neo4j lists hold one type, so numbers stay numbers, strings strings, and a mix is text."""
    values = [item for item in items if item is not None]
    if not values:
        return None
    if all(isinstance(v, str) for v in values) or all(isinstance(v, bool) for v in values):
        return values
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return [float(v) for v in values] if any(isinstance(v, float) for v in values) else values
    return [v if isinstance(v, str) else json.dumps(v, sort_keys=True) for v in values]


def property_fields(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The node properties a note's front matter becomes (nulls and empty lists: absent)."""
    fields: dict[str, Any] = {}
    for name, value in metadata.items():
        if isinstance(value, list):
            if (items := _stored_list(value)) is not None:
                fields[LIST_PREFIX + name] = items
        elif (stored := _stored(value)) is not None:
            fields[SCALAR_PREFIX + name] = stored
    return fields


def stale_property_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, None]:
    """Nulls (Neo4j removes a property set to null) for the keys the old front matter set and the new does not."""
    keep = property_fields(new).keys()
    return {key: None for key in property_fields(old) if key not in keep}


class _Compiler:
    def __init__(self) -> None:
        self.params: dict[str, Any] = {}

    def param(self, value: Any) -> str:
        name = f"q{len(self.params)}"
        self.params[name] = value
        return "$" + name

    def where(self, node: Where) -> str:
        if isinstance(node, Group):
            parts = [self.where(child) for child in node.children]
            if node.kind == "not":
                return f"(NOT coalesce({parts[0]}, false))"
            return "(" + f" {node.kind.upper()} ".join(parts) + ")"
        return self.condition(node)

    def _exprs(self, node: Condition | Sort) -> tuple[str | None, str | None]:
        """(scalar expression, list expression) of what a condition or sort names."""
        if node.field:
            expr = FIELDS[node.name]
            return (None, expr) if node.name in LIST_FIELDS else (expr, None)
        return f"n[{self.param(SCALAR_PREFIX + node.name)}]", f"n[{self.param(LIST_PREFIX + node.name)}]"

    def condition(self, c: Condition) -> str:
        scalar, listed = self._exprs(c)
        if c.op in ("exists", "missing"):
            present = " OR ".join(
                [f"{scalar} IS NOT NULL"] * (scalar is not None)
                + [f"size(coalesce({listed}, [])) > 0"] * (listed is not None))
            return f"({present})" if c.op == "exists" else f"(NOT ({present}))"
        value = self.param(c.value)
        tests: list[str] = []
        if c.op in ("eq", "ne"):
            tests += [f"coalesce({scalar} = {value}, false)"] * (scalar is not None)
            tests += [f"{value} IN coalesce({listed}, [])"] * (listed is not None)
        elif c.op == "in":
            tests += [f"coalesce({scalar} IN {value}, false)"] * (scalar is not None)
            tests += [f"any(x IN coalesce({listed}, []) WHERE x IN {value})"] * (listed is not None)
        else:  # a range: scalars only (the service refuses one on a list field)
            tests.append(f"coalesce({scalar} {RANGE_OPS[c.op]} {value}, false)")
        joined = "(" + " OR ".join(tests) + ")"
        return f"(NOT {joined})" if c.op == "ne" else joined

    def order(self, sorts: tuple[Sort, ...]) -> str:
        keys: list[str] = []
        for sort in sorts:
            scalar, _ = self._exprs(sort)  # a list property sorts as absent; the service refuses `tag`
            assert scalar is not None
            keys += [f"{scalar} IS NULL", scalar + (" DESC" if sort.descending else "")]  # nulls last either way
        return ", ".join([*keys, "n.updatedAt DESC", "n.id"])


def query_statement(where: Where | None, sorts: tuple[Sort, ...]) -> tuple[str, dict[str, Any]]:
    """The statement for the list filters plus `where`, in `sorts` order then the newest first, and its query
    parameters; it takes `$offset` and `$limit` besides the list filters' parameters and returns the page and the
    total. One pass, not a page and then a count: the filter reads every note of the tenant (a property is no
    index), and at 10k notes the second pass doubled the time."""
    compiler = _Compiler()
    matched = NOTE_LIST_FILTERS + (f"  AND {compiler.where(where)}\n" if where is not None else "")
    statement = (matched + f"WITH n ORDER BY {compiler.order(sorts)}\n"
                 "WITH collect(n) AS matched\n"
                 "RETURN size(matched) AS total, [n IN matched[$offset..$offset + $limit] | " + note_map("n")
                 + "] AS page")
    return statement, compiler.params


async def query_page_and_total(
    tx: AsyncManagedTransaction, where: Where | None, sorts: tuple[Sort, ...], **params: Any
) -> tuple[list[Note], int]:
    """A page of the notes matching the list filters and `where`, and their total."""
    statement, query_params = query_statement(where, sorts)
    record = await (await tx.run(statement, **params, **query_params)).single(strict=True)
    return [note_from_node(note) for note in record["page"] if not vanished(note)], int(record["total"])
