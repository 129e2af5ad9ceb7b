"""GET /metrics: the scrape (vaultgraph/metrics.py), behind its own bearer token.

Who may read it: the figures hold no tenant's data, but they hold every tenant's operation names (the clients'
words) and error counts, so on a shared server they are the operator's, not any API key's. With
`VAULTGRAPH_METRICS_TOKEN` set, a scrape must carry `Authorization: Bearer <token>` (Prometheus' `authorization`
scrape option), in any mode; without one, /metrics is open in development mode (loopback only) and refused (403)
otherwise, so a server is never exposed by forgetting a setting.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from vaultgraph.config import Settings
from vaultgraph.http.refusals import refusal_response
from vaultgraph.metrics import CONTENT_TYPE, Metrics


def metrics_endpoint(settings: Settings, metrics: Metrics) -> Callable[[Request], Awaitable[Response]]:
    token = settings.metrics_token

    async def scrape(request: Request) -> Response:
        if token:
            given = request.headers.get("authorization", "")
            scheme, _, secret = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(secret.strip().encode(), token.encode()):
                return refusal_response(401, "UNAUTHENTICATED", "/metrics needs `Authorization: Bearer <token>` "
                                        "with the server's VAULTGRAPH_METRICS_TOKEN.",
                                        {"WWW-Authenticate": 'Bearer realm="metrics"'})
        elif not settings.dev_mode:
            return refusal_response(403, "FORBIDDEN", "/metrics is off limits until the operator sets "
                                    "VAULTGRAPH_METRICS_TOKEN (it is open without one in development mode only).")
        return Response(metrics.text(), media_type=CONTENT_TYPE)

    return scrape
