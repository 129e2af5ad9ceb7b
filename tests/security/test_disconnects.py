"""A client that goes away mid-request is an expected event, not a server error: `vaultgraph serve` (a real
process with its real logging, JSON lines) logs one INFO `client disconnected` line with the request id and no
traceback, answers no 500, and keeps serving. A real error still logs its traceback (http/disconnects.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tests.support.processes import ServeProcess, serve_env, serving
from tests.support.raw_http import chunk, connect, head, upload_headers, upload_parts
from tests.support.server import serve_on_loopback
from vaultgraph.config import Settings
from vaultgraph.http.disconnects import RequestIds
from vaultgraph.logs import formatter

pytestmark = [pytest.mark.security, pytest.mark.api]

QUERY = json.dumps({"query": "{ documents(first: 5) { totalCount } }"}).encode()
MCP_CALL = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
SERVER_ERROR = re.compile(r'HTTP/1\.1" 5\d\d')


@pytest.fixture
async def served(settings: Settings, tenant: str, tmp_path: Path) -> AsyncIterator[ServeProcess]:
    assert settings.neo4j_uri is not None
    env = serve_env(settings.neo4j_uri, tmp_path / "data", tenant, {
        "VAULTGRAPH_LOG_LEVEL": "INFO", "VAULTGRAPH_LOG_FORMAT": "json", "VAULTGRAPH_ENRICHMENT_WORKERS": "false"})
    async with serving(env, tmp_path / "serve.log") as server:
        yield server


def _records(log: Path) -> list[dict[str, Any]]:
    records = []
    for line in log.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):  # a line being written, or not one of the server's JSON lines
            record = json.loads(line)
            if isinstance(record, dict):
                records.append(record)
    return records


async def _disconnect_lines(log: Path, expected: int, within: float = 20.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + within
    while True:
        found = [r for r in _records(log) if r.get("event") == "client disconnected"]
        if len(found) >= expected or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.1)


async def _cut_json_body(server: ServeProcess) -> None:
    """Declares 5,000 bytes, sends 40, goes away."""
    async with connect(server.url) as raw:
        await raw.send(head("POST", "/graphql", {"Content-Type": "application/json", "Content-Length": "5000"}))
        await raw.send(QUERY[:40])
        await asyncio.sleep(0.3)


async def _cut_chunked_json_body(server: ServeProcess) -> None:
    async with connect(server.url) as raw:
        await raw.send(head("POST", "/graphql", {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}))
        await raw.send(chunk(QUERY[:40]))
        await asyncio.sleep(0.3)


async def _cut_upload(server: ServeProcess, declared: bool) -> None:
    """An upload cancelled a third of the way through its file."""
    before, after = upload_parts("cut.md", 600_000)
    total = len(before) + 600_000 + len(after)
    async with connect(server.url) as raw:
        await raw.send(head("POST", "/graphql", upload_headers(length=total if declared else None)))
        body = before + b"# cut\n" + b"x" * 200_000
        await raw.send(body if declared else chunk(body))
        await asyncio.sleep(0.3)


async def _cut_mcp_body(server: ServeProcess) -> None:
    async with connect(server.url) as raw:
        await raw.send(head("POST", "/mcp", {"Content-Type": "application/json", "Content-Length": "4000",
                                             "Accept": "application/json, text/event-stream"}))
        await raw.send(MCP_CALL[:30])
        await asyncio.sleep(0.3)


async def _gone_before_the_answer(server: ServeProcess) -> None:
    """The whole request (a GET: no body to read), then away before the answer is written: the answer goes
    nowhere, quietly (uvicorn drops what is sent to a closed connection)."""
    async with connect(server.url) as raw:
        await raw.send(head("GET", f"/graphql?query={quote('{ graph(limit: 2000) { truncated } }')}",
                            {"Accept": "application/json"}))


async def test_a_client_going_away_is_one_info_line_with_the_request_id_and_no_traceback(
    served: ServeProcess,
) -> None:
    cut_bodies = [_cut_json_body, _cut_chunked_json_body, _cut_mcp_body]
    for cut in cut_bodies:
        await cut(served)
    await _cut_upload(served, declared=True)
    await _cut_upload(served, declared=False)
    for _ in range(5):
        await _gone_before_the_answer(served)
    expected = len(cut_bodies) + 2

    lines = await _disconnect_lines(served.log, expected)
    text = served.log.read_text(errors="replace")
    assert "Traceback" not in text, served.log_tail(80)
    assert "Exception in ASGI application" not in text
    assert "Error handling POST request" not in text
    assert not SERVER_ERROR.search(text), served.log_tail(80)
    assert len(lines) == expected, served.log_tail(80)
    for line in lines:
        assert line["level"] == "info"
        assert re.fullmatch(r"[0-9a-f]{16}", line["request_id"])
        assert line["stage"] == "request" and line["method"] == "POST"
    assert len({line["request_id"] for line in lines}) == expected
    assert sorted(line["path"] for line in lines) == ["/graphql"] * (expected - 1) + ["/mcp"]

    # The server goes on serving, with the id in every answer, and the cut upload stored nothing.
    response = await served.client.post("/graphql", json={"query": "{ documents { totalCount } }"})
    assert response.status_code == 200 and response.json() == {"data": {"documents": {"totalCount": 0}}}
    assert re.fullmatch(r"[0-9a-f]{16}", response.headers["x-request-id"])
    assert (await served.health())[0] == 200


# --- a real error keeps its traceback ---------------------------------------------------------------------------


async def _disk_full(request: Request) -> PlainTextResponse:
    await request.body()
    raise OSError(28, "No space left on device")  # an OSError with the client still there: a real error


async def _client_gone(request: Request) -> PlainTextResponse:
    await request.body()  # raises ClientDisconnect: the client went away mid-body
    return PlainTextResponse("unreachable")


@pytest.fixture
async def small_app() -> AsyncIterator[str]:
    """RequestIds in front of a two-route app, under real uvicorn on a free loopback port."""
    app = Starlette(routes=[Route("/disk-full", _disk_full, methods=["POST"]),
                            Route("/gone", _client_gone, methods=["POST"])],
                    middleware=[Middleware(RequestIds)])
    async with serve_on_loopback(app, lifespan="off") as url:
        yield url


async def test_a_real_error_still_logs_its_traceback_and_answers_500(
    small_app: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="uvicorn.error")
    async with httpx.AsyncClient(base_url=small_app) as client:
        response = await client.post("/disk-full", content=b"{}")
    assert response.status_code == 500
    [record] = [r for r in caplog.records if r.name == "uvicorn.error"]
    assert record.getMessage().startswith("Exception in ASGI application")
    assert record.exc_info is not None and isinstance(record.exc_info[1], OSError)

    caplog.clear()
    async with connect(small_app) as raw:
        await raw.send(head("POST", "/gone", {"Content-Length": "100"}) + b"{")
        await asyncio.sleep(0.3)
    await asyncio.sleep(0.3)
    assert [r for r in caplog.records if r.name == "uvicorn.error"] == []  # quiet: no traceback, no 500


def test_a_json_log_line_carries_the_traceback_of_a_real_error() -> None:
    """What `vaultgraph serve` writes for uvicorn's error record with VAULTGRAPH_LOG_FORMAT=json: the traceback as
    text, not the repr of an exc_info tuple."""
    try:
        raise OSError(28, "No space left on device")
    except OSError:
        exc_info = sys.exc_info()
    record = logging.LogRecord("uvicorn.error", logging.ERROR, __file__, 1, "Exception in ASGI application\n",
                               None, exc_info)
    line = json.loads(formatter("json").format(record))
    assert line["event"].startswith("Exception in ASGI application")
    assert line["exception"].startswith("Traceback") and "No space left on device" in line["exception"]


def test_a_console_traceback_shows_no_local_variables() -> None:
    """The console log (the default format) prints a plain traceback: a frame's locals (here a key's secret) are
    neither printed nor read through their reprs."""
    reads: list[str] = []

    class Watched:
        def __repr__(self) -> str:
            reads.append("repr")
            return "Watched()"

    def fails(secret: str, watched: Watched) -> None:
        raise RuntimeError("the store failed")

    secret = "vg_live_" + "0123456789abcdef" * 2  # made here: the traceback's source lines do not spell it
    try:
        fails(secret, Watched())
    except RuntimeError:
        exc_info = sys.exc_info()
    record = logging.LogRecord("vaultgraph.test", logging.ERROR, __file__, 1, "write failed", None, exc_info)
    text = formatter("console").format(record)
    assert "Traceback" in text and "the store failed" in text and "in fails" in text
    assert secret not in text and reads == []
