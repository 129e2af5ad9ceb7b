"""What a client sends as a GraphQL request body, refused with a 400 and a code when malformed, never a 500.

strawberry's own parsing lets some bodies through to code that then fails: valid JSON that is not an object
(`1`, `null`, `"x"`), a batch holding non-objects (`[1]`), absurdly nested JSON (RecursionError), a body that is
not UTF-8 (UnicodeDecodeError), a multipart `map` that is not an object, and batch operations whose `query` is not
a string. The fuzz test (tests/security/test_fuzz.py) sends all of these."""

from __future__ import annotations

import json
from typing import Any

from cross_web import HTTPException
from strawberry.http import GraphQLRequestData

NOT_JSON = "Unable to parse request body as JSON"
SHAPE = ("the request body has the wrong shape: one operation is a JSON object, a batch an array of objects, and "
         "an upload's `operations` and `map` follow the GraphQL multipart request spec")


def decode_json(data: str | bytes) -> Any:
    """The JSON value of `data`; a 400 for anything that is not JSON (including bad encodings and deep nesting)."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise HTTPException(400, NOT_JSON) from exc


def check_batch(parsed: GraphQLRequestData | list[GraphQLRequestData]) -> None:
    """Each operation of a batch typed as one operation is (strawberry checks that only for a single one)."""
    for operation in parsed if isinstance(parsed, list) else ():
        if not isinstance(operation.query, str | None):
            raise HTTPException(400, "The GraphQL operation's `query` must be a string or null, if provided.")
        if not isinstance(operation.variables, dict | None):
            raise HTTPException(400, "The GraphQL operation's `variables` must be an object or null, if provided.")
        if not isinstance(operation.extensions, dict | None):
            raise HTTPException(400, "The GraphQL operation's `extensions` must be an object or null, if provided.")
        if not isinstance(operation.operation_name, str | None):
            raise HTTPException(400, "The GraphQL operation's `operationName` must be a string or null.")
