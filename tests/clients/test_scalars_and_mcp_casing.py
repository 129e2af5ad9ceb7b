"""Small fits for client generators and MCP clients: Date and DateTime name RFC 3339 as their `specifiedByURL`
(like JSON names ECMA-404), MCP's serverInfo carries the package version, and MCP tools spell their enums as the
GraphQL schema does (SHARED, OUT) while still understanding another case (issue 22.6, 22.10)."""

from __future__ import annotations

import re
from importlib.metadata import version

import pytest

from tests.agents.mcp_client import call, mcp_session, refused
from tests.support.server import RunningServer

pytestmark = [pytest.mark.api]

RFC_3339 = "https://datatracker.ietf.org/doc/html/rfc3339"


async def test_date_scalars_are_specified_by_rfc_3339(server: RunningServer) -> None:
    data = await server.data('{ date: __type(name: "Date") { specifiedByURL } '
                             'dateTime: __type(name: "DateTime") { specifiedByURL } '
                             'json: __type(name: "JSON") { specifiedByURL } }')
    assert data["date"] == {"specifiedByURL": RFC_3339} and data["dateTime"] == {"specifiedByURL": RFC_3339}
    assert data["json"]["specifiedByURL"].startswith("https://ecma-international.org/")
    # The values follow it: a full-date, and a date-time with its offset.
    saved = await server.data('mutation { saveNote(input: {title: "Dated", noteDate: "2026-12-01"}) '
                              '{ note { noteDate createdAt } } }')
    note = saved["saveNote"]["note"]
    assert note["noteDate"] == "2026-12-01"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", note["createdAt"]), note


async def test_mcp_server_info_names_the_package_version(server: RunningServer) -> None:
    async with mcp_session(server.url) as session:
        info = session.server_info
        assert info is not None and info.name == "vaultgraph"
        assert info.version == version("vaultgraph") and info.version


async def test_mcp_tool_enums_are_cased_as_graphql_enums(server: RunningServer) -> None:
    async with mcp_session(server.url) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        direction = tools["traverse"].input_schema["properties"]["direction"]
        assert direction["enum"] == ["OUT", "IN", "BOTH"] and direction["default"] == "BOTH"
        scope = tools["write_note"].input_schema["properties"]["scope"]
        assert scope["enum"] == ["PERSONAL", "TEAM", "SHARED"] and scope["default"] == "SHARED"
        written = await call(session, "write_note", title="Casing", body="Links [[Elsewhere]].", scope="SHARED")
        assert written["scope"] == "SHARED"
        lower = await call(session, "write_note", title="Lower casing", body="x", scope="shared")  # still understood
        assert lower["scope"] == "SHARED"
        reached = await call(session, "traverse", id=written["id"], direction="OUT")
        assert reached == {"items": []}  # the only link is a ghost: never traversed
        wrong = await refused(session, "traverse", id=written["id"], direction="sideways")
        assert "INVALID_INPUT" in wrong and "direction" in wrong and "'OUT'" in wrong, wrong
