"""Serving the explorer at "/": the built files when web/dist has them, else a page saying how to build it."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.support.server import RunningServer, serve_on_loopback
from vaultgraph.explorer import Explorer


async def get(app: Explorer, path: str) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://explorer") as client:
        return await client.get(path)


async def test_without_a_build_the_root_says_how_to_build_it(tmp_path: Path) -> None:
    app = Explorer(tmp_path / "dist")
    root = await get(app, "/")
    assert root.status_code == 200
    assert "make run" in root.text and "/graphql" in root.text
    assert (await get(app, "/assets/index.js")).status_code == 404


async def test_a_build_that_appears_later_is_served_without_a_restart(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    app = Explorer(dist)
    assert "make run" in (await get(app, "/")).text
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>vaultgraph explorer</title>")
    (dist / "assets" / "app.js").write_text("console.log('hi')")
    root = await get(app, "/")
    assert root.status_code == 200 and "vaultgraph explorer" in root.text
    script = await get(app, "/assets/app.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert (await get(app, "/missing.js")).status_code == 404


async def test_fingerprinted_assets_are_immutable_and_gzipped_the_page_revalidates(tmp_path: Path) -> None:
    """Through real HTTP (uvicorn on loopback): what a browser and a CDN need to cache the explorer right."""
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text('<!doctype html><script src="/assets/index-3f9a1c.js"></script>' + " " * 2000)
    (dist / "assets" / "index-3f9a1c.js").write_text("console.log('explorer');\n" * 200)
    async with serve_on_loopback(Explorer(dist)) as url, httpx.AsyncClient(base_url=url) as client:
        script = await client.get("/assets/index-3f9a1c.js", headers={"accept-encoding": "gzip"})
        assert script.status_code == 200
        assert script.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert script.headers["content-encoding"] == "gzip"
        assert script.text == "console.log('explorer');\n" * 200  # httpx undid the gzip
        page = await client.get("/", headers={"accept-encoding": "gzip"})
        assert page.headers["cache-control"] == "no-cache"
        assert page.headers["content-encoding"] == "gzip"
        again = await client.get("/", headers={"if-none-match": page.headers["etag"]})
        assert again.status_code == 304 and again.headers["cache-control"] == "no-cache"
        # A name under assets/ that is not there is no promise for a year: it may be built next.
        missing = await client.get("/assets/index-000000.js")
        assert missing.status_code == 404 and missing.headers["cache-control"] == "no-cache"
        plain = await client.get("/assets/index-3f9a1c.js", headers={"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers


async def test_the_server_answers_the_explorer_page_with_no_cache(server: RunningServer) -> None:
    """The app as served: "/" (built or not) is revalidated, so a new build is never hidden behind a cache."""
    page = await server.client.get("/")
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-cache"
