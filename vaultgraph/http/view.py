"""Strawberry's ASGI view with vaultgraph's admission rules: who is asking (http/auth.py), one WebSocket protocol,
and every refusal answered as JSON with a code (strawberry's own refusals are plain text)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Protocol, cast

import structlog
from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.schema import BaseSchema
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types.unset import UNSET, UnsetType

from vaultgraph.domain import Principal
from vaultgraph.http.auth import NOBODY, Authenticator
from vaultgraph.http.refusals import Refusal, code_for_status, refusal_response

log = structlog.get_logger(__name__)


class PrincipalContext(Protocol):
    """What the view needs of the Context: where connection_init's payload lands, and a way to name the caller."""

    connection_params: dict[str, Any] | None
    request: Any

    def use_principal(self, principal: Principal) -> None: ...


class GuardedGraphQL(GraphQL[Any, None]):
    """Subclasses build their Context in `get_context` with `await self.principal(request)`."""

    def __init__(self, schema: BaseSchema, authenticator: Authenticator, ws_init_timeout: float = 10.0,
                 **kwargs: Any) -> None:
        # Only graphql-transport-ws: legacy graphql-ws has no connection_init deadline and no close codes.
        # (Constructor arguments: strawberry's __init__ overwrites class attributes of the same names.)
        super().__init__(schema, subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
                         connection_init_wait_timeout=timedelta(seconds=ws_init_timeout), **kwargs)
        self.authenticator = authenticator

    async def principal(self, request: Request | WebSocket) -> Principal:
        """Who sends this HTTP request (raises Refusal); a WebSocket is nobody until its connection_init."""
        if isinstance(request, WebSocket):
            return NOBODY
        if self.graphql_ide and self.should_render_graphql_ide(self.request_adapter_class(request)):
            return NOBODY  # the IDE page is static; the queries it sends carry their own key
        return await self.authenticator.http(request)

    async def on_ws_connect(self, context: PrincipalContext) -> UnsetType | dict[str, object] | None:
        """Authenticate connection_init; a refusal closes the socket with 4403 before any operation runs."""
        try:
            principal = await self.authenticator.connection_init(context.connection_params or {}, context.request)
        except Refusal as exc:
            log.info("websocket refused", code=exc.code, reason=exc.message)
            raise ConnectionRejectionError({"code": exc.code, "message": exc.message}) from exc
        context.use_principal(principal)
        return cast(UnsetType, UNSET)  # a plain connection_ack

    async def execute_operation(self, request: Request, request_adapter: Any, request_data: Any, context: Any,
                                root_value: Any, sub_response: Any) -> Any:
        if isinstance(request_data, list):
            self.authenticator.charge(request, len(request_data) - 1)
        return await super().execute_operation(request, request_adapter, request_data, context, root_value,
                                               sub_response)

    async def run(self, request: Request | WebSocket, context: Any = UNSET, root_value: Any = UNSET) -> Any:
        try:
            return await super().run(request, context, root_value)
        except Refusal as exc:
            return exc.response()
        except HTTPException as exc:
            return self._http_refusal(exc)

    def _http_refusal(self, exc: HTTPException) -> Response:
        if exc.reason == "Too many operations":
            batching = self.schema.config.batching_config or {"max_operations": 1}
            limit = batching["max_operations"]
            return refusal_response(400, "LIMIT_EXCEEDED", f"a batch may carry at most {limit} operations",
                                    limit=limit)
        return refusal_response(exc.status_code, code_for_status(exc.status_code), exc.reason)
