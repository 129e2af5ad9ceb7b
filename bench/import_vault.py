"""Obsidian vault import throughput: generate a vault of N notes, import it twice, print files/s.

    .venv/bin/python -m bench.import_vault                    # 5,000 notes: the workspace scan's file limit
    .venv/bin/python -m bench.import_vault --notes 500        # a quicker look
    NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python -m bench.import_vault   # against a running Neo4j

The vault is Obsidian-like and made from a seed: notes in nested folders with YAML frontmatter (title, tags,
aliases, created, kind), a heading, paragraphs, inline `#tags`, five distinct `[[wikilinks]]` each (some aliased
`[[T|alias]]`, some to a heading `[[T#Section]]`, a few to notes that do not exist) whose targets follow a Zipf law
so in-degrees are power-law like a wiki's, `![[note]]` embeds in one note in ten, and an `.obsidian/` folder (hidden,
skipped as Obsidian's own). Every file is a note, so 5,000 notes stay within the scan limits (5,000 files).

The import is the one `vaultgraph import-vault PATH` runs: `VaultService.import_vault` built as the CLI builds it,
with the CLI's own progress bar on stderr (notes go through the bulk save, `NoteService.save_many`); `--embed` also
indexes them with the configured embedding model, as the server's `importVault` does. The first import must
create every note; the second must find every note unchanged (the graph already holds each body). Both are timed;
files/s is files ÷ the import call's wall time (connection, migrations and the model's load apart). Without
NEO4J_URI the embedded-default Neo4j is started and stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from vaultgraph.cli.output import Progress as ProgressDisplay  # noqa: E402
from vaultgraph.config import Settings  # noqa: E402
from vaultgraph.domain import Principal  # noqa: E402
from vaultgraph.graph.migrations import apply_migrations  # noqa: E402
from vaultgraph.graph.session import Graph  # noqa: E402
from vaultgraph.interop.vault import Progress, VaultReport, VaultService  # noqa: E402
from vaultgraph.models.client import ModelClient, build_model_client  # noqa: E402
from vaultgraph.neo4j_local import server as local_neo4j  # noqa: E402
from vaultgraph.runtime import model_config  # noqa: E402
from vaultgraph.services.documents import DocumentService  # noqa: E402
from vaultgraph.services.indexing import Indexer, chunking_policy  # noqa: E402
from vaultgraph.services.links import LinkService  # noqa: E402
from vaultgraph.services.notes import NoteFilter, NoteService  # noqa: E402
from vaultgraph.workspace import Workspace  # noqa: E402

LINKS_PER_NOTE = 5
ZIPF_EXPONENT = 0.9  # as bench/generate.py: in-degree falls off like a wiki's
ALIAS_SHARE = 0.15  # [[Target|alias]]
HEADING_SHARE = 0.05  # [[Target#Section]]
MISSING_SHARE = 0.02  # [[A note nobody wrote]]: unresolved, as in any real vault
EMBED_SHARE = 0.10  # notes with one ![[note]] embed
FOLDERS = (
    "", "Inbox", "Projects/Atlas", "Projects/Beacon", "Projects/Cedar", "Areas/Health", "Areas/Finance",
    "Areas/Home", "Resources/Books", "Resources/Papers", "Resources/Talks", "Journal/2025", "Journal/2026",
    "Archive", "Archive/Old Projects", "People", "Meetings", "Maps",
)
_ADJECTIVES = ("quiet", "rapid", "open", "hidden", "northern", "steady", "early", "shared", "local", "simple",
               "careful", "bright", "modular", "lasting", "broad", "narrow")
_NOUNS = ("garden", "river", "engine", "ledger", "harbor", "signal", "lantern", "meadow", "archive", "bridge",
          "compass", "orchard", "furnace", "atlas", "beacon", "cedar", "summit", "canvas")
_WORDS = ("the", "note", "project", "design", "review", "idea", "draft", "plan", "question", "result", "decision",
          "context", "source", "summary", "detail", "issue", "next", "step", "team", "weekly", "reference", "method",
          "approach", "problem", "solution", "risk", "cost", "value", "change", "update", "release", "goal", "task")
_TAGS = ("topic/writing", "topic/research", "topic/ops", "topic/health", "topic/money", "status/draft",
         "status/done", "status/active", "type/literature", "type/meeting", "type/idea", "review")


@dataclass(frozen=True, slots=True)
class VaultStats:
    notes: int
    files: int  # files an import walks (the hidden .obsidian folder apart)
    bytes: int
    links: int  # every [[link]] and ![[embed]] written
    embeds: int
    unresolved: int  # links to notes that do not exist
    folders: int


def _title(n: int, rng: random.Random) -> str:
    return f"{rng.choice(_ADJECTIVES).title()} {rng.choice(_NOUNS).title()} {n:04d}"


def _sentence(rng: random.Random, words: int = 12) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def generate_vault(root: Path, notes: int, seed: int = 7) -> VaultStats:
    """Write an Obsidian-like vault of `notes` markdown files under `root` (made if missing); same seed, same vault."""
    rng = random.Random(seed)
    titles = [_title(n, rng) for n in range(notes)]
    folders = [FOLDERS[rng.randrange(len(FOLDERS))] for _ in range(notes)]
    ranks = list(range(notes))
    rng.shuffle(ranks)  # rank r of note ranks[r]: the hubs are spread over folders and titles
    cumulative = list(accumulate(1.0 / (rank + 1) ** ZIPF_EXPONENT for rank in range(notes)))
    hubs = set(ranks[: max(1, notes // 100)])
    links = embeds = unresolved = size = 0
    (root / ".obsidian").mkdir(parents=True, exist_ok=True)
    (root / ".obsidian/app.json").write_text('{"alwaysUpdateLinks": true, "newLinkFormat": "shortest"}\n')
    for n in range(notes):
        targets: list[int] = []
        while len(targets) < min(LINKS_PER_NOTE, notes - 1):
            pick = ranks[min(bisect_left(cumulative, rng.random() * cumulative[-1]), notes - 1)]
            if pick != n and pick not in targets:
                targets.append(pick)
        written = []
        for target in targets:
            roll = rng.random()
            if roll < MISSING_SHARE:
                written.append(f"[[Missing {rng.choice(_NOUNS).title()} {rng.randrange(100):02d}]]")
                unresolved += 1
            elif roll < MISSING_SHARE + HEADING_SHARE:
                written.append(f"[[{titles[target]}#Details]]")
            elif roll < MISSING_SHARE + HEADING_SHARE + ALIAS_SHARE:
                written.append(f"[[{titles[target]}|{rng.choice(_NOUNS)} notes]]")
            else:
                written.append(f"[[{titles[target]}]]")
        links += len(written)
        tags = rng.sample(_TAGS, 2)
        front = ["---", f"title: {titles[n]}", f"tags: [{', '.join(tags)}]"]
        if rng.random() < 0.2:
            front.append(f"aliases: [{titles[n].split()[1]} {n}]")
        front += [f"created: 2026-{1 + n % 12:02d}-{1 + n % 28:02d}", f"kind: {'moc' if n in hubs else 'note'}", "---"]
        lines = [
            *front, "", f"# {titles[n]}", "",
            f"{_sentence(rng)} See {written[0]} and {', '.join(written[1:-1])}. #{tags[0]}", "",
            _sentence(rng, 20), "", "## Details", "",
            f"{_sentence(rng)} Related: {written[-1]}. #{tags[1]}", "",
        ]
        if rng.random() < EMBED_SHARE and targets:
            lines += [f"![[{titles[targets[0]]}]]", ""]
            links += 1
            embeds += 1
        text = "\n".join(lines)
        folder = root / folders[n]
        folder.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        (folder / f"{titles[n]}.md").write_bytes(data)
        size += len(data)
    return VaultStats(notes=notes, files=notes, bytes=size, links=links, embeds=embeds, unresolved=unresolved,
                      folders=len({f for f in folders if f}))


def build_vault_service(settings: Settings, graph: Graph, models: ModelClient | None = None) -> VaultService:
    """The service `vaultgraph import-vault` uses, built as the CLI builds it (vaultgraph/cli/vault.py); with
    `models`, notes are indexed as the server's `importVault` indexes them (its fuzzy pass needs a chat model)."""
    indexer = Indexer(graph, models, chunking_policy(settings)).index_notes if models is not None else None
    notes = NoteService(graph, settings.page_size_max, indexer=indexer)
    workspace = Workspace(settings.workspace_dir)
    documents = DocumentService(graph, workspace, settings.page_size_max)
    return VaultService(notes, documents, LinkService(graph, workspace, settings.page_size_max))


@dataclass(frozen=True, slots=True)
class Timed:
    report: VaultReport
    seconds: float

    @property
    def files_per_second(self) -> float:
        return self.report.files / max(self.seconds, 1e-9)


async def timed_import(service: VaultService, principal: Principal, root: Path,
                       progress: Progress | None = None) -> Timed:
    started = time.perf_counter()
    with ProgressDisplay("import") as display:  # the CLI's own display, unless the caller brings one
        report = await service.import_vault(principal, root, False, progress or display)
    return Timed(report, time.perf_counter() - started)


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


async def run(args: argparse.Namespace, settings: Settings, uri: str) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="vault-bench-"))
    root = workdir / "vault"
    try:
        started = time.perf_counter()
        stats = generate_vault(root, args.notes, args.seed)
        print(f"generated {stats.notes} notes in {stats.folders} folders, {stats.bytes / 1e6:.1f} MB, "
              f"{stats.links} links ({stats.embeds} embeds, {stats.unresolved} to missing notes) "
              f"in {time.perf_counter() - started:.1f} s at {root}")
        graph = Graph.connect(uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
        try:
            await graph.verify()
            await apply_migrations(graph, settings.embedding_dimensions)
            models = build_model_client(model_config(settings)) if args.embed else None
            if models is not None:
                await models.warm_up()  # the model's load is not the import's time
                print(f"embedding with {models.embedding_model_name}")
            service = build_vault_service(settings, graph, models)
            tenant = args.tenant or f"vault{args.notes}-{uuid.uuid4().hex[:8]}"
            principal = Principal(tenant, sees_all_scopes=True)
            print(f"tenant {tenant}; load average before: {_load()}")
            first = await timed_import(service, principal, root)
            print(f"first import: {first.report.files} files in {first.seconds:.1f} s = "
                  f"{first.files_per_second:.1f} files/s; created {len(first.report.created)}, "
                  f"updated {len(first.report.updated)}, unchanged {len(first.report.unchanged)}, "
                  f"conflicts {len(first.report.conflicts)}, skipped {len(first.report.skipped)}; load {_load()}")
            second = await timed_import(service, principal, root)
            print(f"second import: {second.report.files} files in {second.seconds:.1f} s = "
                  f"{second.files_per_second:.1f} files/s; unchanged {len(second.report.unchanged)}, "
                  f"created {len(second.report.created)}, updated {len(second.report.updated)}; load {_load()}")
            in_graph = (await service.notes.page(principal, NoteFilter(), 1, None)).total_count
            problems = check(stats, first.report, second.report, in_graph)
            print(f"notes in the graph: {in_graph}; checks: {'ok' if not problems else '; '.join(problems)}")
            return 1 if problems else 0
        finally:
            await graph.close()
    finally:
        if args.keep:
            print(f"vault kept at {root}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def check(stats: VaultStats, first: VaultReport, second: VaultReport, in_graph: int) -> list[str]:
    """What must hold after the two imports (empty when all is well)."""
    problems = []
    if (first.files, len(first.created), len(first.skipped), len(first.conflicts)) != (stats.files, stats.notes, 0, 0):
        problems.append(f"first import: {first.files} files, {len(first.created)} created, {len(first.skipped)} "
                        f"skipped, {len(first.conflicts)} conflicts (expected {stats.notes} created, none else)")
    if (len(second.unchanged), len(second.created), len(second.updated)) != (stats.notes, 0, 0):
        problems.append(f"second import: {len(second.unchanged)} unchanged of {stats.notes}")
    if in_graph != stats.notes:
        problems.append(f"{in_graph} notes in the graph, expected {stats.notes}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.import_vault", description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=5000, help="notes in the vault (default 5,000: the file limit)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tenant", help="tenant to import into (default: a fresh one)")
    parser.add_argument("--keep", action="store_true", help="keep the generated vault (its path is printed)")
    parser.add_argument("--embed", action="store_true",
                        help="index the notes with the configured embedding model, as the server's importVault "
                        "does (default: graph only, as `vaultgraph import-vault`)")
    args = parser.parse_args(argv)
    settings = Settings()
    if settings.neo4j_uri is not None:
        return asyncio.run(run(args, settings, settings.neo4j_uri))
    server = local_neo4j.LocalNeo4j.from_settings(settings)
    owned = local_neo4j.start(server, settings.java_home, settings.neo4j_start_timeout)
    try:
        return asyncio.run(run(args, settings, settings.local_bolt_uri))
    finally:
        if owned:
            local_neo4j.stop(server)


if __name__ == "__main__":
    os.environ.setdefault("VAULTGRAPH_LOG_LEVEL", "WARNING")
    raise SystemExit(main())
