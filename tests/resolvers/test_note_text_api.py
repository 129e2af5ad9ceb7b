"""What the text layer reads out of a note body, through saveNote over real HTTP: links and frontmatter."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings

pytestmark = [pytest.mark.api, pytest.mark.graph]

SAVE = """
mutation Save($input: NoteInput!) {
  saveNote(input: $input) { note { id body frontmatter tags outgoing { totalCount edges { node {
    ref label heading isGhost } } } } }
}
"""


@pytest.fixture(scope="module")
async def text_server(settings: Settings) -> AsyncIterator[RunningServer]:
    """One server for the module; each test is its own tenant (the development-mode tenant header)."""
    quiet = f"t{uuid.uuid4().hex[:16]}"  # its workers enrich a tenant nobody writes to
    async with run_server(settings.model_copy(update={"port": 0, "enrichment_tenants": [quiet]})) as running:
        yield running


async def _save(server: RunningServer, tenant: str, title: str, body: str) -> dict[str, Any]:
    return await server.graphql(SAVE, {"input": {"title": title, "body": body}},
                                headers={"X-Vaultgraph-Tenant": tenant})


async def test_a_code_span_in_an_alias_belongs_to_the_link(text_server: RunningServer, tenant: str) -> None:
    body = "Nested tags are recognized by the [[Functions#hasTag|`hasTag`]] function, not `[[Hidden]]`."

    saved = await _save(text_server, tenant, "Tags", body)

    note = saved["data"]["saveNote"]["note"]
    assert note["outgoing"]["totalCount"] == 1
    [link] = [edge["node"] for edge in note["outgoing"]["edges"]]
    assert (link["heading"], link["label"], link["isGhost"]) == ("hasTag", "`hasTag`", True)
