"""CORS: which other origins' pages may call the API from a browser (Starlette's CORSMiddleware, configured here).

Development mode allows pages on `localhost`, `127.0.0.1` and `[::1]` over http or https on any port (a Vite dev
server, Apollo Sandbox run locally, MCP Inspector), plus `VAULTGRAPH_CORS_ORIGINS`; with API keys required only
`VAULTGRAPH_CORS_ORIGINS` (none when unset). Credentials and the headers a client authenticates with (Authorization,
X-Vaultgraph-Tenant/-Agent/-Teams, MCP's session headers) are allowed; a foreign origin's preflight answers 400 and
its responses carry no Access-Control-Allow-Origin, so the browser keeps them from the page.

The one home of the rule: the Host check (http/hosts.py) lets these origins through in development mode, and the
GraphQL view lets their pages open a WebSocket (strawberry refuses cross-origin handshakes otherwise).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware

CORS_SETTING = "VAULTGRAPH_CORS_ORIGINS"
LOOPBACK_ORIGIN = r"https?://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?"
ALLOWED_HEADERS = ("authorization", "content-type", "accept", "x-vaultgraph-tenant", "x-vaultgraph-agent",
                   "x-vaultgraph-teams", "x-request-id", "mcp-session-id", "mcp-protocol-version", "last-event-id")
EXPOSED_HEADERS = ("x-request-id", "retry-after", "www-authenticate", "mcp-session-id")
ORIGIN = re.compile(r"https?://[^/\s?#]+")


def normalize_origin(value: str) -> str:
    """`https://App.example.com/` → `https://app.example.com`: how a browser spells an Origin header."""
    return value.strip().rstrip("/").lower()


def check_origins(values: Sequence[str]) -> list[str]:
    """The configured origins, each `scheme://host[:port]`; ValueError naming the first that is not one."""
    origins = [normalize_origin(value) for value in values]
    for origin in origins:
        if not ORIGIN.fullmatch(origin):
            raise ValueError(f"{origin!r} is not an origin: write scheme://host[:port], as a browser sends it "
                             "(no path, no wildcard)")
    return origins


class CorsPolicy:
    """The origins other than the server's own whose pages may call it."""

    def __init__(self, origins: Sequence[str] | None, dev_mode: bool) -> None:
        self.origins = frozenset(check_origins(origins or ()))
        self.regex = LOOPBACK_ORIGIN if dev_mode else None

    def allows(self, origin: str) -> bool:
        origin = normalize_origin(origin)
        return origin in self.origins or (self.regex is not None and re.fullmatch(self.regex, origin) is not None)

    def middleware(self) -> Middleware:
        return Middleware(CORSMiddleware, allow_origins=sorted(self.origins), allow_origin_regex=self.regex,
                          allow_methods=("GET", "POST", "DELETE", "OPTIONS"), allow_headers=ALLOWED_HEADERS,
                          allow_credentials=True, expose_headers=EXPOSED_HEADERS, max_age=600)
