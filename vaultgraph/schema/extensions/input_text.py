"""Text that is not Unicode text is refused before anything runs: a lone UTF-16 surrogate (`"\\ud800"`).

JSON can carry one as an escape, Python decodes it into a `str`, and nothing can encode that string as UTF-8: the
Neo4j driver, a file write or a log line fails deep inside the request and it answered INTERNAL. Checked once, for
every variable of every operation (at any depth of its input objects and lists), it answers INVALID_INPUT naming
the variable's path (`input.title`). Literals in the document need no check: the parser refuses the character.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from graphql import GraphQLError
from strawberry.extensions import SchemaExtension

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def bad_text_path(value: Any, path: str) -> str | None:
    """The path of the first string in `value` holding a lone surrogate, or None."""
    if isinstance(value, str):
        return path if LONE_SURROGATE.search(value) else None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = bad_text_path(key, path) or bad_text_path(item, f"{path}.{key}")
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = bad_text_path(item, f"{path}.{index}")
            if found:
                return found
    return None


class UnicodeVariables(SchemaExtension):
    """Runs before validation (and before the validation cache, which would not look at string values)."""

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        variables = context.variables or {}
        for name, value in variables.items():
            field = bad_text_path(value, name)
            if field is not None and context.pre_execution_errors is None:
                context.pre_execution_errors = [GraphQLError(
                    f"{field}: holds a lone UTF-16 surrogate, which is not text (send the character itself, or "
                    "both halves of its surrogate pair)", extensions={"code": "INVALID_INPUT", "field": field})]
                break
        yield
