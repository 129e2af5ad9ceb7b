"""API keys: create (the secret is shown once), list, revoke, and turn a presented secret into a principal.

Only the SHA-256 of a secret is stored. A secret is 32 random bytes, so a plain hash is enough: there is nothing
to brute-force that a slow hash would protect (unlike a password)."""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import structlog

from vaultgraph.domain import ApiKey, Principal
from vaultgraph.errors import InvalidInput, NotFound, Unauthenticated, Unavailable
from vaultgraph.graph import keys as cypher
from vaultgraph.graph.session import Graph
from vaultgraph.workspace import check_key

log = structlog.get_logger(__name__)

KEY_PREFIX = "vg_"
SECRET_BYTES = 32
MAX_SECRET_LENGTH = 128  # longer is not one of ours: refuse before hashing anything
PREFIX_SHOWN = 10  # "vg_" and 7 characters: enough to tell keys apart in a list, far too few to guess the rest
TOUCH_EVERY = timedelta(minutes=1)
MAX_EXPIRES_DAYS = 3650


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def looks_like_key(secret: str) -> bool:
    return secret.startswith(KEY_PREFIX) and len(secret) <= MAX_SECRET_LENGTH


@dataclass(frozen=True, slots=True)
class NewKey:
    key: ApiKey
    secret: str  # shown once, then gone: only its hash is kept


class ApiKeyService:
    """Owns the key lifecycle. `authenticate` keeps an in-process cache so a request costs no extra query."""

    def __init__(self, graph: Graph, cache_seconds: float = 0.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.graph = graph
        self.cache_seconds = cache_seconds
        self._clock = clock
        self._cache: dict[str, tuple[float, ApiKey]] = {}
        self._touched: dict[str, datetime] = {}

    async def create(
        self,
        tenant: str,
        agent: str | None = None,
        teams: Sequence[str] = (),
        expires_days: int | None = None,
        all_scopes: bool = False,
        name: str | None = None,
    ) -> NewKey:
        check_key(tenant, "tenant")
        if agent is not None:
            check_key(agent, "agent")
        team_ids = sorted({check_key(team.strip(), "teams") for team in teams if team.strip()})
        if all_scopes and (agent or team_ids):
            raise InvalidInput("allScopes", "a key that sees every scope is bound to no agent and no team")
        if expires_days is not None and not 1 <= expires_days <= MAX_EXPIRES_DAYS:
            raise InvalidInput("expiresDays", f"between 1 and {MAX_EXPIRES_DAYS} days")
        if name is not None and len(name) > 200:
            raise InvalidInput("name", "at most 200 characters")
        secret = KEY_PREFIX + secrets.token_urlsafe(SECRET_BYTES)
        expires_at = datetime.now(UTC) + timedelta(days=expires_days) if expires_days else None
        row = {
            "id": f"key_{uuid.uuid4().hex[:16]}", "keyHash": hash_secret(secret), "prefix": secret[:PREFIX_SHOWN],
            "name": name, "tenant": tenant, "agentId": agent, "teamIds": team_ids, "allScopes": all_scopes,
            "expiresAt": expires_at,
        }
        key = await self.graph.write(cypher.create_key, row)
        log.info("api key created", key_id=key.id, tenant=tenant, agent=agent, teams=team_ids)
        return NewKey(key, secret)

    async def list(self, tenant: str) -> list[ApiKey]:
        return await self.graph.read(cypher.keys_of_tenant, check_key(tenant, "tenant"))

    async def revoke(self, key_id: str) -> ApiKey:
        key = await self.graph.write(cypher.revoke_key, key_id)
        if key is None:
            raise NotFound(f"no API key {key_id!r}", id=key_id)
        self._cache = {h: entry for h, entry in self._cache.items() if entry[1].id != key_id}
        log.info("api key revoked", key_id=key_id, tenant=key.tenant_id)
        return key

    async def lookup(self, secret: str) -> ApiKey | None:
        """The stored key for a secret, from the cache when fresh; None when no such key exists."""
        if not looks_like_key(secret):
            return None
        key_hash = hash_secret(secret)
        now = self._clock()
        cached = self._cache.get(key_hash)
        if cached is not None and now - cached[0] < self.cache_seconds:
            return cached[1]
        key = await self.graph.read(cypher.key_by_hash, key_hash)
        if key is not None and self.cache_seconds > 0:
            if len(self._cache) > 10_000:  # bound the memory; keys are few, so this almost never runs
                self._cache.clear()
            self._cache[key_hash] = (now, key)
        return key

    async def authenticate(self, secret: str) -> tuple[ApiKey, Principal]:
        """The key and principal a secret stands for; UNAUTHENTICATED when unknown, revoked or expired."""
        key = await self.lookup(secret)
        if key is None:
            raise Unauthenticated("the API key is not valid; create one with `vaultgraph keys create`")
        now = datetime.now(UTC)
        if key.revoked_at is not None:
            raise Unauthenticated(f"the API key {key.id} was revoked", keyId=key.id)
        if key.expires_at is not None and key.expires_at <= now:
            raise Unauthenticated(f"the API key {key.id} expired at {key.expires_at.isoformat()}", keyId=key.id)
        await self._touch(key, now)
        return key, key.principal()

    async def _touch(self, key: ApiKey, now: datetime) -> None:
        """Record the last use at most once a minute per key, so reads stay reads."""
        last = max(filter(None, (key.last_used_at, self._touched.get(key.id))), default=None)
        if last is not None and now - last < TOUCH_EVERY:
            return
        self._touched[key.id] = now
        try:
            await self.graph.write(cypher.touch_key, key.id, now, now - TOUCH_EVERY)
        except Unavailable:
            # The request itself may still succeed (or fail on its own); a missed touch is not worth failing it.
            log.warning("could not record api key use", key_id=key.id)
