"""`vaultgraph keys create|list|revoke`: API keys from the command line, against the same Neo4j the server uses
(`NEO4J_URI`, else the local one, started for the command if it is not running)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import click

from vaultgraph.cli.common import Exit, json_option, on_runtime, settings
from vaultgraph.cli.output import print_json

if TYPE_CHECKING:  # the rest is imported by the command that runs: `vaultgraph --help` imports no graph code
    from vaultgraph.domain import ApiKey
    from vaultgraph.services.auth import ApiKeyService


@click.group()
def keys() -> None:
    """Create, list and revoke API keys."""


@keys.command()
@click.option("--tenant", required=True)
@click.option("--agent", help="bind the key to one agent: it sees that agent's personal items")
@click.option("--teams", default="", help="comma-separated teams whose items the key sees")
@click.option("--all-scopes", is_flag=True, help="a tenant-wide key that sees every scope (no --agent or --teams)")
@click.option("--expires-days", type=int)
@click.option("--name", help="a label to tell keys apart")
@json_option
def create(tenant: str, agent: str | None, teams: str, all_scopes: bool, expires_days: int | None,
           name: str | None, as_json: bool) -> int:
    """Create a key; its secret is printed once and never again."""

    async def run(service: ApiKeyService) -> int:
        team_ids = [t for t in teams.split(",") if t.strip()]
        new = await service.create(tenant, agent, team_ids, expires_days, all_scopes, name)
        if as_json:
            print_json({**key_json(new.key), "secret": new.secret})
        else:
            print(f"created {new.key.id}: {_grants(new.key)} ({_status(new.key)})")
            print("the secret, shown this once (only its SHA-256 is stored):")
            print(new.secret)
        return Exit.OK

    return _on_keys(run)


@keys.command(name="list")
@click.option("--tenant", required=True)
@json_option
def list_keys(tenant: str, as_json: bool) -> int:
    """Keys of a tenant (never their secrets)."""

    async def run(service: ApiKeyService) -> int:
        found = await service.list(tenant)
        if as_json:
            print_json([key_json(k) for k in found])
            return Exit.OK
        for key in found:
            used = f"{key.last_used_at:%Y-%m-%d %H:%M}" if key.last_used_at else "never"
            print(f"{key.id}  {key.prefix}…  {_grants(key)}  {_status(key)}  last used {used}"
                  f"{'  ' + key.name if key.name else ''}")
        return Exit.OK

    return _on_keys(run)


@keys.command()
@click.argument("id")
def revoke(id: str) -> int:
    """Revoke a key by id; servers stop accepting it within VAULTGRAPH_API_KEY_CACHE_SECONDS."""

    async def run(service: ApiKeyService) -> int:
        key = await service.revoke(id)
        print(f"revoked {key.id} (tenant {key.tenant_id})")
        return Exit.OK

    return _on_keys(run)


def _on_keys(work: Callable[[ApiKeyService], Awaitable[int]]) -> int:
    # Entering the runtime applies the migrations (the key constraints, on a fresh database).
    return on_runtime(settings(), lambda runtime: work(runtime.keys))


def key_json(key: ApiKey) -> dict[str, Any]:
    def when(value: Any) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "id": key.id, "prefix": key.prefix, "name": key.name, "tenant": key.tenant_id, "agent": key.agent_id,
        "teams": list(key.team_ids), "allScopes": key.all_scopes, "createdAt": when(key.created_at),
        "expiresAt": when(key.expires_at), "revokedAt": when(key.revoked_at), "lastUsedAt": when(key.last_used_at),
    }


def _grants(key: ApiKey) -> str:
    parts = [f"tenant {key.tenant_id}"]
    if key.agent_id:
        parts.append(f"agent {key.agent_id}")
    if key.team_ids:
        parts.append("teams " + ",".join(key.team_ids))
    if key.all_scopes:
        parts.append("every scope")
    elif not key.agent_id and not key.team_ids:
        parts.append("shared items only")
    return ", ".join(parts)


def _status(key: ApiKey) -> str:
    if key.revoked_at is not None:
        return "revoked"
    return f"expires {key.expires_at:%Y-%m-%d}" if key.expires_at else "active"
