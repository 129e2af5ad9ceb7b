"""The schema's executor: graphql-core's, with plain attribute fields read without their per-field machinery.

A field strawberry calls "basic" (no resolver, no field extension: it returns the attribute of the same name) costs
graphql-core a `Path`, a resolve info, three calls down to `getattr`, an awaitable check and the completion of its
type, per field and object: most of a page's cost above the driver (bench/README.md, "the cost per object"). When
such a field is a scalar or an enum, takes no arguments and the executor runs no middleware, `execute_fields` here
reads the attribute and coerces it with the type's own `coerce_output_value`, as the completion would; anything
else (a null, a value the type refuses, a missing attribute) goes the ordinary way, which answers it exactly as
before, errors and all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from graphql import GraphQLField, GraphQLNonNull, GraphQLObjectType, Undefined, is_leaf_type
from graphql.execution.collect_fields import GroupedFieldSet
from graphql.pyutils import AwaitableOrValue, Path
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import GraphQLCoreConverter

# A plain leaf field's attribute name and its type's output coercion.
LeafReader = tuple[str, Callable[[Any], Any]]
# By the field's identity (a GraphQLField does not hash), holding the field so that the identity stays its own.
_readers: dict[int, tuple[GraphQLField, LeafReader | None]] = {}


def leaf_reader(field: GraphQLField) -> LeafReader | None:
    """How to read `field` directly, or None when it must go through its resolver (computed once per field)."""
    known = _readers.get(id(field))
    if known is not None and known[0] is field:
        return known[1]
    reader: LeafReader | None = None
    definition = (field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
    named = field.type.of_type if isinstance(field.type, GraphQLNonNull) else field.type
    if (definition is not None and getattr(definition, "is_basic_field", False) and not field.args
            and getattr(definition, "default_resolver", None) is getattr
            and getattr(field.resolve, "_is_default", False) and is_leaf_type(named)):
        reader = (definition.python_name, named.coerce_output_value)
    _readers[id(field)] = (field, reader)
    return reader


class LeafFieldsExecutor(StrawberryGraphQLCoreExecutionContext):
    """strawberry's executor; plain leaf fields are read and coerced in place (see the module's text)."""

    def execute_fields(self, parent_type: GraphQLObjectType, source_value: Any, path: Path | None,
                       grouped_field_set: GroupedFieldSet, position_context: Any) -> AwaitableOrValue[dict[str, Any]]:
        manager = self.middleware_manager  # strawberry makes one per operation; it wraps resolvers if it has any
        if manager is not None and manager.middlewares:
            return super().execute_fields(parent_type, source_value, path, grouped_field_set, position_context)
        fields = parent_type.fields
        done: dict[str, Any] = {}
        rest: GroupedFieldSet = {}
        for response_name, details in grouped_field_set.items():
            node = details[0].node
            field = fields.get(node.name.value)
            reader = leaf_reader(field) if field is not None and not node.arguments else None
            if reader is not None:
                name, coerce = reader
                try:
                    value = getattr(source_value, name, None)
                    coerced = coerce(value) if value is not None else None
                except Exception:  # the ordinary path raises it again, as a field error with its path
                    coerced = None
                if coerced is not None and coerced is not Undefined:
                    done[response_name] = coerced
                    continue
            rest[response_name] = details
        if not rest:
            return done
        if not done:
            return super().execute_fields(parent_type, source_value, path, grouped_field_set, position_context)
        others = super().execute_fields(parent_type, source_value, path, rest, position_context)
        if self.is_awaitable(others):
            return self._merged(grouped_field_set, done, cast(Awaitable[dict[str, Any]], others))
        return _in_order(grouped_field_set, done, cast(dict[str, Any], others))

    @staticmethod
    async def _merged(grouped_field_set: GroupedFieldSet, done: dict[str, Any],
                      others: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        return _in_order(grouped_field_set, done, await others)


def _in_order(grouped_field_set: GroupedFieldSet, done: dict[str, Any], others: dict[str, Any]) -> dict[str, Any]:
    """The response's fields in the order the query asked them (the spec's ordering of a result map)."""
    return {name: done[name] if name in done else others[name]
            for name in grouped_field_set if name in done or name in others}
