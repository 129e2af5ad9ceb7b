"""Outside development mode the explorer asks for an API key, keeps it in the browser, and sends it on HTTP
(Authorization: Bearer) and in the WebSocket's connection_init."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import expect

from tests.support.server import RunningServer, run_server
from tests.web.conftest import ExplorerPage
from vaultgraph.config import Settings

pytestmark = [pytest.mark.web, pytest.mark.api, pytest.mark.graph]


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[RunningServer]:
    async with run_server(settings.model_copy(update={"dev_mode": False, "port": 0})) as running:
        yield running


async def test_a_server_that_needs_a_key_gets_one_from_the_person(explorer: ExplorerPage, tenant: str) -> None:
    server = explorer.server
    new = await server.app.state.keys.create(tenant, all_scopes=True, name="explorer test")
    headers = {"authorization": f"Bearer {new.secret}"}
    await server.data('mutation { saveNote(input: {title: "Behind a key", body: "Private."}) { note { id } } }',
                      headers=headers)
    page = explorer.page
    await page.goto(server.url + "/")
    await page.wait_for_function("document.body.dataset.ready === 'error'")
    await expect(page.locator("#list-empty")).to_contain_text("This server needs an API key")
    await explorer.shot("key-asked")
    await page.fill("#api-key", new.secret)
    await page.keyboard.press("Enter")
    await page.wait_for_function("document.body.dataset.ready === 'true'")
    await expect(explorer.row("Behind a key")).to_be_visible()
    # The live socket authenticated too (connection_init carries the key).
    await page.wait_for_function("document.getElementById('socket-state').dataset.state === 'open'")
    # A 401 on the first load is reported in the page, and the browser logs the failed request; nothing else.
    assert [e for e in explorer.errors if "401" not in e] == []
