"""The schema's executor: graphql-core's, with plain attribute fields read without their per-field machinery, and
resolvers called without strawberry's argument conversion where their arguments need none (`use_lean_resolvers`).

A field strawberry calls "basic" (no resolver, no field extension: it returns the attribute of the same name) costs
graphql-core a `Path`, a resolve info, three calls down to `getattr`, an awaitable check and the completion of its
type, per field and object: most of a page's cost above the driver (bench/README.md, "the cost per object"). When
such a field is a scalar or an enum, takes no arguments and the executor runs no middleware, `execute_fields` here
reads the attribute and coerces it with the type's own `coerce_output_value`, as the completion would; anything
else (a null, `Undefined`, an exception or an awaitable as a value, a value the type refuses, a raising attribute)
goes the ordinary way, which answers it exactly as before, errors and all.

The same holds a level down: a plain field of an object or list type whose whole sub-selection is plain fields (a
traversal's `nodes { depth item { id title } }`, a graph view's `nodes`) is completed in place, each object's
runtime type told by its class (an interface's `resolve_type.by_class`, schema/types/items.py) and checked with
strawberry's own `is_type_of`, which reads nothing but the object. Anything in the subtree that graphql-core would
do more than read and coerce (a null where none is allowed, an exception or awaitable as a value, a resolver, a type
told only with a resolve info, @defer or @stream) sends the whole field the ordinary way from its start, which
reads the same attributes again (never a property or other computed attribute: an object holding one is left to
graphql-core, so no code runs twice). One difference is by design: the plain fields of an object are read before
its resolver fields run, so a resolver that changed an attribute of its own
object would not be seen by a plain field asked after it (none of this schema's does; resolvers here read).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import types
from collections.abc import Awaitable, Callable
from copy import copy
from typing import Any, cast

import strawberry
from graphql import (
    GraphQLAbstractType,
    GraphQLBoolean,
    GraphQLField,
    GraphQLID,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLResolveInfoHelpers,
    GraphQLSchema,
    GraphQLString,
    Undefined,
    is_leaf_type,
)
from graphql.execution.collect_fields import FieldDetailsList, GroupedFieldSet
from graphql.pyutils import AwaitableOrValue, Path, is_awaitable
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.arguments import StrawberryArgument
from strawberry.types.base import StrawberryList, StrawberryMaybe, StrawberryOptional
from strawberry.types.field import StrawberryField

# What the executor learns of a field is kept on the GraphQLField itself (it does not hash, and a module-level map
# by identity would keep every schema ever executed alive).
_UNKNOWN = object()
_ORDINARY = object()  # a plain subtree's answer when any part of it must take graphql-core's own path
_NO_INFO = cast("GraphQLResolveInfo[Any]", None)  # what an `info_free` type check is given
# Values that are neither awaitable nor an exception, told by their exact type (as strawberry's is_awaitable does).
_PLAIN_VALUES: frozenset[type] = frozenset({str, int, float, bool, list, tuple, dict})


def _definition(field: GraphQLField) -> Any:
    """The strawberry field a GraphQL field was built from (strawberry keeps it in the field's extensions)."""
    return (field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)


def plain_attribute(field: GraphQLField) -> str | None:
    """The attribute a field answers with when it is plain (no resolver, no field extension, no arguments: it
    returns the attribute of the same name), else None (computed once per field)."""
    known = field.__dict__.get("_plain_attribute", _UNKNOWN)
    if known is not _UNKNOWN:
        return cast(str | None, known)
    definition = _definition(field)
    name = None
    if (definition is not None and getattr(definition, "is_basic_field", False) and not field.args
            and type(definition).get_result is StrawberryField.get_result
            and getattr(definition, "default_resolver", None) is getattr
            and getattr(field.resolve, "_is_default", False)):
        name = definition.python_name
    field._plain_attribute = name  # type: ignore[attr-defined]
    return name


# A resolver that can often answer from its object alone (and the request's context), without a resolve info:
# `in_place(read)` in its strawberry.field's metadata gives `read(source, context)`, which returns what the resolver
# would return, or NOT_NOW when only the resolver can tell. Its answer is then completed like a plain field's.
InPlace = Callable[[Any, Any], Any]
NOT_NOW = _ORDINARY
_IN_PLACE = "vaultgraph.in_place"


def in_place(read: InPlace) -> dict[str, InPlace]:
    """The metadata of a field whose resolver `read` may answer for (`strawberry.field(metadata=in_place(read))`):
    it must return exactly what the resolver returns, or NOT_NOW."""
    return {_IN_PLACE: read}


def in_place_reader(field: GraphQLField) -> InPlace | None:
    """The in-place reader of a field without arguments, field extensions or permissions (computed once per
    field)."""
    known = field.__dict__.get("_in_place", _UNKNOWN)
    if known is not _UNKNOWN:
        return cast(InPlace | None, known)
    definition = _definition(field)
    read = None
    if (isinstance(definition, StrawberryField) and not field.args and not definition.extensions
            and not definition.permission_classes and not definition.is_subscription and definition.metadata):
        read = definition.metadata.get(_IN_PLACE)
    field._in_place = read  # type: ignore[attr-defined]
    return read


def info_free(check: Callable[..., Any] | None) -> bool:
    """Whether a type's `is_type_of` is strawberry's own, which reads only the object (its `_info` unused), so a
    plain subtree may ask it without building a resolve info."""
    code = getattr(check, "__code__", None)
    return (check is None or (getattr(check, "__module__", None) == "strawberry.schema.schema_converter"
                              and code is not None and code.co_varnames[:2] == ("obj", "_info")))


def runtime_type_of(abstract: GraphQLAbstractType, kind: type, schema: GraphQLSchema) -> GraphQLObjectType | None:
    """The object type a value of class `kind` completes as in a field of an interface or union type, when its type
    resolver tells it by the class alone (`resolve_type.by_class`, schema/types/items.py) and graphql-core would
    accept it; else None."""
    by_class = getattr(abstract.resolve_type, "by_class", None)
    name = by_class(kind) if by_class is not None else None
    runtime = schema.type_map.get(name) if isinstance(name, str) else None
    if isinstance(runtime, GraphQLObjectType) and schema.is_sub_type(abstract, runtime):
        return runtime
    return None


@functools.lru_cache(maxsize=4096)
def _computed(kind: type, name: str) -> bool:
    """Whether reading `name` off an object of `kind` runs code (a property, any descriptor but a slot): such a read
    is left to graphql-core, so a subtree completed the ordinary way after an in-place attempt runs it once. Asked
    once per class and name (`getattr_static` walks the class's MRO: a tenth of a small request's CPU, per request):
    a class given a property after it first served is not followed, as strawberry's schema, built once from the
    classes, does not follow it either."""
    found = inspect.getattr_static(kind, name, None)
    return hasattr(type(found), "__get__") and not isinstance(found, types.MemberDescriptorType)


# How a value of an output type is completed in place, worked out once per type and kept on it (as a field's
# reading is kept on the field): (non-null, kind, payload, exact). `kind` is _LEAF (payload: the type's
# `coerce_output_value`), _LIST (payload: the item type's shape) or _OBJECT (payload: the object, interface or union
# type). `exact`, for a leaf only, maps a value's exact class to what coercing any value of it answers: None for the
# value itself (a `str` as String or ID, a `bool` as Boolean), or a lookup (an enum's members, each coerced once).
_LEAF, _LIST, _OBJECT = 0, 1, 2
Shape = tuple[bool, int, Any, "dict[type, Callable[[Any], Any] | None] | None"]
_MISSING: Any = object()
_SAME: tuple[tuple[Callable[[Any], Any], type], ...] = ((GraphQLString.coerce_output_value, str),
                                                        (GraphQLID.coerce_output_value, str),
                                                        (GraphQLBoolean.coerce_output_value, bool))
# Enum values whose comparison and hash are the builtins' own and which cannot change: a table of such an enum's
# members answers what strawberry's coercion (comparing values on every call) would, and runs no code of the enum's.
_IMMUTABLE_VALUES: frozenset[type] = frozenset({str, int, float, bool, bytes, type(None)})


def shape_of(return_type: GraphQLOutputType) -> Shape:
    """The shape of an output type (see above), made at its first use."""
    known: Shape | None = return_type.__dict__.get("_vaultgraph_shape")
    if known is None:
        non_null = isinstance(return_type, GraphQLNonNull)
        inner = cast(GraphQLOutputType, return_type.of_type if non_null else return_type)  # type: ignore[union-attr]
        if isinstance(inner, GraphQLList):
            known = (non_null, _LIST, shape_of(inner.of_type), None)
        elif is_leaf_type(inner):
            coerce = inner.coerce_output_value
            known = (non_null, _LEAF, coerce, _exact(inner, coerce))
        else:
            known = (non_null, _OBJECT, inner, None)
        return_type._vaultgraph_shape = known  # type: ignore[union-attr]
    return known


def _exact(leaf: Any, coerce: Callable[[Any], Any]) -> dict[type, Callable[[Any], Any] | None]:
    """A leaf type's shortcuts: graphql-core's String, ID and Boolean answer a value of their own class unchanged; a
    strawberry enum whose members are plain (no exception, nothing awaitable, values of builtin immutable types)
    answers a member with the name it maps to, the same every time (looked up here by coercing each member once; a
    member it refuses is left out, to be refused again the ordinary way). Any other leaf has none."""
    for known, same in _SAME:
        if coerce is known:
            return {same: None}
    members = getattr(leaf, "wrapped_cls", None)  # strawberry's enum type
    if (not (isinstance(members, type) and issubclass(members, enum.Enum)) or issubclass(members, BaseException)
            or any(isinstance(getattr(members, name), types.FunctionType) and getattr(members, name) is not
                   getattr(enum.Enum, name) for name in ("__eq__", "__hash__"))):  # its own comparison: its code
        return {}
    names: dict[Any, Any] = {}
    for member in members:
        if is_awaitable(member) or type(member.value) not in _IMMUTABLE_VALUES:
            return {}
        with contextlib.suppress(Exception):
            names[member] = coerce(member)
    return {members: names.__getitem__}


class _Plan:
    """How an object's grouped field set is executed: the fields answered in place (`reads`: response name, how
    to read it (a plain field's attribute, or an `in_place` reader, `attribute` telling which), the field type's
    shape and the field's details) and the rest through graphql-core (`rest`)."""

    __slots__ = ("reads", "rest", "_computes")

    def __init__(self, parent_type: GraphQLObjectType, grouped_field_set: GroupedFieldSet) -> None:
        self.reads: list[tuple[str, Any, bool, Shape, FieldDetailsList]] = []
        self.rest: GroupedFieldSet = {}
        self._computes: dict[type, bool] = {}
        fields = parent_type.fields
        for response_name, details in grouped_field_set.items():
            node = details[0].node
            field = fields.get(node.name.value)
            read = (plain_attribute(field) or in_place_reader(field)) if field is not None and not node.arguments \
                else None
            if read is None or any(d.node.directives for d in details):  # @stream on a list takes its own path
                self.rest[response_name] = details
                continue
            self.reads.append((response_name, read, isinstance(read, str), shape_of(field.type), details))

    def computes(self, kind: type) -> bool:
        """Whether an object of class `kind` computes an attribute these reads take (a property on a subclass of the
        type, say): its fields are then left to graphql-core, which reads each once."""
        known = self._computes.get(kind)
        if known is None:
            known = self._computes[kind] = any(
                attribute and _computed(kind, read) for _, read, attribute, *_ in self.reads)
        return known


class LeafFieldsExecutor(StrawberryGraphQLCoreExecutionContext):
    """strawberry's executor; plain fields are read and completed in place (see the module's text)."""

    _plans: dict[tuple[int, str], tuple[GroupedFieldSet, _Plan]]
    _objects: dict[tuple[int, str, type], tuple[FieldDetailsList, tuple[GraphQLObjectType, _Plan] | None]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # graphql-core binds the helpers it hands resolvers (`info.async_helpers`) to the executor, which holds
        # them: a reference cycle, so each operation's executor, and through it the context with its request,
        # loaders and all they loaded, stayed until the cyclic collector came by instead of going with the answer
        # (a fifth of a `{ __typename }`'s CPU, bench/README.md). They are bound to a shallow copy instead, which
        # shares the executor's state as graphql-core's own sub-executors (copies too) do, and does not refer back.
        twin = copy(self)
        del twin.async_helpers  # the helpers bound to `self`
        self.async_helpers = GraphQLResolveInfoHelpers(gather=twin.gather_async_work, track=twin.track_async_work)

    def _plan(self, parent_type: GraphQLObjectType, grouped_field_set: GroupedFieldSet) -> _Plan:
        """The plan of a grouped field set, made once per operation: graphql-core hands the same field set for every
        object of a list (`collect_subfields` memoizes it), and it is kept alive with its plan so its id is not
        reused."""
        plans = self.__dict__.get("_plans")
        if plans is None:
            plans = self._plans = {}
        key = (id(grouped_field_set), parent_type.name)
        known = plans.get(key)
        if known is None:
            known = plans[key] = (grouped_field_set, _Plan(parent_type, grouped_field_set))
        return known[1]

    def execute_fields(self, parent_type: GraphQLObjectType, source_value: Any, path: Path | None,
                       grouped_field_set: GroupedFieldSet, position_context: Any) -> AwaitableOrValue[dict[str, Any]]:
        manager = self.middleware_manager  # strawberry makes one per operation; it wraps resolvers if it has any
        if manager is not None and manager.middlewares:
            return super().execute_fields(parent_type, source_value, path, grouped_field_set, position_context)
        plan = self._plan(parent_type, grouped_field_set)
        if plan.computes(type(source_value)):
            return super().execute_fields(parent_type, source_value, path, grouped_field_set, position_context)
        done: dict[str, Any] = {}
        rest: GroupedFieldSet = dict(plan.rest) if plan.rest else {}
        context = self.context_value
        for response_name, read, attribute, shape, details in plan.reads:
            try:
                value = getattr(source_value, read, _ORDINARY) if attribute else read(source_value, context)
                if shape[1] != _LEAF and position_context is not None:  # under @defer graphql-core tracks objects
                    answer = _ORDINARY
                else:
                    answer = self._complete_plain(shape, details, value)
            except Exception:  # the ordinary path raises it again, as a field error with its path
                answer = _ORDINARY
            if answer is _ORDINARY:
                rest[response_name] = grouped_field_set[response_name]
            else:
                done[response_name] = answer
        if not rest:
            return done  # every field read, in the plan's order: the query's
        if not done:
            return super().execute_fields(parent_type, source_value, path, grouped_field_set, position_context)
        if len(rest) != len(plan.rest):
            rest = {name: details for name, details in grouped_field_set.items() if name in rest}  # in order
        others = super().execute_fields(parent_type, source_value, path, rest, position_context)
        if self.is_awaitable(others):
            return self._merged(grouped_field_set, done, cast(Awaitable[dict[str, Any]], others))
        return _in_order(grouped_field_set, done, cast(dict[str, Any], others))

    def complete_value(self, return_type: GraphQLOutputType, field_details_list: FieldDetailsList,
                       info: GraphQLResolveInfo[Any], path: Path, result: Any, position_context: Any) -> Any:
        """A resolver's value whose whole subtree is plain or in place (a page's edges, a traversal's result) is
        completed in place too; anything else, graphql-core's way."""
        manager = self.middleware_manager
        if result is self.__dict__.get("_declined", _UNKNOWN):
            # graphql-core's own recursion (a non-null's inner type) with the value just declined: not again
            self._declined = _UNKNOWN
        elif (position_context is None and (manager is None or not manager.middlewares)
              and not any(details.node.directives for details in field_details_list)):  # @stream: its own path
            try:
                answer = self._complete_plain(shape_of(return_type), field_details_list, result)
            except Exception:  # the ordinary path raises it again, as a field error with its path
                answer = _ORDINARY
            if answer is not _ORDINARY:
                return answer
            self._declined = result
        return super().complete_value(return_type, field_details_list, info, path, result, position_context)

    def _complete_plain(self, shape: Shape, details: FieldDetailsList, value: Any) -> Any:
        """`complete_value` for a value of a plain field whose whole subtree is plain fields (`shape`: its type's,
        `shape_of`), with its answer, or `_ORDINARY` where graphql-core would do more than read and coerce (a null
        where one is not allowed, an exception or an awaitable as a value, a resolver below, a type it checks with a
        resolve info): the subtree is then completed the ordinary way from its start, which reads the same
        attributes again."""
        non_null, kind, payload, exact = shape
        if value is None or value is Undefined:
            return _ORDINARY if non_null else None
        if value is _ORDINARY:  # no such attribute: graphql-core's error
            return _ORDINARY
        value_type = type(value)
        if exact is not None:  # a leaf
            shortcut = exact.get(value_type, _MISSING)
            if shortcut is None:
                return value
            if shortcut is not _MISSING:
                return shortcut(value)
        if value_type not in _PLAIN_VALUES and (isinstance(value, Exception) or self.is_awaitable(value)):
            return _ORDINARY
        if kind == _LEAF:
            answer = payload(value)
            return _ORDINARY if answer is None or answer is Undefined else answer
        if kind == _LIST:
            if value_type is not list and value_type is not tuple:
                return _ORDINARY
            items = []
            for item in value:
                answer = self._complete_plain(payload, details, item)
                if answer is _ORDINARY:
                    return _ORDINARY
                items.append(answer)
            return items
        known = self._object_plan(payload, details, value_type)
        if known is None:
            return _ORDINARY
        runtime, plan = known
        if runtime.is_type_of is not None and runtime.is_type_of(value, _NO_INFO) is not True:
            return _ORDINARY
        answers: dict[str, Any] = {}
        context = self.context_value
        for response_name, read, attribute, field_shape, field_details in plan.reads:
            field_value = getattr(value, read, _ORDINARY) if attribute else read(value, context)
            exact = field_shape[3]
            if exact is not None:  # a leaf: its shortcut, inline (most of a page's fields)
                shortcut = exact.get(type(field_value), _MISSING)
                if shortcut is None:
                    answers[response_name] = field_value
                    continue
                if shortcut is not _MISSING:
                    answers[response_name] = shortcut(field_value)
                    continue
            answer = self._complete_plain(field_shape, field_details, field_value)
            if answer is _ORDINARY:
                return _ORDINARY
            answers[response_name] = answer
        return answers

    def _object_plan(self, return_type: GraphQLOutputType, details: FieldDetailsList,
                     kind: type) -> tuple[GraphQLObjectType, _Plan] | None:
        """The object type a value of class `kind` completes as and the plan of its sub-selection, or None when
        graphql-core must complete it (its type is told only with a resolve info, or the selection holds a resolver
        or @defer). Made once per operation for a field's details and a class."""
        objects = self.__dict__.get("_objects")
        if objects is None:
            objects = self._objects = {}
        key = (id(details), return_type.name, kind)  # type: ignore[union-attr]
        known = objects.get(key)
        if known is not None:
            return known[1]
        answer: tuple[GraphQLObjectType, _Plan] | None = None
        runtime: GraphQLObjectType | None
        if isinstance(return_type, GraphQLObjectType):
            runtime = return_type
        else:
            runtime = runtime_type_of(cast(GraphQLAbstractType, return_type), kind, self.schema)
        if runtime is not None and info_free(runtime.is_type_of):
            grouped_field_set, defer_usages, *_ = self.collect_subfields(runtime, details)
            plan = self._plan(runtime, grouped_field_set)
            if not defer_usages and not plan.rest and not plan.computes(kind):
                answer = (runtime, plan)
        objects[key] = (details, answer)  # the details kept alive with it, so their id is not reused
        return answer

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
