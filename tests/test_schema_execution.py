"""The schema's executor (schema/execution.py) reads plain leaf fields without graphql-core's per-field machinery: every
answer — data, errors, their messages and paths, the order of a result's keys — must be the one strawberry's own
executor gives, and the fast path must still be taken (a strawberry release that renames its markers would silently
turn it off)."""

from __future__ import annotations

import asyncio
import enum
import gc
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NewType

import pytest
import strawberry
from graphql import Undefined
from strawberry.scalars import JSON
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types.field import StrawberryField

from vaultgraph.schema.execution import (
    NOT_NOW,
    LeafFieldsExecutor,
    in_place,
    info_free,
    plain_attribute,
    runtime_type_of,
    use_lean_resolvers,
)
from vaultgraph.schema.scalars import SCALARS
from vaultgraph.schema.types.items import type_name_by_class


@strawberry.enum
class Colour(enum.Enum):
    RED = "RED"
    BLUE = "BLUE"


@strawberry.interface
class Thing:
    id: strawberry.ID
    title: str


@strawberry.type
class Card(Thing):
    count: int
    note: str | None
    colour: Colour
    at: datetime
    ratio: float
    done: bool = False

    @strawberry.field
    def shout(self, times: int = 1) -> str:
        return self.title.upper() * times

    @strawberry.field
    async def later(self) -> str:
        return f"later {self.id}"


@strawberry.type
class Broken:
    fails: str


class Shout(str):
    pass


class BrokenSource:
    """What a resolver may hand over for a `Broken`: an object whose attribute raises."""

    @property
    def fails(self) -> str:
        raise RuntimeError("the property failed")


def _card(i: int, **overrides: Any) -> Card:
    fields: dict[str, Any] = {"id": strawberry.ID(f"c{i}"), "title": f"card {i}", "count": i, "note": None,
                              "colour": Colour.RED if i % 2 else Colour.BLUE,
                              "at": datetime(2026, 12, 6, 10, i, tzinfo=UTC), "ratio": i / 3}
    fields.update(overrides)
    return Card(**fields)


@strawberry.type
class Query:
    @strawberry.field
    async def cards(self) -> list[Card]:
        return [_card(i) for i in range(5)]

    @strawberry.field
    def things(self) -> list[Thing]:
        return [_card(i) for i in range(3)]

    @strawberry.field
    def bad_count(self) -> list[Card]:
        return [_card(1), _card(2, count=None), _card(3)]

    @strawberry.field
    def bad_colour(self) -> Card:
        return _card(1, colour="GREEN")

    @strawberry.field
    def odd_values(self) -> list[Card]:
        """Values of a leaf's class that its shortcut does not take (schema/execution.py `_exact`): a str subclass
        as String and ID, an int as Boolean, a string as an enum."""
        return [_card(1, title=Shout("loud"), id=Shout("c1"), done=1), _card(2, done=True, colour="BLUE")]

    @strawberry.field
    def bad_int(self) -> Card:
        return _card(1, count=2**40)

    @strawberry.field
    def broken(self) -> Broken | None:
        return BrokenSource()  # type: ignore[return-value]


QUERIES = [
    "{ cards { id title count note colour at ratio } }",
    "{ cards { ratio at colour note count title id } }",
    "{ cards { a: title b: title id shout(times: 2) later count __typename } }",
    "{ things { __typename id ... on Card { count colour } ...More } } fragment More on Card { title note at }",
    "{ badCount { id count title } }",
    "{ badColour { id colour } }",
    "{ oddValues { id title done colour } cards { done colour } }",
    "{ badInt { id count } }",
    "{ broken { fails } }",
]


def _schema(executor: type[StrawberryGraphQLCoreExecutionContext]) -> strawberry.Schema:
    return strawberry.Schema(Query, config=strawberry.schema.config.StrawberryConfig(scalar_map=SCALARS),
                             execution_context_class=executor)


def _answer(result: Any) -> tuple[Any, list[tuple[str, list[Any] | None]]]:
    errors = [(error.message, error.path) for error in result.errors or ()]
    return result.data, errors


async def _as_strawberry_answers(build: Callable[[type[StrawberryGraphQLCoreExecutionContext]], strawberry.Schema],
                                  query: str) -> None:
    """The schema's executor and strawberry's answer `query` alike: data, errors and their paths, and the order of
    every result map's keys, at every level."""
    ours = await build(LeafFieldsExecutor).execute(query)
    theirs = await build(StrawberryGraphQLCoreExecutionContext).execute(query)
    assert _answer(ours) == _answer(theirs)
    if theirs.data is not None:
        assert str(ours.data) == str(theirs.data)  # key order


@pytest.mark.parametrize("query", QUERIES)
async def test_every_answer_is_strawberrys_own(query: str) -> None:
    await _as_strawberry_answers(_schema, query)


async def test_errors_of_leaf_fields_keep_their_paths() -> None:
    result = await _schema(LeafFieldsExecutor).execute("{ badCount { id count } }")
    assert result.data is None  # a non-null item of a non-null list failed: the null reaches the root
    [error] = result.errors or []
    assert error.path == ["badCount", 1, "count"]
    assert "Cannot return null for non-nullable field Card.count" in error.message


def test_the_fast_path_is_taken_for_plain_leaf_fields_only() -> None:
    schema = _schema(LeafFieldsExecutor)
    card = schema._schema.type_map["Card"]
    fields = card.fields  # type: ignore[attr-defined]
    taken = {name for name, field in fields.items() if plain_attribute(field) is not None}
    assert taken == {"id", "title", "count", "note", "colour", "at", "ratio", "done"}, (
        "strawberry's basic-field markers (DEFINITION_BACKREF, is_basic_field, _is_default) changed: the executor "
        "no longer reads plain fields directly")


@strawberry.input
class Window:
    size: int


@strawberry.type
class Shelf:
    name: str

    @strawberry.field
    def books(self, info: strawberry.Info, tags: list[str] | None = None, first: int | None = None,
              after: str | None = None, ids: list[strawberry.ID] | None = None) -> str:
        assert info.field_name == "books"
        if tags is not None:
            tags.append("changed")  # the resolver's own copy: the next request's default stays as it was
        return f"{self.name}: tags={tags} first={first} after={after} ids={ids}"

    @strawberry.field
    async def count(self, root: Shelf, times: int = 2) -> int:
        return len(root.name) * times

    @strawberry.field
    def coloured(self, colour: Colour = Colour.RED) -> str:  # an enum: strawberry's own wrapper
        return f"{self.name} {colour.value}"

    @strawberry.field
    def windowed(self, window: Window | None = None) -> int:  # an input: strawberry's own wrapper
        return window.size if window else 0

    @strawberry.field
    def fails(self, first: int = 1) -> int:
        raise ValueError(f"no {first}")


@strawberry.type
class ShelfQuery:
    @strawberry.field
    def shelves(self, names: list[str] = ("a", "bb")) -> list[Shelf]:  # type: ignore[assignment]
        return [Shelf(name=name) for name in names]


SHELF_QUERIES = [
    '{ shelves { name books } }',
    '{ shelves(names: ["x"]) { books(tags: ["t1", "t2"], first: 3, after: "c", ids: ["1", "2"]) count } }',
    'query Q($tags: [String!], $n: Int) { shelves { books(tags: $tags, first: $n) count(times: $n) } }',
    '{ shelves { coloured(colour: BLUE) windowed(window: {size: 4}) } }',
    '{ shelves { name fails(first: 7) } }',
    '{ shelves { books(first: "not a number") } }',
]


def _shelves(lean: bool) -> strawberry.Schema:
    schema = strawberry.Schema(ShelfQuery, execution_context_class=LeafFieldsExecutor)
    if lean:
        use_lean_resolvers(schema)
    return schema


@pytest.mark.parametrize("query", SHELF_QUERIES)
async def test_resolvers_called_without_strawberrys_wrapper_answer_the_same(query: str) -> None:
    variables = {"tags": ["v"], "n": 5}
    for _ in range(2):  # twice: the first request's resolver changing its list changes no default
        ours = await _shelves(True).execute(query, variable_values=variables)
        theirs = await _shelves(False).execute(query, variable_values=variables)
        assert _answer(ours) == _answer(theirs)


def test_only_resolvers_with_plain_arguments_lose_strawberrys_wrapper() -> None:
    schema = _shelves(False)
    assert use_lean_resolvers(schema) == 4  # shelves, books, count, fails
    shelf = schema._schema.type_map["Shelf"].fields  # type: ignore[attr-defined]
    lean = {name for name, field in shelf.items() if field.resolve.__qualname__.startswith("lean_resolver")}
    assert lean == {"books", "count", "fails"}, (
        "strawberry's resolver markers (base_resolver, arguments, reserved parameters) changed")


class Missing(Exception):
    pass


@strawberry.type
class Odd:
    """Values graphql-core deals with before coercing: an awaitable is awaited, an exception is a field error,
    Undefined is null (reviewed: the fast path coerced them as values)."""

    title: str
    label: str | None
    meta: JSON
    nothing: str | None


async def _meta() -> dict[str, int]:
    return {"a": 1}


class Shouting(StrawberryField):
    def get_result(self, source: Any, info: Any, args: list[Any], kwargs: Any) -> Any:
        return str(super().get_result(source, info, args, kwargs)).upper()


@strawberry.type
class Loud:
    name: str = Shouting()  # type: ignore[assignment]


@strawberry.type
class OddQuery:
    @strawberry.field
    async def odd(self) -> Odd:
        future = asyncio.get_running_loop().create_future()
        future.set_result("the title")
        return Odd(title=future, label=Missing("no label"), meta=_meta(), nothing=Undefined)  # type: ignore[arg-type]

    @strawberry.field
    def loud(self) -> Loud:
        return Loud(name="quiet")


async def test_values_graphql_core_handles_before_coercing_go_its_way() -> None:
    answers = []
    for executor in (LeafFieldsExecutor, StrawberryGraphQLCoreExecutionContext):
        schema = strawberry.Schema(OddQuery, config=strawberry.schema.config.StrawberryConfig(scalar_map=SCALARS),
                                   execution_context_class=executor)
        answers.append(_answer(await schema.execute("{ odd { title label meta nothing } loud { name } }")))
    assert answers[0] == answers[1]
    assert answers[0] == ({"odd": {"title": "the title", "label": None, "meta": {"a": 1}, "nothing": None},
                           "loud": {"name": "QUIET"}}, [("no label", ["odd", "label"])])


async def test_the_fast_path_keeps_no_schema_alive() -> None:
    # What the executor learns of a field stays on the field: a schema built, executed and dropped is collected.
    import weakref

    schema = _schema(LeafFieldsExecutor)
    await schema.execute(QUERIES[0])
    gone = weakref.ref(schema._schema)
    del schema
    gc.collect()
    assert gone() is None


# --- plain subtrees: plain fields of object, interface and list types completed in place ---------------------------

@strawberry.interface
class Shape:
    id: strawberry.ID

    @staticmethod
    def resolve_type(obj: Any, info: Any, abstract_type: Any) -> Any:
        return type_name_by_class(type(obj))


Shape.resolve_type.by_class = type_name_by_class  # type: ignore[attr-defined]  # as schema/types/items.py's Node


@strawberry.type
class Square(Shape):
    side: int
    colour: Colour | None


@strawberry.type
class Circle(Shape):
    radius: float


class Plain:
    """A source object of no strawberry type: an interface field holding it goes graphql-core's way."""

    id = strawberry.ID("p")


@strawberry.type
class Tag:
    name: str

    # Answered in place but for one name, which only the resolver answers: both must give the same.
    @strawberry.field(metadata=in_place(lambda tag, _: tag.name.upper() if tag.name != "later" else NOT_NOW))
    def loud(self) -> str:
        return self.name.upper()

    @strawberry.field(metadata=in_place(lambda tag, _: None))  # wrong on purpose: a non-null field answered null
    def never_null(self) -> str:
        return self.name


@strawberry.type
class Box:
    label: str
    tags: list[Tag]
    card: Card | None
    cards: list[Card]
    pair: list[Card | None] | None
    shapes: list[Shape]
    things: list[Thing]  # strawberry's default type resolver: completed by graphql-core
    broken: Broken | None


def _box(i: int, **overrides: Any) -> Box:
    fields: dict[str, Any] = {
        "label": f"box {i}", "card": _card(i) if i % 2 else None, "cards": [_card(i), _card(i + 1)],
        "pair": (_card(i), None), "shapes": [Square(id=strawberry.ID(f"s{i}"), side=i, colour=None),
                                              Circle(id=strawberry.ID(f"c{i}"), radius=i / 2)],
        "things": [_card(i)], "broken": None, "tags": [Tag(name=f"t{i}"), Tag(name="later")]}
    fields.update(overrides)
    return Box(**fields)


@strawberry.type
class BoxQuery:
    @strawberry.field
    def boxes(self) -> list[Box]:
        return [_box(i) for i in range(4)]

    @strawberry.field
    def bad_deep(self) -> list[Box]:  # a non-null leaf two levels down is null in the third box
        return [_box(0), _box(1), _box(2, cards=[_card(3), _card(4, count=None)])]

    @strawberry.field
    def odd_deep(self) -> list[Box]:  # an exception, a missing attribute and an awaitable-free odd shape down below
        return [_box(0, card=_card(1, note=Missing("no note"))), _box(1, shapes=[Plain()]),
                _box(2, broken=BrokenSource())]

    @strawberry.field
    def bad_list(self) -> Box:
        return _box(1, cards="not a list")


BOX_QUERIES = [
    "{ boxes { label card { id count colour } cards { id title at } pair { id } } }",
    "{ boxes { shapes { id ... on Square { side colour } ... on Circle { radius } } } }",
    "{ boxes { shapes { __typename id } things { id title } } }",
    "{ boxes { a: label cards { shout(times: 2) id } card { later } } }",
    "{ boxes { cards { id count @include(if: false) title @skip(if: true) note } } }",
    "{ badDeep { label cards { id count } } }",
    "{ oddDeep { card { id note } } }",
    "{ oddDeep { shapes { id } } }",
    "{ oddDeep { broken { fails } } }",
    "{ badList { cards { id } } }",
    "{ boxes { tags { name loud } } }",
    "{ boxes { tags { neverNull } } }",
]


def _boxes(executor: type[StrawberryGraphQLCoreExecutionContext]) -> strawberry.Schema:
    return strawberry.Schema(BoxQuery, types=[Square, Circle, Card],
                             config=strawberry.schema.config.StrawberryConfig(scalar_map=SCALARS),
                             execution_context_class=executor)


@pytest.mark.parametrize("query", BOX_QUERIES)
async def test_plain_subtrees_answer_as_strawberry_does(query: str) -> None:
    await _as_strawberry_answers(_boxes, query)


class CountingExecutor(LeafFieldsExecutor):
    completed: list[str] = []

    def complete_value(self, return_type: Any, *args: Any) -> Any:
        CountingExecutor.completed.append(str(return_type))
        return super().complete_value(return_type, *args)


async def test_a_plain_subtree_is_completed_without_graphql_cores_completion() -> None:
    CountingExecutor.completed = []
    schema = _boxes(CountingExecutor)
    result = await schema.execute(BOX_QUERIES[0].replace("boxes {", "boxes { shapes { id ... on Square { side } }"))
    assert result.errors is None
    # The root resolver's list is completed in place as a whole: graphql-core's completion is never entered.
    assert CountingExecutor.completed == ["[Box!]!"], CountingExecutor.completed


def test_strawberrys_type_checks_read_only_the_object() -> None:
    schema = _boxes(LeafFieldsExecutor)._schema
    square = schema.type_map["Square"]
    assert info_free(square.is_type_of) and square.is_type_of(Square(id="s", side=1, colour=None), None), (
        "strawberry's is_type_of changed its parameters: plain subtrees of interface types are no longer completed "
        "in place")
    assert runtime_type_of(schema.type_map["Shape"], Circle, schema) is schema.type_map["Circle"]
    assert runtime_type_of(schema.type_map["Thing"], Card, schema) is None  # strawberry's resolver needs an info
    assert not info_free(lambda obj, info: True)


# --- found by review: @stream, computed attributes --------------------------------------------------------------------

@strawberry.type
class Streamed:
    cards: list[Card]  # a plain field


@strawberry.type
class StreamQuery:
    @strawberry.field
    def cards(self) -> list[Card]:  # a resolver's list
        return [_card(i) for i in range(3)]

    @strawberry.field
    def holder(self) -> Streamed:
        return Streamed(cards=[_card(i) for i in range(3)])


@pytest.mark.parametrize("query", ["{ cards @stream(initialCount: 1) { id } }",
                                   "{ holder { cards @stream(initialCount: 1) { id } } }",
                                   "{ cards @stream(initialCount: -1) { id } }"])
async def test_a_streamed_list_keeps_graphql_cores_stream(query: str) -> None:
    answers = []
    for executor in (LeafFieldsExecutor, StrawberryGraphQLCoreExecutionContext):
        config = strawberry.schema.config.StrawberryConfig(scalar_map=SCALARS,
                                                           enable_experimental_incremental_execution=True)
        result = await strawberry.Schema(StreamQuery, config=config, execution_context_class=executor).execute(query)
        initial = getattr(result, "initial_result", result)
        answers.append((type(result).__name__, _answer(initial), getattr(initial, "has_next", None)))
    assert answers[0] == answers[1]


READS: list[str] = []


@strawberry.type
class Leaf:
    name: str


class Counted:
    """A source object whose attribute is computed (a lazy load, an audit log): each read is counted."""

    def __init__(self, leaf: Leaf) -> None:
        self.leaf = leaf

    @property
    def visits(self) -> int:
        READS.append("visits")
        return 1


@strawberry.type
class Visited:
    visits: int
    leaf: Leaf | None


@strawberry.type
class VisitQuery:
    @strawberry.field
    def boxes(self) -> list[Visited]:
        return [Counted(Leaf(name="a")), Counted(Leaf(name=None))]  # type: ignore[list-item, arg-type]


async def test_a_computed_attribute_runs_as_often_as_strawberry_runs_it() -> None:
    counts = []
    for executor in (LeafFieldsExecutor, StrawberryGraphQLCoreExecutionContext):
        READS.clear()
        result = await strawberry.Schema(VisitQuery, execution_context_class=executor).execute(
            "{ boxes { visits leaf { name } } }")
        counts.append((len(READS), _answer(result)))
    assert counts[0] == counts[1]
    assert counts[0][0] == 2


# --- values a leaf's shortcut must leave to the ordinary path (a review of the shortcuts, 2026-12-06) ----------------

@strawberry.enum
class Alarm(ValueError, enum.Enum):  # members that are exceptions: graphql-core raises them as field errors
    RING = "ring"


class _Later(enum.Enum):
    SOON = "soon"
    NOW = "now"

    def __await__(self) -> Any:  # members that are awaitable: graphql-core awaits them
        yield from asyncio.sleep(0).__await__()
        return _Later.NOW


Later = strawberry.enum(_Later)


class Exclaim:
    """An unhashable serializer (a dataclass-like `__eq__`, no `__hash__`)."""

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Exclaim)

    def __call__(self, value: str) -> str:
        return value.upper() + "!"


Bang = NewType("Bang", str)
BANG = strawberry.scalar(name="Bang", serialize=Exclaim(), parse_value=str)


@strawberry.type
class Quirky:
    alarm: Alarm | None
    later: Later | None
    bang: Bang
    title: str


class QuirkyWithProperty(Quirky):
    """A subclass whose `title` is computed: read once, as strawberry reads it, even when its value is refused."""

    @property  # type: ignore[override]
    def title(self) -> str:
        READS.append("title")
        return None  # type: ignore[return-value]

    @title.setter
    def title(self, value: str) -> None:
        pass


@strawberry.type
class ShortcutQuery:
    @strawberry.field
    def quirky(self) -> Quirky:
        return Quirky(alarm=Alarm.RING, later=Later.SOON, bang="hi", title="t")  # type: ignore[arg-type]

    @strawberry.field
    def quirkies(self) -> list[Quirky]:
        return [Quirky(alarm=None, later=Later.SOON, bang="a", title="t"),  # type: ignore[arg-type]
                Quirky(alarm=Alarm.RING, later=None, bang="b", title="u")]  # type: ignore[arg-type]

    @strawberry.field
    def alarm(self) -> Alarm | None:
        return Alarm.RING

    @strawberry.field
    def computed(self) -> Quirky:
        return QuirkyWithProperty(alarm=None, later=None, bang="c", title="t")  # type: ignore[arg-type]


@pytest.mark.parametrize("query", ["{ quirky { alarm later bang title } }", "{ quirkies { later alarm bang } }",
                                   "{ alarm }", "{ computed { bang title } }"])
async def test_values_a_shortcut_must_not_take_answer_as_strawberry_does(query: str) -> None:
    def build(executor: type[StrawberryGraphQLCoreExecutionContext]) -> strawberry.Schema:
        return strawberry.Schema(ShortcutQuery, execution_context_class=executor,
                                 config=strawberry.schema.config.StrawberryConfig(scalar_map={Bang: BANG}))

    await _as_strawberry_answers(build, query)
    # The property is read as often by ours as by strawberry's (once), counted without strawberry's error log, whose
    # handlers may render a traceback's locals through their reprs.
    quiet = logging.getLogger("strawberry.execution")
    reads = []
    try:
        quiet.disabled = True
        for executor in (LeafFieldsExecutor, StrawberryGraphQLCoreExecutionContext):
            READS.clear()
            await build(executor).execute(query)
            reads.append(READS.count("title"))
    finally:
        quiet.disabled = False
    assert reads[0] == reads[1] <= 1
