"""The Host check on every route (HTTP and WebSocket): the defence against DNS rebinding.

A page on `evil.example` whose name the attacker re-points at 127.0.0.1 reaches a loopback server as same-origin,
with `Host: evil.example:8000`. The development mode trusts whoever connects, so it answers only Hosts that name
this machine (`localhost`, `127.0.0.1`, `[::1]` and the other loopback addresses, with any port) or one listed in
`VAULTGRAPH_ALLOWED_HOSTS`; a browser page's `Origin`, when sent, must name one of them too (a cross-site form or
WebSocket carries its own origin). With API keys required, the keys protect every route: the Host is checked only
against `VAULTGRAPH_ALLOWED_HOSTS` when it is set, and `Origin` is left to CORS (a key is never ambient).

The one home of the rule: /mcp (whose SDK has a check of its own, answering plain text) relies on it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from vaultgraph.http.auth import is_loopback
from vaultgraph.http.cors import CORS_SETTING, CorsPolicy
from vaultgraph.http.refusals import refusal_response
from vaultgraph.lru import Lru

HOSTS_SETTING = "VAULTGRAPH_ALLOWED_HOSTS"
RECENT_HOSTS = 256  # Host values whose answer is remembered (a client may send any, so the memory is bounded)


def split_host(value: str) -> tuple[str, str | None]:
    """`name[:port]` → (lower-cased name, port or None); `[::1]:8000` → ("[::1]", "8000")."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value.partition("]")
        port = rest[1:] if rest.startswith(":") else None
        return name + "]", port or None
    name, sep, port = value.rpartition(":")
    if not sep or ":" in name:  # no port, or a bare IPv6 address
        return value, None
    return name, port or None


class HostPolicy:
    """Which Host (and Origin) values a server answers. `allowed` entries are `name` (any port) or `name:port`."""

    def __init__(self, allowed: Sequence[str] | None, dev_mode: bool, cors: CorsPolicy | None = None) -> None:
        self.allowed = [split_host(entry) for entry in allowed or ()]
        self.cors = cors  # its origins' pages are welcome too (http/cors.py)
        self.enforced = dev_mode or bool(self.allowed)
        self.loopback = dev_mode  # loopback names are always fine in development mode
        self.check_origin = dev_mode
        self._decided: Lru[str, bool] = Lru(RECENT_HOSTS)

    def host_allowed(self, host: str | None) -> bool:
        if not self.enforced:
            return True
        if not host:
            return False
        known = self._decided.get(host)  # a client sends the same Host every time: parse it once
        if known is None:
            known = self._host_allowed(host)
            self._decided.put(host, known)
        return known

    def _host_allowed(self, host: str) -> bool:
        name, port = split_host(host)
        if self.loopback and is_loopback(name):
            return True
        return any(name == allowed and (allowed_port is None or allowed_port == port)
                   for allowed, allowed_port in self.allowed)

    def origin_allowed(self, origin: str | None) -> bool:
        if not self.check_origin or origin is None:
            return True
        if self.cors is not None and self.cors.allows(origin):
            return True
        parts = urlsplit(origin.strip())
        return parts.scheme in ("http", "https") and bool(parts.netloc) and self.host_allowed(parts.netloc)

    def refusal(self, headers: Headers) -> tuple[int, str, str] | None:
        """(status, message, header) when the request is refused, else None."""
        host = headers.get("host")
        if not self.host_allowed(host):
            return (421, f"this server does not answer for the host {host!r}: development mode answers only "
                    f"localhost, 127.0.0.1 and [::1] (any port) and the hosts in {HOSTS_SETTING}"
                    if self.loopback else
                    f"this server does not answer for the host {host!r}; it answers only the hosts in "
                    f"{HOSTS_SETTING}", "Host")
        origin = headers.get("origin")
        if not self.origin_allowed(origin):
            return (403, f"requests from pages on {origin!r} are refused: development mode answers pages of "
                    f"localhost, 127.0.0.1, [::1], the hosts in {HOSTS_SETTING} and the origins in {CORS_SETTING} only",
                    "Origin")
        return None


class HostCheck:
    """ASGI middleware: a refused Host answers 421 (a refused Origin 403) with a coded JSON body, on HTTP; a
    WebSocket handshake gets the same answer as an HTTP response (or, where the server cannot send one, a close)."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not self.policy.enforced:
            await self.app(scope, receive, send)
            return
        refused = self.policy.refusal(Headers(scope=scope))
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, message, header = refused
        response = refusal_response(status, "FORBIDDEN", message, header=header)
        if scope["type"] == "http":
            await response(scope, receive, send)
            return
        await receive()  # websocket.connect
        if "websocket.http.response" in scope.get("extensions", {}):
            await send({"type": "websocket.http.response.start", "status": status, "headers": response.raw_headers})
            await send({"type": "websocket.http.response.body", "body": response.body})
        else:
            await send({"type": "websocket.close", "code": 4403, "reason": header})
