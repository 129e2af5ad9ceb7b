"""What every command shares: its settings, the exit codes, the Neo4j it runs against and the Runtime it runs on.

Only `click` and the standard library at import time: `vaultgraph --help` loads every command module to list them,
so anything heavier (the settings, the graph, the models) is imported by the function that runs.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from vaultgraph.config import Settings
    from vaultgraph.runtime import Runtime


class Exit(enum.IntEnum):
    """The exit codes of every command (README, Command line)."""

    OK = 0
    FAILED = 1  # the request was refused: NOT_FOUND, INVALID_INPUT, CONFLICT, … (the message says which)
    UNUSABLE = 2  # the command cannot run: bad usage, a refused configuration, a missing tool, Neo4j not answering
    NOT_RUNNING = 3  # `neo4j status`: the local Neo4j is not running
    INCOMPLETE = 4  # `reembed`: it ran, and some items are still left (why is printed)
    INTERRUPTED = 130  # Ctrl-C


@dataclass
class State:
    """The click context's object: the settings a caller handed `main()` (a test), else the environment's."""

    given: Settings | None = None

    def settings(self, **overrides: Any) -> Settings:
        from vaultgraph.config import Settings
        from vaultgraph.logs import configure_logging

        overrides = {k: v for k, v in overrides.items() if v is not None}
        settings = self.given.model_copy(update=overrides) if self.given is not None else Settings(**overrides)
        configure_logging(settings.log_level, settings.log_format)
        return settings


def settings(**overrides: Any) -> Settings:
    """The settings of the command being run, with these overrides (None means "as configured")."""
    state = click.get_current_context().find_object(State)
    return (state or State()).settings(**overrides)


json_option = click.option("--json", "as_json", is_flag=True, help="print one JSON object (a list for `list`)")
tenant_option = click.option("--tenant", help="the tenant (default: VAULTGRAPH_DEV_TENANT)")


def with_neo4j(settings: Settings, work: Callable[[str], int]) -> int:
    """Run `work` against NEO4J_URI, or against the local Neo4j (started for it and stopped after if need be)."""
    if settings.neo4j_uri is not None:
        return work(settings.neo4j_uri)
    from vaultgraph.neo4j_local import server as local_neo4j

    server = local_neo4j.LocalNeo4j.from_settings(settings)
    owned = local_neo4j.start(server, settings.java_home, settings.neo4j_start_timeout)
    try:
        return work(settings.local_bolt_uri)
    finally:
        if owned:
            local_neo4j.stop(server)


def on_runtime(settings: Settings, work: Callable[[Runtime], Awaitable[int]]) -> int:
    """Run `work` on a running Runtime without workers or watcher (a server's workers pick up what it queues);
    entering it applies the migrations, and a Neo4j that does not answer is `Unavailable` at once."""

    import asyncio

    async def run(uri: str) -> int:
        from vaultgraph.runtime import build_runtime

        async with build_runtime(settings, uri, workers=False, watcher=False).running(require_neo4j=True) as runtime:
            return await work(runtime)

    return with_neo4j(settings, lambda uri: asyncio.run(run(uri)))


def tenant_of(settings: Settings, tenant: str | None) -> str:
    from vaultgraph.workspace import check_key

    return check_key(tenant or settings.dev_tenant, "--tenant")


def exit_code_for(exc: BaseException) -> int | None:
    """The exit code of an error a person can act on, its message printed; None for a defect (it propagates)."""
    from pydantic import ValidationError

    from vaultgraph.errors import AppError, Unavailable
    from vaultgraph.http.auth import StartupRefused
    from vaultgraph.neo4j_local.java import MissingTool
    from vaultgraph.neo4j_local.server import Neo4jStartError

    if isinstance(exc, MissingTool | Neo4jStartError | StartupRefused | ValidationError):
        return _fail(str(exc), Exit.UNUSABLE)
    if isinstance(exc, Unavailable):  # NEO4J_URI set, and nothing answers there
        return _fail(exc.message, Exit.UNUSABLE)
    if isinstance(exc, AppError):
        return _fail(exc.message, Exit.FAILED)
    return None


def _fail(message: str, code: Exit) -> int:
    print(f"vaultgraph: {message}", file=sys.stderr)
    return int(code)
