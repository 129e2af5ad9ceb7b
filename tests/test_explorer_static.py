"""Serving the explorer at "/": the built files when web/dist has them, else a page saying how to build it."""

from __future__ import annotations

from pathlib import Path

import httpx

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
