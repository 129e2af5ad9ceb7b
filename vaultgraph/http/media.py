"""The GraphQL-over-HTTP spec's media type: a client whose `Accept` prefers `application/graphql-response+json`
gets it, with the spec's status rules: a request error (the document does not parse or validate, no query, an
unknown persisted-query hash, a refusal before GraphQL runs) answers 4xx and carries no `data`; once execution
started the answer is 200 with `data` (null or partial) beside any field errors. Everyone else keeps
`application/json`, where every GraphQL answer is 200 as before (refusals keep their 4xx either way).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
REQUEST_ERROR_STATUS = 400


def _quality(accept: str) -> dict[str, float]:
    """Media type → its q value, as listed in an Accept header (a malformed q counts as 0)."""
    found: dict[str, float] = {}
    for entry in accept.split(","):
        media, *params = (part.strip() for part in entry.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if media:
            found[media.lower()] = max(q, found.get(media.lower(), 0.0))
    return found


def wants_graphql_response(headers: Mapping[str, str]) -> bool:
    """Whether the client asked for application/graphql-response+json at least as much as application/json."""
    quality = _quality(headers.get("accept", ""))
    preferred = quality.get(GRAPHQL_RESPONSE, 0.0)
    return preferred > 0 and preferred >= quality.get(JSON, 0.0)


def without_data(body: Any) -> Any:
    """A request error's body under the spec's media type: `errors` only, no `data` entry."""
    return {k: v for k, v in body.items() if k != "data"} if isinstance(body, dict) else body


def as_graphql_response(response: Response) -> Response:
    """A JSON refusal (a 4xx before GraphQL ran) re-sent as application/graphql-response+json without `data`."""
    if response.media_type != JSON or response.status_code < 400:
        return response
    body = without_data(json.loads(bytes(response.body)))
    headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-type")}
    return Response(json.dumps(body, separators=(",", ":")), response.status_code, headers, GRAPHQL_RESPONSE)
