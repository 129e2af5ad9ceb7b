"""Flame graphs of the server while a workload runs (`--profile DIR`): py-spy attached to the server's process,
one SVG per workload, and the frames that took the most samples printed beside the figures.

py-spy samples without stopping the process (`--nonblocking`), so the figures of a profiled run are only a little
slower than an unprofiled one; still, take timings from a run without `--profile`.
"""

from __future__ import annotations

import contextlib
import html
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from bench.processes import Proc

RATE = 250  # samples a second
TITLE = re.compile(r"<title>(.*?) \(([\d,]+) samples, ([\d.]+)%\)</title>")


def py_spy() -> str | None:
    """The py-spy next to this Python (the bench extra installs it), else one on PATH."""
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60]


@contextlib.contextmanager
def recording(server: Proc, folder: Path | None, name: str) -> Iterator[Path | None]:
    """py-spy on `server` for the duration of the block, written to folder/<name>.svg; nothing without a folder."""
    binary = py_spy() if folder is not None else None
    if folder is None or binary is None:
        yield None
        return
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug(name)}.svg"
    # The flame graph to look at, and the same samples as collapsed stacks (`.txt`) to add up (`self_times`).
    spies = [subprocess.Popen([binary, "record", "--pid", str(server.pid), "--rate", str(RATE), "--nonblocking",
                               "--format", form, "--output", str(path.with_suffix(suffix))],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
             for form, suffix in (("flamegraph", ".svg"), ("raw", ".txt"))]
    try:
        yield path
    finally:
        for spy in spies:
            spy.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
        for spy in spies:
            try:
                spy.wait(60)
            except subprocess.TimeoutExpired:
                spy.kill()


def frames(svg: Path) -> dict[str, float]:
    """Every frame of a py-spy flame graph with its share of all samples (inclusive), the largest share a frame
    name reaches anywhere in the graph."""
    shares: dict[str, float] = {}
    for match in TITLE.finditer(svg.read_text(errors="replace")):
        frame = html.unescape(match.group(1))
        shares[frame] = max(shares.get(frame, 0.0), float(match.group(3)))
    return shares


def top(svg: Path, count: int = 25, containing: str = "") -> list[tuple[str, float]]:
    """The `count` frames with the largest inclusive share (optionally only those whose name holds `containing`)."""
    shares = [(frame, share) for frame, share in frames(svg).items() if containing in frame]
    return sorted(shares, key=lambda item: -item[1])[:count]


def self_times(raw: Path, depth: int = 1) -> list[tuple[str, float]]:
    """From collapsed stacks (py-spy's raw format): the share of samples whose innermost `depth` frames are each
    (depth 1: a function's own time; more: who called it), largest first."""
    counts: dict[str, int] = {}
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        leaf = " <- ".join(reversed(stack.split(";")[-depth:]))
        counts[leaf] = counts.get(leaf, 0) + int(count)
        total += int(count)
    return sorted(((leaf, 100 * n / total) for leaf, n in counts.items()), key=lambda item: -item[1])


if __name__ == "__main__":  # python -m bench.profiles FILE.svg|FILE.txt [COUNT] [CONTAINING|DEPTH]
    target, count = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40
    rows = (self_times(target, int(sys.argv[3]) if len(sys.argv) > 3 else 1)[:count] if target.suffix == ".txt"
            else top(target, count, sys.argv[3] if len(sys.argv) > 3 else ""))
    for frame, share in rows:
        print(f"{share:6.2f}%  {frame}")
