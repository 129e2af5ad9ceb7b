"""Response headers that keep browsers from doing what no page of ours needs: framing, sniffing, referrers, and
(on the HTML pages) scripts from anywhere but this server.

One Content-Security-Policy for every page: the explorer ("/") and GraphiQL (GET /graphql, bundled by the same web
build, explorer.py) load every script, style and font from this origin and run nothing inline.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import Message

COMMON = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
# Inline styles stay allowed: the explorer's graph library and its panes set `style` attributes as they draw, and a
# style cannot run code (GraphiQL's editors set them too). The ForceAtlas2 layout runs in a worker built from a blob:
# URL (graphology's). `connect-src 'self'` covers ws: and wss: to this host (GraphiQL's subscriptions).
EXPLORER_CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
                "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def with_security_headers(message: Message) -> Message:
    """An `http.response.start` with the common headers, and the explorer's CSP on an HTML answer that brings no
    policy of its own; RequestIds applies it to every HTTP response."""
    headers = MutableHeaders(scope=message)
    for name, value in COMMON.items():
        headers.setdefault(name, value)
    if headers.get("content-type", "").startswith("text/html"):
        headers.setdefault("Content-Security-Policy", EXPLORER_CSP)
    return message
