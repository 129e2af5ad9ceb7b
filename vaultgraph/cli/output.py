"""What a long command shows: progress on stderr (a rich bar on a terminal, plain lines otherwise) and a summary
on stdout (a rich table on a terminal, aligned lines otherwise, one JSON object with `--json`).

Plain lines keep logs and CI output readable: one line per tenth of the work and one at the end, never a `\\r`.
`rich` is imported only when a terminal is there to draw on, so a script's run and `--help` never load it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

BAR_WIDTH = 30
PLAIN_STEPS = 10  # plain mode prints a line each time another tenth of the work is done


def bar_line(done: int, total: int, detail: str = "") -> str:
    """`[#####.....] done/total detail`: the plain progress line (the test of a script reads it)."""
    filled = BAR_WIDTH * done // max(total, 1)
    return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total}" + (f" {detail}" if detail else "")


class Progress:
    """Progress of one command on `stream` (stderr by default); use as a context manager, call `update`."""

    def __init__(self, label: str, stream: IO[str] | None = None, rich: bool | None = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.rich = self.stream.isatty() if rich is None else rich
        self._step = -1
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self.rich:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), TextColumn("{task.fields[detail]}"),
                                     console=Console(file=self.stream))
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=None, detail="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def update(self, done: int, total: int, detail: str = "") -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total, detail=detail[-40:])
            return
        step = PLAIN_STEPS * done // max(total, 1)
        if step != self._step or done >= total:
            self._step = step
            self.stream.write(bar_line(done, total, detail) + "\n")
            self.stream.flush()

    def __call__(self, done: int, total: int, detail: str = "") -> None:
        """A `Progress` is also a callback `(done, total, detail)`, the shape the services report progress in."""
        self.update(done, total, detail)


@dataclass
class Summary:
    """The end of a long command: a headline, counts by name, lines naming what needs a look, and its JSON."""

    headline: str
    counts: Sequence[tuple[str, int | str]]
    details: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def show(self, as_json: bool, stream: IO[str] | None = None) -> None:
        out = stream or sys.stdout
        if as_json:
            out.write(json.dumps(self.data, default=str) + "\n")
        elif out.isatty():
            from rich.console import Console
            from rich.table import Table

            table = Table(title=self.headline, title_justify="left")
            table.add_column("")
            table.add_column("count", justify="right")
            for name, value in self.counts:
                table.add_row(name, str(value))
            console = Console(file=out)
            console.print(table)
            for line in self.details:
                console.print(line, markup=False, highlight=False)
        else:
            width = max((len(name) for name, _ in self.counts), default=0)
            lines = [self.headline, *(f"  {name:<{width}}  {value}" for name, value in self.counts), *self.details]
            out.write("\n".join(lines) + "\n")
        out.flush()


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, default=str) + "\n")
