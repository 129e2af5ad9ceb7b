"""The explorer end to end: web/e2e/*.test.mjs, on node's test runner, drive Debian's headless Chromium through
playwright-core against a real server. Each scenario there (listed by web/e2e/catalog.mjs) is one test here, with a
fresh tenant and a server of its own started as the scenario asks (`workers`, `apiKey`); then `node --test` runs that
one scenario by name, and its output is the failure message. Screenshots: VAULTGRAPH_TEST_ARTIFACTS/web (default
.vaultgraph-test/artifacts/web), one per step and one on failure."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.openai_server import run_openai_server
from tests.support.server import run_server
from vaultgraph.config import Settings

pytestmark = [pytest.mark.web, pytest.mark.api, pytest.mark.graph]

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "web"
CHROMIUM = Path("/usr/bin/chromium")
# Below pytest's 300 s per test (the server starts and stops within it); a scenario stops itself at 270 s. A slow
# one (`{ slow: true }`, make test-all) gets twice that: the 2,000-note vault takes 128 s alone and went past 285 s
# beside the multi-process and crash-recovery tests; web/e2e/support.mjs stops it at 570 s.
NODE_SECONDS = 285
SLOW_NODE_SECONDS = 585
SLOW_TEST_SECONDS = 615


@dataclass(frozen=True)
class Scenario:
    file: str  # from the repository's root: web/e2e/….test.mjs
    name: str
    workers: bool  # the enrichment workers run, for this tenant only
    api_key: bool  # development mode off; the scenario gets a key of its tenant in VAULTGRAPH_E2E_KEY
    introspection: bool = True  # false: the server refuses introspection, as production should
    models: bool = False  # the model endpoint is tests/support/openai_server.py (fast embeddings for big vaults)
    slow: bool = False  # make test-all only, with the longer budget


def catalog() -> list[Any]:
    """One parameter per scenario, or one that fails saying why the scenarios could not be listed (never none)."""
    node = shutil.which("node")
    if node is None:
        return [pytest.param("node is not on PATH: the explorer tests need Node 20+ (so does make web)", id="catalog")]
    try:
        listed = subprocess.run([node, str(WEB / "e2e" / "catalog.mjs")], cwd=REPO, capture_output=True, text=True,
                                timeout=60, check=False)
    except subprocess.TimeoutExpired:
        return [pytest.param("node web/e2e/catalog.mjs took over 60 s", id="catalog")]
    if listed.returncode != 0:
        return [pytest.param(f"node web/e2e/catalog.mjs failed:\n{listed.stderr}{listed.stdout}", id="catalog")]
    params = []
    for entry in json.loads(listed.stdout):
        needs = entry["needs"]
        scenario = Scenario(entry["file"], entry["name"], needs["workers"], needs["apiKey"], needs["introspection"],
                            needs.get("models", False), needs.get("slow", False))
        group = Path(scenario.file).name.removesuffix(".test.mjs")
        # `{ slow: true }`: make test-all only
        marks = [pytest.mark.slow, pytest.mark.timeout(SLOW_TEST_SECONDS)] if scenario.slow else []
        if needs.get("full"):  # `{ full: true }`: make test-explorer (CI) and make test-all, not make test
            marks = [pytest.mark.slow, pytest.mark.explorer_full]
        params.append(pytest.param(scenario, id=f"{group}:{re.sub(r'[^0-9A-Za-z]+', '_', scenario.name).strip('_')}",
                                   marks=marks))
    return params


async def run_node(scenario: Scenario, env: dict[str, str]) -> tuple[int, str]:
    """`node --test` on the scenario's file, selecting the scenario by name; its exit code and TAP output."""
    seconds = SLOW_NODE_SECONDS if scenario.slow else NODE_SECONDS
    process = await asyncio.create_subprocess_exec(
        "node", "--test", "--test-reporter=tap", scenario.file, cwd=REPO, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = await asyncio.wait_for(process.communicate(), seconds)
    except TimeoutError:
        return -1, f"node took over {seconds} s and was stopped"
    finally:
        if process.returncode is None:  # timed out or cancelled: SIGTERM lets Playwright close its Chromium
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
    assert process.returncode is not None
    return process.returncode, output.decode(errors="replace")


@pytest.fixture(scope="session")
def browser_ready() -> None:
    """What every scenario needs besides the server; a missing piece fails with the command that brings it."""
    if not (WEB / "dist" / "index.html").is_file():
        pytest.fail("the explorer is not built: run `make web` (make test does it) before the browser tests")
    if not (WEB / "node_modules" / "playwright-core").is_dir():
        pytest.fail("web/node_modules has no playwright-core: run `make web` (npm ci from web/package-lock.json)")
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `apt-get install -y chromium` (make test does it)")


@pytest.mark.parametrize("scenario", catalog())
async def test_explorer(scenario: Scenario | str, settings: Settings, tenant: str, browser_ready: None) -> None:
    if isinstance(scenario, str):
        pytest.fail(scenario, pytrace=False)
    # As the suite's `server` fixture: its enrichment workers serve this tenant only, not other tests' documents.
    update: dict[str, Any] = {"dev_tenant": tenant, "port": 0, "enrichment_tenants": [tenant]}
    if scenario.workers:
        update["enrichment_workers"] = True
    if scenario.api_key:
        update["dev_mode"] = False
    if not scenario.introspection:
        update["introspection"] = False
    env = {name: value for name, value in os.environ.items() if not name.startswith("VAULTGRAPH_E2E_")}
    env["VAULTGRAPH_E2E_TEST"] = scenario.name
    with contextlib.ExitStack() as stack:
        if scenario.models:
            model = stack.enter_context(run_openai_server(embedding_dimensions=settings.embedding_dimensions))
            update.update(openai_base_url=model.base_url, openai_api_key="sk-test", embedding_model="test-embed",
                          chat_model="test-chat")
        code, output = await run_scenario(scenario, settings.model_copy(update=update), tenant, env)
    print(output)  # node's TAP: pytest shows it for a failure, and with -rP for a pass
    check_output(scenario, code, output)


async def run_scenario(scenario: Scenario, settings: Settings, tenant: str, env: dict[str, str]) -> tuple[int, str]:
    """The scenario's server, with a key of its tenant when it asks for one, and node on the scenario."""
    async with run_server(settings) as server:
        env["VAULTGRAPH_E2E_URL"] = server.url
        env["VAULTGRAPH_E2E_DATA_DIR"] = str(settings.data_dir)  # where importVault may read in development mode
        if scenario.api_key:
            key = await server.app.state.keys.create(tenant, all_scopes=True, name="explorer e2e")
            env["VAULTGRAPH_E2E_KEY"] = key.secret
        return await run_node(scenario, env)


def check_output(scenario: Scenario, code: int, output: str) -> None:
    """Exactly this one scenario ran, and passed or skipped."""
    counts = {name: int(n) for name, n in re.findall(r"^# (tests|pass|fail|skipped|cancelled) (\d+)$", output, re.M)}
    if code != 0 or counts.get("fail") or counts.get("cancelled"):
        pytest.fail(f"{scenario.file} › {scenario.name}: node exited {code}\n{output}", pytrace=False)
    # Exactly this scenario ran: a file that selects none still passes as one test named after the file.
    tap_name = re.escape(scenario.name.replace("\\", "\\\\").replace("#", "\\#"))
    if counts.get("tests") != 1 or not re.search(rf"^ok 1 - {tap_name}(?: # SKIP.*)?$", output, re.M):
        pytest.fail(f"node did not run the one scenario {scenario.name!r}:\n{output}", pytrace=False)
    if counts.get("skipped") == 1:
        reason = re.search(r"# SKIP (.*)$", output, re.M)
        pytest.skip(reason.group(1) if reason else output)
    assert counts.get("pass") == 1, output
