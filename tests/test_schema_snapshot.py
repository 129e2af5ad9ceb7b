"""schema.graphql is the printed public API; a change to it is a deliberate, reviewed diff."""

from __future__ import annotations

import os
from pathlib import Path

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    Undefined,
    build_ast_schema,
    parse,
    print_schema,
)

from vaultgraph.resolvers.root import build_schema

SNAPSHOT = Path(__file__).resolve().parents[1] / "schema.graphql"


def test_schema_graphql_matches_the_printed_schema() -> None:
    printed = build_schema().as_str() + "\n"
    if os.environ.get("VAULTGRAPH_UPDATE_SCHEMA"):
        SNAPSHOT.write_text(printed)
    assert SNAPSHOT.read_text() == printed, (
        "schema changed: rerun with VAULTGRAPH_UPDATE_SCHEMA=1 and review; then the same for "
        "tests/web/test_schema_capabilities.py (the explorer's module)")


def _without_descriptions(sdl: str) -> str:
    """The SDL as it prints with no descriptions: each field's arguments on one line again."""
    schema = build_ast_schema(parse(sdl))
    for type_ in schema.type_map.values():
        for field in getattr(type_, "fields", {}).values():
            field.description = None
            for arg in getattr(field, "args", {}).values():
                arg.description = None
    return print_schema(schema)


def test_design_names_are_kept() -> None:
    sdl = _without_descriptions(build_schema().as_str())
    for name in ("interface Node", "interface Item implements Node", "type Document implements Item & Node",
                 "node(id: ID!): Node", "createDocument(input: DocumentInput!)", "enum EnrichmentStage"):
        assert name in sdl, name


def undocumented(schema: GraphQLSchema) -> list[str]:
    """Every type, field, argument, input field and enum value of `schema` without a description (graphql-core's
    own introspection types aside)."""
    missing: list[str] = []
    for name, type_ in schema.type_map.items():
        if name.startswith("__"):
            continue
        if not type_.description:
            missing.append(name)
        if isinstance(type_, GraphQLObjectType | GraphQLInterfaceType | GraphQLInputObjectType):
            for field_name, field in type_.fields.items():
                if not field.description:
                    missing.append(f"{name}.{field_name}")
                for arg_name, arg in getattr(field, "args", {}).items():
                    if not arg.description:
                        missing.append(f"{name}.{field_name}({arg_name}:)")
        elif isinstance(type_, GraphQLEnumType):
            missing.extend(f"{name}.{value}" for value, item in type_.values.items() if not item.description)
    return missing


def test_every_type_field_argument_and_enum_value_has_a_description() -> None:
    missing = undocumented(build_schema()._schema)
    assert not missing, (f"{len(missing)} without a description (a one-line text a client author can act on: "
                         f"limits, errors, units): {', '.join(missing)}")


def test_the_check_names_what_lacks_a_description() -> None:
    sdl = '''
        """Reads."""
        type Query { """Documented."""
                     seen(first: Int, """Documented.""" after: String): Kind
                     bare: Int }
        enum Kind { """Documented.""" A B }
        input Filter { """Documented.""" a: Int b: Int }
        type Unused { """Documented.""" x(f: Filter): Int }
    '''
    assert sorted(undocumented(build_ast_schema(parse(sdl)))) == [
        "Filter", "Filter.b", "Kind", "Kind.B", "Query.bare", "Query.seen(first:)", "Unused", "Unused.x(f:)"]


def test_no_input_field_is_non_null_with_a_default() -> None:
    """A non-null input field with a default is optional yet typed as required, which code generators
    (ariadne-codegen) turn into a required field: such fields are nullable, null meaning the default."""
    schema = build_schema()._schema
    both = [f"{name}.{field_name}" for name, type_ in schema.type_map.items()
            if isinstance(type_, GraphQLInputObjectType)
            for field_name, field in type_.fields.items()
            if isinstance(field.type, GraphQLNonNull) and field.default_value is not Undefined]
    assert both == []
