"""`vaultgraph neo4j build|start|stop|status`: the local Neo4j (the embedded default), not one at NEO4J_URI."""

from __future__ import annotations

import os

import click

from vaultgraph.cli.common import Exit, json_option, settings
from vaultgraph.cli.output import print_json


@click.group()
def neo4j() -> None:
    """Manage the local Neo4j."""


@neo4j.command()
def build() -> int:
    """Build the launcher (Maven fetches the Neo4j jars once)."""
    from vaultgraph.neo4j_local import server as local_neo4j
    from vaultgraph.neo4j_local.java import find_java_home

    config = settings()
    local_neo4j.build_launcher(find_java_home(config.java_home, os.environ.get("JAVA_HOME")))
    print(f"neo4j launcher built in {local_neo4j.MODULE_DIR / 'target'}")
    return Exit.OK


@neo4j.command()
def start() -> int:
    """Start it and wait until Bolt answers."""
    from vaultgraph.neo4j_local import server as local_neo4j

    config = settings()
    server = local_neo4j.LocalNeo4j.from_settings(config)
    started = local_neo4j.start(server, config.java_home, config.neo4j_start_timeout)
    print(f"neo4j {'started' if started else 'already running'} on {config.local_bolt_uri} (data in {server.home})")
    return Exit.OK


@neo4j.command()
def stop() -> int:
    """Shut it down cleanly."""
    from vaultgraph.neo4j_local import server as local_neo4j

    stopped = local_neo4j.stop(local_neo4j.LocalNeo4j.from_settings(settings()))
    print("neo4j stopped" if stopped else "neo4j was not running")
    return Exit.OK


@neo4j.command()
@json_option
def status(as_json: bool) -> int:
    """Whether it runs and answers Bolt (exit code 3 when not)."""
    from vaultgraph.neo4j_local import server as local_neo4j

    config = settings()
    server = local_neo4j.LocalNeo4j.from_settings(config)
    pid = server.pid()
    answers = server.bolt_answers()
    running = bool(pid and answers)
    if as_json:
        print_json({"running": running, "pid": pid, "bolt": config.local_bolt_uri, "answers": answers,
                    "data": str(server.home)})
    else:
        print(f"neo4j {'running' if running else 'not running'}: pid={pid} bolt={config.local_bolt_uri} "
              f"answers={answers} data={server.home}")
    return Exit.OK if running else Exit.NOT_RUNNING
