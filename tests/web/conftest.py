"""Browser fixtures: one headless Debian Chromium per session (driven by Playwright, never its downloaded
browsers), a fresh context per test, console errors collected, screenshots written as artifacts."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, ConsoleMessage, Error, Page, async_playwright

from tests.support.server import RunningServer

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = Path(os.environ.get("VAULTGRAPH_TEST_ARTIFACTS", REPO / ".vaultgraph-test" / "artifacts")) / "web"
WIDE = {"width": 1280, "height": 800}


@pytest.fixture(scope="session")
def web_dist() -> Path:
    index = REPO / "web" / "dist" / "index.html"
    if not index.is_file():
        pytest.fail("the explorer is not built: run `make web` (make test does it) before the browser tests")
    return index.parent


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `apt-get install -y chromium` (make test does it)")
    return CHROMIUM


@pytest.fixture(scope="session")
async def browser(web_dist: Path, chromium_path: Path) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=str(chromium_path), args=CHROMIUM_ARGS)
        yield chromium
        await chromium.close()


@dataclass
class ExplorerPage:
    """The explorer open in a page against this test's server, with what went wrong in the browser."""

    page: Page
    server: RunningServer
    name: str
    errors: list[str] = field(default_factory=list)
    shots: int = 0

    async def open(self, path: str = "/") -> None:
        await self.page.goto(self.server.url + path)
        await self.page.wait_for_function("document.body.dataset.ready === 'true'", timeout=20_000)

    async def shot(self, step: str) -> Path:
        """A screenshot of this step, kept as a test artifact."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.shots += 1
        path = ARTIFACTS / f"{self.name}-{self.shots:02d}-{step}.png"
        await self.page.screenshot(path=str(path))
        return path

    async def hook(self, expression: str, arg: Any = None) -> Any:
        """Call `expression` with window.__vaultgraph (the page's test hook) and `arg`:
        `(vg, id) => vg.graph.hasNode(id)`."""
        return await self.page.evaluate(f"arg => ({expression})(window.__vaultgraph, arg)", arg)

    async def wait_hook(self, predicate: str, arg: Any = None, wait_ms: float = 10_000) -> None:
        """Wait until `predicate` (called like `hook`) is true."""
        await self.page.wait_for_function(
            f"arg => window.__vaultgraph && ({predicate})(window.__vaultgraph, arg)", arg=arg, timeout=wait_ms)

    def row(self, title: str) -> Any:
        return self.page.locator("#item-list li.item-row", has_text=title)


@pytest.fixture
async def explorer(
    browser: Browser, server: RunningServer, request: pytest.FixtureRequest
) -> AsyncIterator[ExplorerPage]:
    context = await browser.new_context(viewport=WIDE)  # type: ignore[arg-type]
    page = await context.new_page()
    page.set_default_timeout(10_000)
    name = re.sub(r"[^\w.-]+", "_", request.node.name)[:80]
    ex = ExplorerPage(page, server, name)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            ex.errors.append(message.text)

    def on_page_error(error: Error) -> None:
        ex.errors.append(f"{error.name}: {error.message}")

    page.on("console", on_console)
    page.on("pageerror", on_page_error)
    try:
        yield ex
    finally:
        if request.node.rep_call.failed if hasattr(request.node, "rep_call") else False:
            await ex.shot("failed")
        await context.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the test item, so the fixture can screenshot a failed test."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


async def make_note(server: RunningServer, title: str, body: str = "", **extra: Any) -> str:
    """A note through saveNote; returns its id."""
    data = await server.data("mutation($i: NoteInput!) { saveNote(input: $i) { note { id } } }",
                             {"i": {"title": title, "body": body, **extra}})
    note_id: str = data["saveNote"]["note"]["id"]
    return note_id


async def make_document(server: RunningServer, path: str, content: str, **extra: Any) -> str:
    """A document through createDocument; returns its id."""
    data = await server.data("mutation($i: DocumentInput!) { createDocument(input: $i) { id } }",
                             {"i": {"path": path, "content": content, **extra}})
    doc_id: str = data["createDocument"]["id"]
    return doc_id


async def schema_has(server: RunningServer, type_name: str, field_name: str) -> bool:
    """Whether the server's schema has `type_name.field_name` right now (the API grows release by release)."""
    data = await server.data("query($t: String!) { __type(name: $t) { fields { name } } }", {"t": type_name})
    return any(f["name"] == field_name for f in (data["__type"] or {}).get("fields") or [])
