"""The web explorer's static files (`web/dist`, built by `make run`), served at "/" by the same process, and the
GraphiQL page of the same build (web/graphiql.html: React and GraphiQL bundled, no CDN), which the GraphQL view
answers at GET /graphql; its assets come from "/assets" like the explorer's.

The build may appear after the server starts (or vanish on `make clean`), so the folder is looked at per request:
while it has no `index.html` (no `graphiql.html`), "/" ("GET /graphql") answers a short page that says how to build it.

Served as a web app should be: Vite names every file under `assets/` by a hash of its content, so those are cached
for a year as immutable; everything else (index.html above all, which names the current assets) is `no-cache`,
revalidated by its ETag on each load, so a new build shows at the next reload. Answers of 1 KB or more are gzipped
for a client that accepts it.
"""

from __future__ import annotations

from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

WEB_DIST = Path(__file__).resolve().parents[1] / "web" / "dist"
FINGERPRINTED = "/assets/"  # Vite's output folder: every name there carries a hash of the file's content
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
GZIP_MINIMUM_BYTES = 1024  # below this a gzip frame saves less than it costs


def cache_control(path: str, status: int) -> str:
    """A year for a fingerprinted file found; revalidation for the rest (a 404 may be a file not built yet)."""
    return IMMUTABLE if path.startswith(FINGERPRINTED) and status in (200, 304) else REVALIDATE

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
        self._gzipped = GZipMiddleware(self._serve, minimum_size=GZIP_MINIMUM_BYTES)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._gzipped(scope, receive, send)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_cached(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)["Cache-Control"] = cache_control(scope["path"], message["status"])
            await send(message)

        if not (self.dist / "index.html").is_file():
            self._files = None
            await HTMLResponse(NOT_BUILT, status_code=200 if scope["path"] == "/" else 404)(scope, receive, send_cached)
            return
        if self._files is None:
            self._files = StaticFiles(directory=self.dist, html=True)
        try:
            await self._files(scope, receive, send_cached)
        except HTTPException as exc:  # answered here, so the app works mounted or alone
            refusal = PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)
            await refusal(scope, receive, send_cached)
