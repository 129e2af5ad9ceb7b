"""The web explorer's static files (`web/dist`, built by `make run`), served at "/" by the same process, and the
GraphiQL page of the same build (web/graphiql.html: React and GraphiQL bundled, no CDN), which the GraphQL view
answers at GET /graphql; its assets come from "/assets" like the explorer's.

The build may appear after the server starts (or vanish on `make clean`), so the folder is looked at per request:
while it has no `index.html` (no `graphiql.html`), "/" ("GET /graphql") answers a short page that says how to build it.
"""

from __future__ import annotations

from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

WEB_DIST = Path(__file__).resolve().parents[1] / "web" / "dist"

NOT_BUILT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>vaultgraph</title>
<style>body{{font:15px/1.5 system-ui,sans-serif;max-width:560px;margin:12vh auto;padding:0 20px;color:#1f2430}}
code{{background:#f1f2f5;padding:1px 5px;border-radius:4px}}</style></head>
<body><h1>vaultgraph</h1>
<p>{what} has not been built. Run <code>make run</code> (it builds <code>web/</code> with npm, then serves),
or build it alone with <code>make web</code>, and reload this page.</p>
<p>{meanwhile}</p>
</body></html>
"""
NOT_BUILT = NOT_BUILT_PAGE.format(
    what="The web explorer", meanwhile='The GraphQL API is up meanwhile: <a href="/graphql">/graphql</a> (GraphiQL in '
    "a browser).")
GRAPHIQL_NOT_BUILT = NOT_BUILT_PAGE.format(
    what="GraphiQL (part of the web build)", meanwhile="The GraphQL API answers POST /graphql meanwhile.")


def graphiql_page(dist: Path = WEB_DIST) -> str:
    """GraphiQL's HTML from the web build, else the page that says how to build it."""
    page = dist / "graphiql.html"
    return page.read_text(encoding="utf-8") if page.is_file() else GRAPHIQL_NOT_BUILT


class Explorer:
    """ASGI app for "/": the built explorer when there is one, else the how-to-build page."""

    def __init__(self, dist: Path = WEB_DIST) -> None:
        self.dist = dist
        self._files: StaticFiles | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if not (self.dist / "index.html").is_file():
            self._files = None
            response = HTMLResponse(NOT_BUILT, status_code=200 if scope["path"] == "/" else 404)
            await response(scope, receive, send)
            return
        if self._files is None:
            self._files = StaticFiles(directory=self.dist, html=True)
        try:
            await self._files(scope, receive, send)
        except HTTPException as exc:  # answered here, so the app works mounted or alone
            await PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)(scope, receive, send)
