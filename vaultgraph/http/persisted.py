"""Automatic persisted queries, Apollo's protocol: a client sends `extensions.persistedQuery` = `{version: 1,
sha256Hash}` without the query; if this process knows the hash it runs the query it stands for, else it answers
`PersistedQueryNotFound` (code PERSISTED_QUERY_NOT_FOUND) and the client sends the hash again with the query, which
registers it after the hash is checked. GET and POST alike (Apollo's link can hash-only GET, which CDNs cache).

The cache is per process and bounded (least recently used goes first): a replica that forgot a hash costs the
client one round trip more, never a wrong answer. A hash names its query's text, nothing of a tenant's data, so one
cache serves every tenant.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Any

from graphql import GraphQLError
from strawberry.http import GraphQLRequestData

from vaultgraph.lru import Lru

NOT_FOUND = "PersistedQueryNotFound"  # the message Apollo Client's persisted-queries link looks for
NOT_FOUND_CODE = "PERSISTED_QUERY_NOT_FOUND"
SHA256 = re.compile(r"[0-9a-f]{64}")
FIELD = "extensions.persistedQuery"


class PersistedQueryError(Exception):
    """A persisted-query request this process cannot run; `error` is what the client gets."""

    def __init__(self, message: str, code: str, **details: object) -> None:
        super().__init__(message)
        self.error = GraphQLError(message, extensions={"code": code, **details})
        self.not_found = code == NOT_FOUND_CODE


def _invalid(field: str, message: str) -> PersistedQueryError:
    return PersistedQueryError(f"{field}: {message}", "INVALID_INPUT", field=field)


class PersistedQueries:
    """sha256 → query text, at most `maxsize` of them (0: APQ answers PersistedQueryNotFound, nothing kept)."""

    def __init__(self, maxsize: int) -> None:
        self._queries: Lru[str, str] = Lru(maxsize)

    def resolve(self, request: GraphQLRequestData) -> GraphQLRequestData:
        """The request with its query filled in from the hash (and the hash registered when the query came too);
        a request without `persistedQuery` unchanged. Raises PersistedQueryError."""
        persisted = _persisted_query(request.extensions)
        if persisted is None:
            return request
        digest = _hash(persisted)
        if request.query:  # registration: the client sends the query with its hash
            actual = hashlib.sha256(request.query.encode("utf-8")).hexdigest()
            if actual != digest:
                raise _invalid(f"{FIELD}.sha256Hash", f"{digest} is not the SHA-256 of the query sent with it "
                               f"(that is {actual}); hash the query's exact text, UTF-8")
            self._queries.put(digest, request.query)
            return request
        query = self._queries.get(digest)
        if query is None:
            raise PersistedQueryError(NOT_FOUND, NOT_FOUND_CODE)
        return dataclasses.replace(request, query=query)


def _persisted_query(extensions: dict[str, Any] | None) -> dict[str, Any] | None:
    value = (extensions or {}).get("persistedQuery")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _invalid(FIELD, "must be an object {version: 1, sha256Hash: \"<64 hex digits>\"}")
    if value.get("version") != 1:
        raise _invalid(f"{FIELD}.version", f"only version 1 of automatic persisted queries is supported, not "
                       f"{value.get('version')!r}")
    return value


def _hash(persisted: dict[str, Any]) -> str:
    digest = persisted.get("sha256Hash")
    if not isinstance(digest, str) or not SHA256.fullmatch(digest):
        raise _invalid(f"{FIELD}.sha256Hash", "must be the query's SHA-256 as 64 lower-case hex digits")
    return digest
