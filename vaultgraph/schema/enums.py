"""Enums of the schema with a description on every value: the domain's and the services' enums stay plain Python,
the GraphQL text for each of their values lives here beside the registration."""

from __future__ import annotations

import enum
from collections.abc import Mapping

import strawberry
from strawberry.types.enum import StrawberryEnumDefinition


def schema_enum(cls: type[enum.Enum], description: str, values: Mapping[str, str], name: str | None = None) -> None:
    """Register `cls` with strawberry (the same class comes back) and describe each value, by its GraphQL name; a
    value left out or one too many is a mistake at import time, not an undocumented value in the schema."""
    strawberry.enum(cls, name=name, description=description)
    definition: StrawberryEnumDefinition = cls.__strawberry_definition__  # type: ignore[attr-defined]
    names = {value.name for value in definition.values}
    if names != set(values):
        raise ValueError(f"{definition.name}: describe exactly {sorted(names)}, got {sorted(values)}")
    for value in definition.values:
        value.description = values[value.name]
