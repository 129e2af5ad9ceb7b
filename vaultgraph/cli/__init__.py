"""The `vaultgraph` command line, on click: one module per command group, each built on the one Runtime.

Command modules import only click at load time and the rest when they run, so `vaultgraph --help` and a mistyped
command answer at once. Exit codes: `common.Exit` (README, Command line).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING

import click

from vaultgraph.cli.common import Exit, State, exit_code_for

if TYPE_CHECKING:
    from vaultgraph.config import Settings

# name -> "module:attribute" of the command, in the order `--help` lists them.
COMMANDS = {
    "serve": "vaultgraph.cli.serve:serve",
    "worker": "vaultgraph.cli.serve:worker",
    "neo4j": "vaultgraph.cli.neo4j:neo4j",
    "keys": "vaultgraph.cli.keys:keys",
    "import-vault": "vaultgraph.cli.vault:import_vault",
    "export-vault": "vaultgraph.cli.vault:export_vault",
    "rescan": "vaultgraph.cli.workspace:rescan",
    "reembed": "vaultgraph.cli.vectors:reembed",
}


class LazyGroup(click.Group):
    """Commands imported by name when asked for (click's documented lazy-loading pattern)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command), target  # a wiring defect, caught by the CLI tests
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
def root() -> None:
    """vaultgraph: documents, notes and typed links in Neo4j behind a GraphQL API.

    Every command runs against NEO4J_URI, else the local Neo4j (started for the command when it is not running).
    Exit codes: 0 done, 1 the request was refused, 2 the command cannot run, 3 `neo4j status` not running,
    4 `reembed` left items, 130 interrupted.
    """


def main(argv: list[str] | None = None, settings: Settings | None = None) -> int:
    """Run one command and return its exit code; `settings` stands in for the environment's (tests)."""
    try:
        result = root.main(args=argv, prog_name="vaultgraph", standalone_mode=False, obj=State(settings))
    except click.ClickException as exc:  # bad usage: click says what, with the usage line
        exc.show()
        return int(Exit.UNUSABLE)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        print("vaultgraph: interrupted", file=sys.stderr)
        return int(Exit.INTERRUPTED)
    except Exception as exc:
        code = exit_code_for(exc)
        if code is None:
            raise
        return code
    return int(result) if isinstance(result, int) else int(Exit.OK)
