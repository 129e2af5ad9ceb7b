"""Who is asking: an API key (`Authorization: Bearer vg_…`, or `authorization` in a WebSocket's `connection_init`),
or, in development mode only, the X-Vaultgraph-* headers. The one place a request becomes a `Principal`."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

import structlog
from starlette.requests import HTTPConnection

from vaultgraph.config import Settings
from vaultgraph.domain import Principal
from vaultgraph.errors import AppError, InvalidInput, Unauthenticated
from vaultgraph.http.rate_limit import RateLimiter, retry_after
from vaultgraph.http.refusals import Refusal
from vaultgraph.services.auth import ApiKeyService
from vaultgraph.workspace import check_key

log = structlog.get_logger(__name__)

# Failed authentications per client address: enough for a person fixing a typo, not for guessing.
FAILURE_BURST = 20
FAILURE_RATE = 2.0

# Stands in until a WebSocket's connection_init names someone; strawberry refuses operations before that (4401),
# and the empty tenant matches nothing should anything slip through.
NOBODY = Principal(tenant_id="")

DEV_HEADERS = ("x-vaultgraph-tenant", "x-vaultgraph-agent", "x-vaultgraph-teams")  # development mode's names
NEEDS_KEY = "an API key is required: send `Authorization: Bearer vg_…` (create one with `vaultgraph keys create`)"


class StartupRefused(Exception):
    """The settings would expose the development mode beyond this machine."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(settings: Settings) -> None:
    """Refuse to serve without keys anywhere but loopback: the development mode trusts whoever can connect."""
    if settings.dev_mode and not is_loopback(settings.host):
        raise StartupRefused(
            f"refusing to listen on {settings.host}: development mode (no API keys, anyone who connects is the "
            "local user) is only for loopback. To serve other machines set VAULTGRAPH_DEV_MODE=false, which "
            "requires an API key on every request (create one with `vaultgraph keys create --tenant T`); or "
            "listen on 127.0.0.1."
        )


def dev_principal(headers: Mapping[str, str], default_tenant: str) -> Principal:
    """Development mode: the principal from X-Vaultgraph-* headers, else the local tenant seeing every scope."""
    tenant = headers.get("x-vaultgraph-tenant") or default_tenant
    agent = headers.get("x-vaultgraph-agent") or None
    teams = [t.strip() for t in (headers.get("x-vaultgraph-teams") or "").split(",") if t.strip()]
    try:
        check_key(tenant, "X-Vaultgraph-Tenant")
        for value, name in [(agent, "X-Vaultgraph-Agent"), *((t, "X-Vaultgraph-Teams") for t in teams)]:
            if value is not None:
                check_key(value, name)
    except InvalidInput as exc:
        raise Refusal(400, exc.code, exc.message, field=exc.field) from exc
    return Principal(tenant_id=tenant, agent_id=agent, team_ids=frozenset(teams),
                     sees_all_scopes=agent is None and not teams)


def payload_headers(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A connection_init payload's header-like entries, names lower-cased: flat (`{"X-Vaultgraph-Tenant": "t"}`)
    or under `headers` (what graphql-ws clients that mirror HTTP send); teams as a list or one comma-separated
    string. Values other than strings are kept, for the caller to refuse."""
    nested = payload.get("headers")
    entries = {**(nested if isinstance(nested, Mapping) else {}), **payload}
    found: dict[str, Any] = {}
    for name, value in entries.items():
        key = str(name).lower()
        if key == "authorization" or key in DEV_HEADERS:
            if key == "x-vaultgraph-teams" and isinstance(value, list) and all(isinstance(v, str) for v in value):
                value = ",".join(value)
            found[key] = value
    return found


def bearer_secret(value: str) -> str:
    scheme, _, secret = value.strip().partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise Refusal(401, "UNAUTHENTICATED", "use `Authorization: Bearer <API key>`",
                      {"WWW-Authenticate": 'Bearer realm="vaultgraph"'})
    return secret.strip()


class Authenticator:
    """Admits a request or a WebSocket: the principal, then one token from that principal's rate-limit bucket."""

    def __init__(self, keys: ApiKeyService, limiter: RateLimiter, dev_tenant: str | None) -> None:
        self.keys = keys
        self.limiter = limiter
        self.dev_tenant = dev_tenant  # None: development mode off, every request needs a key
        self.failures = RateLimiter(FAILURE_RATE, FAILURE_BURST)

    @property
    def dev_mode(self) -> bool:
        return self.dev_tenant is not None

    async def http(self, connection: HTTPConnection) -> Principal:
        header = connection.headers.get("authorization")
        if header is not None:
            return await self._with_key(bearer_secret(header), connection)
        if self.dev_tenant is None:
            raise Refusal(401, "UNAUTHENTICATED", NEEDS_KEY, {"WWW-Authenticate": 'Bearer realm="vaultgraph"'})
        principal = dev_principal(connection.headers, self.dev_tenant)
        self._admit(connection, f"dev:{principal.tenant_id}")
        return principal

    async def may_see_details(self, connection: HTTPConnection) -> bool:
        """Whether the caller may see how the server is set up (/healthz's Neo4j URI and version): a valid API key
        (taking no rate-limit token), or anyone in development mode (loopback, behind the Host check)."""
        if self.dev_mode:
            return True
        header = connection.headers.get("authorization")
        if header is None:
            return False
        try:
            await self._key(bearer_secret(header), connection)
        except Refusal:
            return False
        return True

    def charge(self, connection: HTTPConnection, operations: int) -> None:
        """Take tokens for the further operations of a batch: a batch of ten costs what ten requests cost."""
        bucket = getattr(connection.state, "rate_bucket", None)
        if bucket is not None and operations > 0:
            self._admit(connection, bucket, operations)

    async def connection_init(self, payload: Mapping[str, Any], connection: HTTPConnection) -> Principal:
        """The principal of a WebSocket, from its `connection_init` payload: an API key, or in development mode the
        X-Vaultgraph-* names there (a browser cannot set a WebSocket's headers), else the handshake's headers."""
        given = payload_headers(payload)
        value = given.get("authorization")
        if value is not None:
            if not isinstance(value, str):
                raise Refusal(401, "UNAUTHENTICATED", "`authorization` must be a string: `Bearer <API key>`")
            return await self._with_key(bearer_secret(value), connection)
        if self.dev_tenant is None:
            raise Refusal(401, "UNAUTHENTICATED", "send `authorization: Bearer <API key>` in connection_init")
        headers = {name.lower(): value for name, value in connection.headers.items()}
        for name in DEV_HEADERS:
            if name in given and not isinstance(given[name], str):
                raise Refusal(400, "INVALID_INPUT", f"{name} in connection_init must be a string", field=name)
            if name in given and name in headers and given[name] != headers[name]:
                raise Refusal(400, "CONFLICT", f"{name} differs between the handshake and connection_init")
        principal = dev_principal({**headers, **given}, self.dev_tenant)
        self._admit(connection, f"dev:{principal.tenant_id}")
        return principal

    async def _with_key(self, secret: str, connection: HTTPConnection) -> Principal:
        key_id, principal = await self._key(secret, connection)
        self._admit(connection, key_id)
        return principal

    async def _key(self, secret: str, connection: HTTPConnection) -> tuple[str, Principal]:
        """The key's id and principal; failures counted per client address (and slowed down past a burst)."""
        client = f"ip:{connection.client.host if connection.client else '?'}"
        wait = self.failures.wait(client)
        if wait > 0:
            raise Refusal(429, "LIMIT_EXCEEDED", "too many failed authentications from this address; slow down",
                          {"Retry-After": retry_after(wait)})
        try:
            key, principal = await self.keys.authenticate(secret)
        except Unauthenticated as exc:
            self.failures.take(client)
            raise Refusal.from_error(exc, {"WWW-Authenticate": 'Bearer realm="vaultgraph", error="invalid_token"'}) \
                from exc
        except AppError as exc:  # Neo4j unavailable: the key cannot be checked, so nothing is admitted
            raise Refusal.from_error(exc) from exc
        return key.id, principal

    def _admit(self, connection: HTTPConnection, bucket: str, cost: int = 1) -> None:
        connection.state.rate_bucket = bucket
        wait = self.limiter.take(bucket, cost)
        if wait > 0:
            raise Refusal(429, "LIMIT_EXCEEDED",
                          f"rate limit: at most {self.limiter.rate:g} requests a second (bursts of "
                          f"{self.limiter.burst}) per API key; retry later", {"Retry-After": retry_after(wait)},
                          retryAfter=int(retry_after(wait)))
