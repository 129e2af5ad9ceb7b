"""The custom scalars every schema of vaultgraph uses (`build_schema` maps them): JSON without NaN/Infinity
(json_scalar.py), and Date/DateTime as strawberry defines them, naming the spec their text follows
(`specifiedByURL`, as JSON names ECMA-404) so a client generator can map them to its own date types."""

from __future__ import annotations

import dataclasses
import datetime as dt

from strawberry.scalars import JSON
from strawberry.schema.types.base_scalars import DateDefinition, DateTimeDefinition
from strawberry.types.scalar import ScalarDefinition

from vaultgraph.schema.json_scalar import JSON_SCALAR

RFC_3339 = "https://datatracker.ietf.org/doc/html/rfc3339"

# Dates are YYYY-MM-DD (RFC 3339's full-date), instants its date-time with their UTC offset.
DATE_SCALAR = dataclasses.replace(DateDefinition, specified_by_url=RFC_3339, implementation=None)
DATETIME_SCALAR = dataclasses.replace(DateTimeDefinition, specified_by_url=RFC_3339, implementation=None)

SCALARS: dict[object, ScalarDefinition] = {JSON: JSON_SCALAR, dt.date: DATE_SCALAR, dt.datetime: DATETIME_SCALAR}
