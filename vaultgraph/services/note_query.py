"""A property query as clients write it (GraphQL `NoteWhere`/`NoteOrder`, or the MCP tool's JSON), checked into
the tree graph/note_query.py compiles. One parser for both surfaces; every refusal is INVALID_INPUT naming the
part of `where` or `orderBy` at fault (e.g. `where.and[2].op`), before anything reaches the graph.

A condition is `{property: name}` or `{field: name}`, an `op` and, but for exists/missing, a `value`; groups are
`{and: [...]}`, `{or: [...]}` and `{not: {...}}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any, Literal, cast

from vaultgraph.errors import InvalidInput
from vaultgraph.graph.note_query import FIELDS, LIST_FIELDS, RANGE_OPS, Condition, Group, Op, Sort, Where

MAX_DEPTH = 5
MAX_CONDITIONS = 20
MAX_IN_VALUES = 100
MAX_SORTS = 5
MAX_NAME_LENGTH = 200
OPS: tuple[str, ...] = ("eq", "ne", "in", "gt", "gte", "lt", "lte", "exists", "missing")
_DATE_FIELDS = {"noteDate": date, "createdAt": datetime, "updatedAt": datetime}
_STRING_FIELDS = frozenset({"kind", "title", "slug", "tag"})


def _given(node: Mapping[str, Any], key: str) -> bool:
    return node.get(key) is not None


def _name(node: Mapping[str, Any], path: str) -> tuple[str, bool]:
    """(name, is a note field) of a condition or sort: exactly one of `property` and `field`."""
    if _given(node, "property") == _given(node, "field"):
        raise InvalidInput(path, "give exactly one of `property` (a front-matter name) or `field` "
                                 f"({', '.join(FIELDS)})")
    if _given(node, "field"):
        field = node["field"]
        if field not in FIELDS:
            raise InvalidInput(f"{path}.field", f"{field!r} is not a note field; use one of {', '.join(FIELDS)}")
        return field, True
    name = node["property"]
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_LENGTH:
        raise InvalidInput(f"{path}.property", f"a front-matter property name of 1-{MAX_NAME_LENGTH} characters")
    return name, False


def _scalar(value: Any, path: str) -> Any:
    if isinstance(value, bool | int | float | str):
        return value
    raise InvalidInput(path, "a string, number or boolean (for a missing value use op `missing`)")


def _field_value(field: str, value: Any, path: str) -> Any:
    """A value for a note field, in the type the field is stored in (a date, an instant, a boolean, text)."""
    value = _scalar(value, path)
    if field == "pinned":
        if not isinstance(value, bool):
            raise InvalidInput(path, "pinned compares with true or false")
        return value
    if field in _STRING_FIELDS:
        if not isinstance(value, str):
            raise InvalidInput(path, f"{field} compares with a string")
        return value
    kind = _DATE_FIELDS[field]
    try:
        if not isinstance(value, str):
            raise ValueError
        if kind is date:
            return date.fromisoformat(value)
        instant = datetime.fromisoformat(value)
        return instant if instant.tzinfo else instant.replace(tzinfo=UTC)
    except ValueError as exc:
        raise InvalidInput(path, f"{field} compares with an ISO {'date' if kind is date else 'date-time'} "
                                 "string, e.g. 2026-12-01") from exc


def _condition(node: Mapping[str, Any], path: str) -> Condition:
    name, field = _name(node, path)
    op = node.get("op")
    if op not in OPS:
        raise InvalidInput(f"{path}.op", f"unknown operator {op!r}; use one of {', '.join(OPS)}")
    if op in ("exists", "missing"):
        if _given(node, "value"):
            raise InvalidInput(f"{path}.value", f"`{op}` takes no value")
        return Condition(name, cast(Op, op), None, field)
    if not _given(node, "value"):
        raise InvalidInput(f"{path}.value", f"`{op}` needs a value")
    value, where = node["value"], f"{path}.value"
    if field and name in LIST_FIELDS and op in RANGE_OPS:
        raise InvalidInput(f"{path}.op", f"{name} is a list: use eq, ne, in, exists or missing")
    if field and name == "pinned" and op in RANGE_OPS:
        raise InvalidInput(f"{path}.op", "pinned is true or false: use eq, ne, exists or missing")

    def one(item: Any, at: str) -> Any:
        return _field_value(name, item, at) if field else _scalar(item, at)

    if op == "in":
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_IN_VALUES:
            raise InvalidInput(where, f"`in` takes a list of 1-{MAX_IN_VALUES} values")
        return Condition(name, "in", [one(item, f"{where}[{i}]") for i, item in enumerate(value)], field)
    return Condition(name, cast(Op, op), one(value, where), field)


class _Parser:
    def __init__(self) -> None:
        self.conditions = 0

    def node(self, node: Any, path: str, depth: int) -> Where:
        if depth > MAX_DEPTH:
            raise InvalidInput("where", f"nested deeper than {MAX_DEPTH} levels (at {path})")
        if not isinstance(node, Mapping):
            raise InvalidInput(path, "an object: a condition, or one of and / or / not")
        groups = [key for key in ("and", "or", "not") if _given(node, key)]
        leaf = [key for key in ("property", "field", "op", "value") if _given(node, key)]
        unknown = sorted(set(node) - {"and", "or", "not", "property", "field", "op", "value"})
        if unknown:
            raise InvalidInput(f"{path}.{unknown[0]}", f"unknown key {unknown[0]!r}: a condition has property or "
                                                       "field, op and value; a group and, or or not")
        if len(groups) + bool(leaf) != 1:
            raise InvalidInput(path, "give one condition, or exactly one of and / or / not")
        if leaf:
            self.conditions += 1
            if self.conditions > MAX_CONDITIONS:
                raise InvalidInput("where", f"more than {MAX_CONDITIONS} conditions")
            return _condition(node, path)
        kind = groups[0]
        if kind == "not":
            return Group("not", (self.node(node["not"], f"{path}.not", depth + 1),))
        children = node[kind]
        if not isinstance(children, list) or not children:
            raise InvalidInput(f"{path}.{kind}", "a non-empty list of conditions")
        return Group(cast(Literal["and", "or"], kind), tuple(self.node(child, f"{path}.{kind}[{i}]", depth + 1)
                                 for i, child in enumerate(children)))


def parse_where(where: Any) -> Where | None:
    """The checked tree of a `where`, or None when it is absent."""
    return None if where is None else _Parser().node(where, "where", 1)


def parse_order(order: Any) -> tuple[Sort, ...]:
    """The checked sort keys of an `orderBy` list (each {property | field, direction ASC | DESC})."""
    if order is None:
        return ()
    if not isinstance(order, list) or len(order) > MAX_SORTS:
        raise InvalidInput("orderBy", f"a list of at most {MAX_SORTS} sort keys")
    sorts: list[Sort] = []
    for i, key in enumerate(order):
        path = f"orderBy[{i}]"
        if not isinstance(key, Mapping):
            raise InvalidInput(path, "an object: {property or field, direction}")
        unknown = sorted(set(key) - {"property", "field", "direction"})
        if unknown:
            raise InvalidInput(f"{path}.{unknown[0]}", f"unknown key {unknown[0]!r}")
        name, field = _name(key, path)
        if field and name in LIST_FIELDS:
            raise InvalidInput(f"{path}.field", f"{name} is a list and has no order")
        direction = str(key.get("direction") or "ASC").upper()
        if direction not in ("ASC", "DESC"):
            raise InvalidInput(f"{path}.direction", "ASC or DESC")
        sorts.append(Sort(name, direction == "DESC", field))
    return tuple(sorts)
