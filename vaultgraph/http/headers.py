"""Response headers that keep browsers from doing what no page of ours needs: framing, sniffing, referrers, and
(on the HTML pages) scripts from anywhere but this server.

Two Content-Security-Policies, one per page: the explorer's ("/") allows nothing inline and nothing from another
origin; GraphiQL (strawberry's page at GET /graphql) loads React and GraphiQL from unpkg.com (pinned versions with
SRI hashes) and boots them from one inline script, which its policy allows by that script's SHA-256 only.
"""

from __future__ import annotations

import base64
import hashlib
import re

from starlette.datastructures import MutableHeaders
from starlette.types import Message

COMMON = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
# Inline styles stay allowed: the explorer's graph library and its panes set `style` attributes as they draw, and a
# style cannot run code. The ForceAtlas2 layout runs in a worker built from a blob: URL (graphology's).
EXPLORER_CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
                "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
CDN = "https://unpkg.com"
INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def graphiql_csp(html: str) -> str:
    """GraphiQL's policy: its inline boot script by hash, its pinned CDN files, and the API on this origin (the
    queries it sends and its subscriptions' WebSocket: `'self'` covers ws: and wss: to this host)."""
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"
                      for body in INLINE_SCRIPT.findall(html))
    return (f"default-src 'none'; script-src {hashes} {CDN}; style-src 'unsafe-inline' {CDN}; "
            f"img-src 'self' data: {CDN}; font-src data: {CDN}; connect-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def with_security_headers(message: Message) -> Message:
    """An `http.response.start` with the common headers, and the explorer's CSP on an HTML answer that brings no
    policy of its own (GraphiQL brings its own); RequestIds applies it to every HTTP response."""
    headers = MutableHeaders(scope=message)
    for name, value in COMMON.items():
        headers.setdefault(name, value)
    if headers.get("content-type", "").startswith("text/html"):
        headers.setdefault("Content-Security-Policy", EXPLORER_CSP)
    return message
