"""GraphiQL works offline: its page at GET /graphql and every script, style and font it loads come from this server,
bundled by the web build, with no request to another host (issue 22.4)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest

from tests.support.server import RunningServer
from vaultgraph.explorer import WEB_DIST

pytestmark = [pytest.mark.api]

CDNS = ("unpkg.com", "cdn.jsdelivr.net", "esm.sh", "cdnjs.cloudflare.com", "fonts.googleapis.com")


class References(HTMLParser):
    """Every URL the page would fetch: script src, link href, img src."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name == "src" or (tag == "link" and name == "href")):
                self.urls.append(value)


async def test_graphiql_and_its_assets_come_from_this_server_only(server: RunningServer) -> None:
    assert (WEB_DIST / "graphiql.html").is_file(), "GraphiQL is part of the web build: run `make web`"
    page = await server.client.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200 and "<title>vaultgraph GraphiQL</title>" in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "http" not in policy  # no other host may serve a script or a style
    parser = References()
    parser.feed(page.text)
    fetched = [url for url in parser.urls if not url.startswith("data:")]
    assert any(url.endswith(".js") for url in fetched) and any(url.endswith(".css") for url in fetched), fetched
    for url in fetched:
        absolute = urljoin(server.url + "/graphql", url)
        assert urlsplit(absolute).netloc == urlsplit(server.url).netloc, f"{url} is on another host"
        asset = await server.client.get(absolute)
        assert asset.status_code == 200, (url, asset.status_code)
        if url.endswith((".js", ".css")):
            for cdn in CDNS:
                assert cdn not in asset.text, f"{url} loads from {cdn}"
            # A stylesheet's url(...) are inline fonts or files here, never another host.
            assert not re.search(r"url\((['\"]?)https?://", asset.text), url
