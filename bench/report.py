"""The table a run prints (and its JSON): p50, p95 and throughput per workload, ratios to the floor and the peer."""

from __future__ import annotations

import json
import os
import platform
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.measure import Stats


@dataclass
class Row:
    workload: str
    vaultgraph: Stats | None = None
    floor: Stats | None = None
    peer: Stats | None = None
    note: str = ""
    unit: str = "ops/s"  # what the throughput counts
    per_object: int | None = None

    def ratio(self, other: Stats | None) -> float | None:
        mine = self.vaultgraph.p50 if self.vaultgraph else None
        theirs = other.p50 if other else None
        return mine / theirs if mine and theirs else None

    def over_floor(self) -> float | None:
        """vaultgraph's p50 minus the floor's, in seconds."""
        mine = self.vaultgraph.p50 if self.vaultgraph else None
        floor = self.floor.p50 if self.floor else None
        return mine - floor if mine is not None and floor is not None else None


@dataclass
class Report:
    command: str
    rows: list[Row] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)  # sizes, load times, peak RSS, machine

    def add(self, row: Row) -> None:
        self.rows.append(row)
        vg = row.vaultgraph
        figure = f"p50 {_ms(vg.p50)} ms" if vg and vg.p50 is not None else _throughput(vg, row.unit)
        print(f"  {row.workload}: {figure}", flush=True)


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.2f}"


def _x(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"


def _objects(row: Row) -> str:
    sides = [row.vaultgraph, row.floor, row.peer]
    return "/".join("—" if s is None or s.objects is None else str(s.objects) for s in sides)


def _throughput(stats: Stats | None, unit: str) -> str:
    if stats is None or stats.ops_per_second is None:
        return "—"
    return f"{stats.ops_per_second:,.0f} {unit}"


def _note(row: Row) -> str:
    parts = [row.note] if row.note else []
    over = row.over_floor()
    if over is not None and row.per_object:
        # The targets: at most 1 ms over the floor up to 50 objects, at most 30 µs an object for 100-item pages.
        parts.append(f"{over * 1000:+.1f} ms over floor" + (
            f" ({over / row.per_object * 1e6:+.0f} µs/object)" if row.per_object > 50 else ""))
    for name, stats in (("vaultgraph", row.vaultgraph), ("floor", row.floor), ("peer", row.peer)):
        if stats is not None and stats.error:
            parts.append(f"{name} failed: {stats.error}")
    return "; ".join(parts)


HEADER = ("workload", "p50 ms", "p95 ms", "throughput", "floor p50", "×floor", "peer p50", "×peer",
          "objects vg/floor/peer", "notes")


def table(report: Report) -> str:
    lines = [list(HEADER)]
    for row in report.rows:
        vg = row.vaultgraph
        lines.append([
            row.workload, _ms(vg.p50 if vg else None), _ms(vg.p95 if vg else None), _throughput(vg, row.unit),
            _ms(row.floor.p50 if row.floor else None), _x(row.ratio(row.floor)),
            _ms(row.peer.p50 if row.peer else None), _x(row.ratio(row.peer)), _objects(row), _note(row),
        ])
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER) - 1)]
    out = []
    for n, line in enumerate(lines):
        cells = [line[0].ljust(widths[0])] + [line[i].rjust(widths[i]) for i in range(1, len(widths))]
        out.append("| " + " | ".join(cells) + f" | {line[-1]} |")
        if n == 0:
            out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|---|")
    return "\n".join(out)


def machine() -> dict[str, str]:
    load = os.getloadavg()
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
                   f"{platform.python_version()}",
        "load average (1/5/15 min)": f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}",
    }


def render(report: Report) -> str:
    facts = "\n".join(f"- {k}: {v}" for k, v in report.facts.items())
    skipped = "\n".join(f"- {k}: {v}" for k, v in report.skipped.items())
    text = f"`{report.command}`\n\n{facts}\n\n{table(report)}\n"
    if skipped:
        text += f"\nSkipped:\n{skipped}\n"
    return text


def _stats_json(stats: Stats | None) -> dict[str, Any] | None:
    if stats is None:
        return None
    return {"p50_ms": stats.p50 and stats.p50 * 1000, "p95_ms": stats.p95 and stats.p95 * 1000,
            "throughput": stats.ops_per_second, "samples": len(stats.samples), "objects": stats.objects,
            "error": stats.error}


def write_json(report: Report, path: Path) -> None:
    rows = [{"workload": r.workload, "unit": r.unit, "note": _note(r), "ratio_floor": r.ratio(r.floor),
             "ratio_peer": r.ratio(r.peer), "vaultgraph": _stats_json(r.vaultgraph), "floor": _stats_json(r.floor),
             "peer": _stats_json(r.peer)} for r in report.rows]
    path.write_text(json.dumps({"command": report.command, "facts": report.facts, "skipped": report.skipped,
                                "rows": rows}, indent=2) + "\n")
