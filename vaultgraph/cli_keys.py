"""`vaultgraph keys create|list|revoke`: API keys from the command line, against the same Neo4j the server uses
(`NEO4J_URI`, else the local one, started for the command if it is not running)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the rest is imported by the command that runs: `vaultgraph --help` imports no graph code
    from vaultgraph.config import Settings
    from vaultgraph.domain import ApiKey
    from vaultgraph.services.auth import ApiKeyService


def add_parser(commands: Any) -> None:
    keys = commands.add_parser("keys", help="create, list and revoke API keys")
    actions = keys.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="create a key; its secret is printed once and never again")
    create.add_argument("--tenant", required=True)
    create.add_argument("--agent", help="bind the key to one agent: it sees that agent's personal items")
    create.add_argument("--teams", default="", help="comma-separated teams whose items the key sees")
    create.add_argument("--all-scopes", action="store_true",
                        help="a tenant-wide key that sees every scope (no --agent or --teams)")
    create.add_argument("--expires-days", type=int)
    create.add_argument("--name", help="a label to tell keys apart")
    create.add_argument("--json", action="store_true", help="print JSON")
    listing = actions.add_parser("list", help="keys of a tenant (never their secrets)")
    listing.add_argument("--tenant", required=True)
    listing.add_argument("--json", action="store_true", help="print JSON")
    revoke = actions.add_parser("revoke", help="revoke a key by id; servers stop accepting it within "
                                               "VAULTGRAPH_API_KEY_CACHE_SECONDS")
    revoke.add_argument("id")


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


async def _run(settings: Settings, args: argparse.Namespace, uri: str) -> int:
    from vaultgraph.runtime import build_runtime

    # Entering the runtime applies the migrations (the key constraints, on a fresh database).
    async with build_runtime(settings, uri, workers=False, watcher=False).running(require_neo4j=True) as runtime:
        return await _keys(runtime.keys, args)


async def _keys(service: ApiKeyService, args: argparse.Namespace) -> int:
    from vaultgraph.errors import AppError

    try:
        if args.action == "create":
            teams = [t for t in args.teams.split(",") if t.strip()]
            new = await service.create(args.tenant, args.agent, teams, args.expires_days, args.all_scopes, args.name)
            if args.json:
                print(json.dumps({**key_json(new.key), "secret": new.secret}))
            else:
                print(f"created {new.key.id}: {_grants(new.key)} ({_status(new.key)})")
                print("the secret, shown this once (only its SHA-256 is stored):")
                print(new.secret)
        elif args.action == "list":
            keys = await service.list(args.tenant)
            if args.json:
                print(json.dumps([key_json(k) for k in keys]))
            for key in keys if not args.json else ():
                used = f"{key.last_used_at:%Y-%m-%d %H:%M}" if key.last_used_at else "never"
                print(f"{key.id}  {key.prefix}…  {_grants(key)}  {_status(key)}  last used {used}"
                      f"{'  ' + key.name if key.name else ''}")
        else:
            key = await service.revoke(args.id)
            print(f"revoked {key.id} (tenant {key.tenant_id})")
        return 0
    except AppError as exc:
        print(f"vaultgraph keys: {exc.message}", file=sys.stderr)
        return 1


def run(settings: Settings, args: argparse.Namespace, uri: str) -> int:
    """Run one keys command against the Neo4j at `uri` (the CLI starts the local one when needed)."""
    return asyncio.run(_run(settings, args, uri))
