"""What an upload may cost the server, over real HTTP on the real server: a body cap of 200 MiB by default, a
declared `Content-Length` above it refused before any byte of the body is read (and before authentication), a
chunked body cut off at the cap while it streams, and at most N uploads of one tenant in flight at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from starlette.routing import Route

from tests.support.raw_http import RawResponse, chunk, connect, head, parse_response, upload_headers, upload_parts
from tests.support.server import RunningServer, run_server
from vaultgraph.config import Settings
from vaultgraph.http.upload_slots import UploadSlots
from vaultgraph.http.view import GuardedGraphQL

pytestmark = [pytest.mark.security, pytest.mark.api]

MIB = 1024 * 1024
SMALL_CAP = 64 * 1024


def _limit_error(response: RawResponse, status: int, limit: int) -> dict[str, Any]:
    assert response.status == status, response.body
    body = response.json()
    assert body["data"] is None
    [error] = body["errors"]
    assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": limit}, body
    return dict(error)


def _slots(server: RunningServer) -> UploadSlots:
    route = next(r for r in server.app.routes if isinstance(r, Route) and r.path == "/graphql")
    assert isinstance(route.endpoint, GuardedGraphQL)
    assert route.endpoint.upload_slots is not None
    return route.endpoint.upload_slots


async def _document_count(server: RunningServer, headers: dict[str, str] | None = None) -> int:
    count: int = (await server.data("{ documents { totalCount } }", headers=headers))["documents"]["totalCount"]
    return count


async def test_a_declared_body_over_the_default_cap_is_refused_before_any_byte_is_read(server: RunningServer) -> None:
    cap = server.app.state.settings.upload_max_body_bytes
    assert cap == 200 * MIB == Settings.model_fields["upload_max_body_bytes"].default
    for declared, extra in [
        (cap + 1, {}),
        (10 * 1024 * MIB, {"Expect": "100-continue"}),  # curl's way: the body only after `100 Continue`
        (cap + 1, {"Authorization": "Bearer vg_not-a-key"}),  # refused before anyone is authenticated
    ]:
        async with connect(server.url) as raw:
            await raw.send(head("POST", "/graphql", upload_headers(extra, length=declared)))
            raw_answer = await asyncio.wait_for(raw.received(), 15)  # not one byte of the body was sent
        assert not raw_answer.startswith(b"HTTP/1.1 100"), raw_answer[:200]
        response = parse_response(raw_answer)
        assert response.headers["connection"] == "close"
        assert "the request body is larger than" in _limit_error(response, 413, cap)["message"]
    assert await _document_count(server) == 0


@pytest.fixture
async def capped(settings: Settings, tenant: str) -> AsyncIterator[RunningServer]:
    """Upload bodies capped at 64 KiB (a file may be larger: the body cap is what cuts), one upload at a time."""
    update = {"dev_tenant": tenant, "port": 0, "enrichment_workers": False, "upload_max_body_bytes": SMALL_CAP,
              "upload_max_concurrent": 1}
    async with run_server(settings.model_copy(update=update)) as running:
        yield running


async def test_a_chunked_upload_is_cut_off_at_the_cap_while_it_streams(capped: RunningServer) -> None:
    """A client offering 256 MiB in chunks gets its 413 after the cap and a bounded drain, not after 256 MiB."""
    before, _ = upload_parts("flood.md", 256 * MIB)
    piece = b"x" * (64 * 1024)
    sent = 0
    async with connect(capped.url) as raw:
        answer = asyncio.create_task(raw.received())
        await raw.send(head("POST", "/graphql", upload_headers()) + chunk(before))
        with contextlib.suppress(ConnectionError):
            while not answer.done() and sent < 256 * MIB:
                await raw.send(chunk(piece))
                sent += len(piece)
                await asyncio.sleep(0)
        response_bytes = await asyncio.wait_for(answer, 15)
    _limit_error(parse_response(response_bytes), 413, SMALL_CAP)
    print(f"chunked upload: the 413 came after {sent / MIB:.1f} MiB sent (cap {SMALL_CAP // 1024} KiB)")
    # The cap, the 1 MiB drained so the client can read its answer, and what the sockets buffer on loopback.
    assert sent < 32 * MIB
    assert await _document_count(capped) == 0
    assert _slots(capped).in_flight(capped.app.state.settings.dev_tenant) == 0


async def test_one_tenant_has_at_most_n_uploads_in_flight(capped: RunningServer) -> None:
    tenant = capped.app.state.settings.dev_tenant
    slots = _slots(capped)
    content = b"# Slow\n" + b"s" * 20_000
    before, after = upload_parts("slow.md", len(content))
    whole = before + content + after

    async def upload(headers: dict[str, str] | None = None) -> Any:
        return await capped.client.post("/graphql", content=whole, headers={
            "Content-Type": upload_headers()["Content-Type"], "Apollo-Require-Preflight": "true", **(headers or {})})

    async with connect(capped.url) as slow:
        # The first upload sends its headers and half its body, and waits: it holds the tenant's one slot.
        await slow.send(head("POST", "/graphql", upload_headers(length=len(whole))) + whole[:len(whole) // 2])
        for _ in range(200):
            if slots.in_flight(tenant):
                break
            await asyncio.sleep(0.02)
        assert slots.in_flight(tenant) == 1

        second = await upload()
        assert second.status_code == 429 and second.headers["retry-after"] == "1"
        error = second.json()["errors"][0]
        assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": 1}
        assert "at most 1 uploads at once per tenant" in error["message"]
        other_tenant = {"X-Vaultgraph-Tenant": f"{tenant}o"}
        other = await upload(other_tenant)  # another tenant's uploads do not wait for these slots
        assert other.status_code == 200 and "errors" not in other.json(), other.text

        await slow.send(whole[len(whole) // 2:])
        first = await slow.response()
    assert first.status == 200 and "errors" not in first.json(), first.body
    assert slots.in_flight(tenant) == 0
    again = await upload()
    assert again.status_code == 200, again.text
    assert [f["status"] for f in again.json()["data"]["uploadDocuments"]["files"]] == ["UNCHANGED"]

    # An upload whose client goes away half way gives its slot back too.
    async with connect(capped.url) as gone:
        await gone.send(head("POST", "/graphql", upload_headers(length=len(whole))) + whole[:1000])
        for _ in range(200):
            if slots.in_flight(tenant):
                break
            await asyncio.sleep(0.02)
        assert slots.in_flight(tenant) == 1
    for _ in range(200):
        if not slots.in_flight(tenant):
            break
        await asyncio.sleep(0.02)
    assert slots.in_flight(tenant) == 0
    assert (await upload()).status_code == 200
    assert await _document_count(capped) == 1
