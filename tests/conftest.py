"""Shared fixtures: one real Neo4j for the session (started here unless NEO4J_URI is set), a fresh tenant per
test, and a real vaultgraph server on a loopback port for API tests.

Conventions that keep `make test` within its budget (README, Testing):
- Isolation is the tenant: take the `tenant` fixture and write only under it; use free ports only. Every test may
  run beside others (`make test` is `pytest -n 3 --dist loadgroup -m "not slow"`).
- `server` is this process's shared app switched to your tenant; build your own with `run_server` only when you
  need other settings, once per module where you can.
- `@pytest.mark.serial`: your test starts its own processes, SIGKILLs something or measures time; serial tests run
  one after another on one worker. Never stop or kill the suite's Neo4j: start a private one (support/processes.py).
- `@pytest.mark.slow`: minutes by nature; `make test-all` only, with a smaller sibling in `make test` (usually the
  same test parametrized on its size) named in the README's table.
- No sleep to wait for something: `until` / `eventually` from tests/support/waiting.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.support.neo4j import BackgroundNeo4j, TestNeo4j, start_test_neo4j
from tests.support.server import RunningServer, SharedServer, run_shared_server
from vaultgraph.config import Settings
from vaultgraph.domain import Principal
from vaultgraph.graph.migrations import apply_migrations
from vaultgraph.graph.session import Graph
from vaultgraph.services.auth import ApiKeyService

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


NEO4J_KEY = pytest.StashKey[TestNeo4j]()
BACKGROUND_NEO4J_KEY = pytest.StashKey[BackgroundNeo4j]()


def _needs_neo4j(items: list[pytest.Item]) -> bool:
    return any(item.get_closest_marker("graph") or item.get_closest_marker("api") for item in items)


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_xdist_controller(config: pytest.Config) -> bool:
    return not _is_xdist_worker(config) and getattr(config.option, "numprocesses", None) not in (None, 0)


async def _migrate(uri: str) -> None:
    graph = Graph.connect(uri, os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD"))
    try:
        await apply_migrations(graph, Settings.model_fields["embedding_dimensions"].default)
    finally:
        await graph.close()


def pytest_configure(config: pytest.Config) -> None:
    # Under xdist the controller collects nothing, so it cannot tell whether Neo4j is needed: it starts (or finds)
    # the one server, migrates it once (workers racing to apply the same migration on a fresh server would
    # collide), and hands them its URI; a worker never starts one of its own. The start runs while the workers
    # spawn and collect; each waits for it to be ready before its first test (tests/support/neo4j.py).
    if _is_xdist_controller(config):
        background = BackgroundNeo4j(REPO, lambda uri: asyncio.run(_migrate(uri)))
        config.stash[BACKGROUND_NEO4J_KEY] = background
        os.environ.update(background.environment())


# The modules holding the longest tests (`--durations`), longest first: they run first, so that under xdist the run
# does not end waiting on one of them handed out last; the rest keep collection order, each module's tests together
# (their module-scoped servers are built once per worker stretch). The `serial` group's modules lead: one worker
# runs that group whole, the longest stretch of the run.
LONGEST_FIRST = (
    "tests/scaling/test_multi_process.py", "tests/workers/test_crash_recovery.py", "tests/test_bench_smoke.py",
    "tests/security/test_tenancy_random.py", "tests/graph/test_whole_reads.py",
    "tests/web/test_explorer_e2e.py", "tests/agents/test_context_pack_properties.py",
    "tests/security/test_disconnects.py", "tests/security/test_fuzz.py", "tests/services/test_note_batches.py",
    "tests/workers/test_pool.py", "tests/services/test_workspace_sync.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {module: n for n, module in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: the rest as collected
    # Start Neo4j before any test runs, only when a selected test talks to it (pure text tests need none).
    if NEO4J_KEY not in config.stash and _needs_neo4j(items):
        config.stash[NEO4J_KEY] = start_test_neo4j(REPO)
    if config.pluginmanager.hasplugin("xdist"):
        # `serial` tests share one xdist group: one worker runs them one after another (`--dist loadgroup`).
        for item in items:
            if item.get_closest_marker("serial"):
                item.add_marker(pytest.mark.xdist_group("serial"))


def pytest_report_header(config: pytest.Config) -> str | None:
    # The xdist controller collects nothing, so its Neo4j line goes in the header (its version, in the summary).
    background = config.stash.get(BACKGROUND_NEO4J_KEY, None)
    if background is None:
        return None
    return f"neo4j: at {background.uri} ({'external' if background.external else 'started by the tests'}, " \
           "beside the workers' start)"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    background = config.stash.get(BACKGROUND_NEO4J_KEY, None)
    if background is not None:
        with contextlib.suppress(Exception):  # a failed start is already each test's error
            terminalreporter.write_line(_neo4j_line(background.result()))


def pytest_report_collectionfinish(config: pytest.Config) -> str:
    return _neo4j_line(config.stash.get(NEO4J_KEY, None))


def _neo4j_line(neo4j: TestNeo4j | None) -> str:
    if neo4j is None:
        return "neo4j: not needed by the selected tests"
    return f"neo4j: {neo4j.version} at {neo4j.uri} ({'started by the tests' if neo4j.owned else 'external'})"


def pytest_unconfigure(config: pytest.Config) -> None:
    neo4j = config.stash.get(NEO4J_KEY, None)
    if neo4j is not None:
        neo4j.close()
    background = config.stash.get(BACKGROUND_NEO4J_KEY, None)
    if background is not None:
        background.close()


@pytest.fixture(scope="session")
def neo4j_server(pytestconfig: pytest.Config) -> TestNeo4j:
    neo4j = pytestconfig.stash.get(NEO4J_KEY, None)
    if neo4j is None:
        raise RuntimeError("a test uses Neo4j without the `graph` or `api` marker; add the marker")
    return neo4j


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"the shared data folder {SHARED} is absent (CI lays it beside the clone)")
    return SHARED


@pytest.fixture(scope="session")
def workspace_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("data")


@pytest.fixture(scope="session")
def settings(neo4j_server: TestNeo4j, workspace_root: Path) -> Settings:
    # No workspace watcher by default: every test's server shares this workspace root, and a watcher would race the
    # tests that write files there and rescan; tests/services/test_workspace_watch.py turns it on for its own root.
    return Settings(data_dir=workspace_root, neo4j_uri=neo4j_server.uri, log_level="WARNING", workspace_watch=False)


@pytest.fixture(scope="session")
async def graph(settings: Settings) -> AsyncIterator[Graph]:
    assert settings.neo4j_uri is not None
    graph = Graph.connect(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password)
    await apply_migrations(graph, settings.embedding_dimensions)
    yield graph
    await graph.close()


@pytest.fixture(scope="session")
def keys(graph: Graph) -> ApiKeyService:
    """API keys straight from the service (tests/security, tests/clients)."""
    return ApiKeyService(graph)


@pytest.fixture
def tenant() -> str:
    """A fresh tenant per test: isolation for free, and every test a small tenancy check too."""
    return f"t{uuid.uuid4().hex[:16]}"


@pytest.fixture
def principal(tenant: str) -> Principal:
    return Principal(tenant_id=tenant, sees_all_scopes=True)


@pytest.fixture(scope="session")
async def shared_server(settings: Settings) -> AsyncIterator[SharedServer]:
    """The one app of this test process behind `server` (an app build and its lifespan cost a second or more)."""
    async with run_shared_server(settings, f"t{uuid.uuid4().hex[:16]}") as shared:
        yield shared


@pytest.fixture
def server(shared_server: SharedServer, tenant: str) -> RunningServer:
    """A real vaultgraph on a loopback port, in development mode for this test's tenant: the process's shared app,
    serving this tenant now. A test that needs other settings starts its own with `run_server`."""
    # Its enrichment workers serve the tests' tenants only, not other runs' documents in the same Neo4j.
    return shared_server.for_tenant(tenant)


@pytest.fixture
def env_clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith(("VAULTGRAPH_", "NEO4J_", "OPENAI_")):
            monkeypatch.delenv(name)
    yield
