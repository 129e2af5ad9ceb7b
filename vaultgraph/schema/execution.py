"""The schema's executor: graphql-core's, with plain attribute fields read without their per-field machinery, and
resolvers called without strawberry's argument conversion where their arguments need none (`use_lean_resolvers`).

A field strawberry calls "basic" (no resolver, no field extension: it returns the attribute of the same name) costs
graphql-core a `Path`, a resolve info, three calls down to `getattr`, an awaitable check and the completion of its
type, per field and object: most of a page's cost above the driver (bench/README.md, "the cost per object"). When
such a field is a scalar or an enum, takes no arguments and the executor runs no middleware, `execute_fields` here
reads the attribute and coerces it with the type's own `coerce_output_value`, as the completion would; anything
else (a null, `Undefined`, an exception or an awaitable as a value, a value the type refuses, a raising attribute)
goes the ordinary way, which answers it exactly as before, errors and all. One difference is by design: the plain
fields of an object are read before its resolver fields run, so a resolver that changed an attribute of its own
object would not be seen by a plain field asked after it (none of this schema's does; resolvers here read).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

import strawberry
from graphql import GraphQLField, GraphQLNonNull, GraphQLObjectType, GraphQLResolveInfo, Undefined, is_leaf_type
from graphql.execution.collect_fields import GroupedFieldSet
from graphql.pyutils import AwaitableOrValue, Path
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.arguments import StrawberryArgument
from strawberry.types.base import StrawberryList, StrawberryMaybe, StrawberryOptional
from strawberry.types.field import StrawberryField

# A plain leaf field's attribute name and its type's output coercion; kept on the GraphQLField itself (it does not
# hash, and a module-level map by identity would keep every schema ever executed alive).
LeafReader = tuple[str, Callable[[Any], Any]]
_UNKNOWN = object()


def _definition(field: GraphQLField) -> Any:
    """The strawberry field a GraphQL field was built from (strawberry keeps it in the field's extensions)."""
    return (field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)


def leaf_reader(field: GraphQLField) -> LeafReader | None:
    """How to read `field` directly, or None when it must go through its resolver (computed once per field)."""
    known = field.__dict__.get("_leaf_reader", _UNKNOWN)
    if known is not _UNKNOWN:
        return cast(LeafReader | None, known)
    reader: LeafReader | None = None
    definition = _definition(field)
    named = field.type.of_type if isinstance(field.type, GraphQLNonNull) else field.type
    if (definition is not None and getattr(definition, "is_basic_field", False) and not field.args
            and type(definition).get_result is StrawberryField.get_result
            and getattr(definition, "default_resolver", None) is getattr
            and getattr(field.resolve, "_is_default", False) and is_leaf_type(named)):
        reader = (definition.python_name, named.coerce_output_value)
    field._leaf_reader = reader  # type: ignore[attr-defined]
    return reader


class LeafFieldsExecutor(StrawberryGraphQLCoreExecutionContext):
    """strawberry's executor; plain leaf fields are read and coerced in place (see the module's text)."""

    def execute_fields(self, parent_type: GraphQLObjectType, source_value: Any, path: Path | None,
                       grouped_field_set: GroupedFieldSet, position_context: Any) -> AwaitableOrValue[dict[str, Any]]:
        manager = self.middleware_manager  # strawberry makes one per operation; it wraps resolvers if it has any
        if manager is not None and manager.middlewares:
            return super().execute_fields(parent_type, source_value, path, grouped_field_set, position_context)
        fields = parent_type.fields
        is_awaitable = self.is_awaitable
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
                    # what graphql-core answers before coercing (execute_field, complete_value) goes its way
                    if value is None or value is Undefined or isinstance(value, Exception) or is_awaitable(value):
                        coerced = None
                    else:
                        coerced = coerce(value)
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


# --- resolvers with arguments ---------------------------------------------------------------------------------------

# Argument types graphql-core's coercion already hands over as the resolver takes them (strawberry's own conversion
# returns them unchanged; a list is copied, as strawberry does, so a resolver never changes a default graphql-core
# gives every request).
_PLAIN_ARGUMENT_TYPES: frozenset[object] = frozenset({str, int, float, bool, strawberry.ID})


def _plain_argument(argument: StrawberryArgument, graphql_name: str) -> tuple[str, str, bool] | None:
    """(GraphQL name, Python name, whether a list) of an argument needing no conversion, else None."""
    kind = argument.type
    if isinstance(kind, StrawberryMaybe):
        return None
    if isinstance(kind, StrawberryOptional):
        kind = kind.of_type
    is_list = isinstance(kind, StrawberryList)
    if isinstance(kind, StrawberryList):
        kind = kind.of_type.of_type if isinstance(kind.of_type, StrawberryOptional) else kind.of_type
    if kind not in _PLAIN_ARGUMENT_TYPES or argument.python_name is None:
        return None
    return graphql_name, argument.python_name, is_list


def lean_resolver(field: StrawberryField, schema: strawberry.Schema) -> Callable[..., Any] | None:
    """A graphql-core resolver calling `field`'s resolver as strawberry's own wrapper does, without converting
    arguments that need no conversion (strawberry's `get_arguments` re-derives every argument's GraphQL name and
    walks its type on each call: a quarter of a page's execution when each of its 100 notes asks `backlinks`); None
    when the field needs strawberry's wrapper (field extensions and permissions, exception handlers, a subscription,
    an argument of an input, enum or custom scalar type)."""
    resolver = field.base_resolver
    converter = schema.schema_converter
    if (resolver is None or field.extensions or field.is_subscription or converter._exception_handler_specs
            or type(field).get_result is not StrawberryField.get_result or not callable(resolver.wrapped_func)):
        return None
    plan: list[tuple[str, str, bool]] = []
    for argument in field.arguments:
        plain = _plain_argument(argument, schema.config.name_converter.from_argument(argument))
        if plain is None:
            return None
        plan.append(plain)
    info_class = schema.config.info_class
    call = resolver.wrapped_func
    with_self = resolver.self_parameter is not None
    sources = [p.name for p in (resolver.parent_parameter, resolver.root_parameter) if p is not None]
    info_name = resolver.info_parameter.name if resolver.info_parameter is not None else None

    def resolve(source: Any, info: GraphQLResolveInfo[Any], **given: Any) -> Any:
        kwargs: dict[str, Any] = {}
        for graphql_name, python_name, is_list in plan:
            if graphql_name in given:
                value = given[graphql_name]
                kwargs[python_name] = list(value) if is_list and value is not None else value
        for name in sources:
            kwargs[name] = source
        if info_name is not None:
            kwargs[info_name] = info_class(_raw_info=info, _field=field)
        return call(source, **kwargs) if with_self else call(**kwargs)

    resolve._is_default = False  # type: ignore[attr-defined]  # as strawberry marks a field with a resolver
    return resolve


def use_lean_resolvers(schema: strawberry.Schema) -> int:
    """Give every object type's field that `lean_resolver` can serve that resolver; how many it took."""
    taken = 0
    for named in schema._schema.type_map.values():
        if not isinstance(named, GraphQLObjectType) or named.name.startswith("__"):
            continue
        for graphql_field in named.fields.values():
            definition = _definition(graphql_field)
            if not isinstance(definition, StrawberryField):
                continue
            lean = lean_resolver(definition, schema)
            if lean is not None:
                graphql_field.resolve = lean
                taken += 1
    return taken
