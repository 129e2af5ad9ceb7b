"""`vaultgraph serve [--no-workers]`, `vaultgraph worker`, `vaultgraph neo4j start|stop|status` and
`vaultgraph keys create|list|revoke`."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Callable

import structlog
import uvicorn

from vaultgraph import cli_keys, cli_vault, cli_workspace
from vaultgraph.app import create_app, uvicorn_options
from vaultgraph.config import Settings
from vaultgraph.errors import Unavailable
from vaultgraph.http.auth import StartupRefused, check_bind
from vaultgraph.logs import configure_logging
from vaultgraph.neo4j_local import server as local_neo4j
from vaultgraph.neo4j_local.java import MissingTool, find_java_home
from vaultgraph.worker_process import run_worker

log = structlog.get_logger("vaultgraph")


def _neo4j(settings: Settings, action: str) -> int:
    server = local_neo4j.LocalNeo4j.from_settings(settings)
    if action == "build":
        local_neo4j.build_launcher(find_java_home(settings.java_home, os.environ.get("JAVA_HOME")))
        print(f"neo4j launcher built in {local_neo4j.MODULE_DIR / 'target'}")
    elif action == "start":
        started = local_neo4j.start(server, settings.java_home, settings.neo4j_start_timeout)
        print(f"neo4j {'started' if started else 'already running'} on {settings.local_bolt_uri} "
              f"(data in {server.home})")
    elif action == "stop":
        print("neo4j stopped" if local_neo4j.stop(server) else "neo4j was not running")
    else:
        pid = server.pid()
        answers = server.bolt_answers()
        print(f"neo4j {'running' if pid and answers else 'not running'}: pid={pid} "
              f"bolt={settings.local_bolt_uri} answers={answers} data={server.home}")
        return 0 if pid and answers else 3
    return 0


def _with_neo4j(settings: Settings, work: Callable[[str], int]) -> int:
    """Run `work` against NEO4J_URI, or against the local Neo4j (started for it and stopped after if need be)."""
    if settings.neo4j_uri is not None:
        return work(settings.neo4j_uri)
    server = local_neo4j.LocalNeo4j.from_settings(settings)
    owned = local_neo4j.start(server, settings.java_home, settings.neo4j_start_timeout)
    try:
        return work(settings.local_bolt_uri)
    finally:
        if owned:
            local_neo4j.stop(server)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    # uvicorn re-raises the signal it shut down for; exiting through SystemExit lets `finally` stop Neo4j.
    raise SystemExit(0)


def _serve(settings: Settings) -> int:
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    server = local_neo4j.LocalNeo4j.from_settings(settings)
    owned = False
    if settings.neo4j_uri is None:
        owned = local_neo4j.start(server, settings.java_home, settings.neo4j_start_timeout)
    else:
        log.info("using external neo4j; starting none", uri=settings.neo4j_uri)
    try:
        uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_config=None,
                    **uvicorn_options(settings))
    finally:
        if owned:
            local_neo4j.stop(server)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vaultgraph", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the GraphQL server (starts the local Neo4j when needed)")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--no-workers", action="store_true",
                       help="API only: no enrichment workers, no workspace watcher (`vaultgraph worker` runs them)")
    commands.add_parser("worker", help="run the enrichment workers and the workspace watcher, no HTTP")
    neo4j = commands.add_parser("neo4j", help="manage the local Neo4j")
    neo4j.add_argument("action", choices=["build", "start", "stop", "status"])
    cli_keys.add_parser(commands)
    cli_vault.add_parser(commands)
    cli_workspace.add_parser(commands)
    args = parser.parse_args(argv)

    overrides = {k: v for k, v in (("host", getattr(args, "host", None)), ("port", getattr(args, "port", None)))
                 if v is not None}
    if getattr(args, "no_workers", False):  # an API replica: the worker processes enrich and watch the workspace
        overrides["enrichment_workers"] = False
        overrides["workspace_watch"] = False
    settings = Settings(**overrides)
    configure_logging(settings.log_level, settings.log_format)
    try:
        if args.command == "neo4j":
            return _neo4j(settings, args.action)
        if args.command == "keys":
            return _with_neo4j(settings, lambda uri: cli_keys.run(settings, args, uri))
        if args.command in ("import-vault", "export-vault"):
            return _with_neo4j(settings, lambda uri: cli_vault.run(settings, args, uri))
        if args.command == "rescan":
            return _with_neo4j(settings, lambda uri: cli_workspace.run(settings, args, uri))
        if args.command == "worker":
            return _with_neo4j(settings, lambda uri: asyncio.run(run_worker(settings, uri)))
        check_bind(settings)  # before starting Neo4j: refuse at once
        return _serve(settings)
    except (MissingTool, local_neo4j.Neo4jStartError, StartupRefused) as exc:
        print(f"vaultgraph: {exc}", file=sys.stderr)
        return 2
    except Unavailable as exc:  # NEO4J_URI set, and nothing answers there
        print(f"vaultgraph: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
