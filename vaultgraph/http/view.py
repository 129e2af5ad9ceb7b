"""Strawberry's ASGI view with vaultgraph's admission rules: who is asking (http/auth.py), one WebSocket protocol,
and every refusal answered as JSON with a code (strawberry's own refusals are plain text)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, Protocol, cast

import orjson
import structlog
from cross_web import AsyncHTTPRequestAdapter, HTTPException
from graphql import GraphQLError, OperationType, get_operation_ast, parse
from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLRequestData
from strawberry.schema import BaseSchema
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.execution import PreExecutionError
from strawberry.types.unset import UNSET, UnsetType

from vaultgraph.domain import Principal
from vaultgraph.events.foreground import Foreground
from vaultgraph.explorer import graphiql_page
from vaultgraph.http.auth import NOBODY, Authenticator
from vaultgraph.http.cors import CorsPolicy
from vaultgraph.http.media import (
    GRAPHQL_RESPONSE,
    REQUEST_ERROR_STATUS,
    as_graphql_response,
    wants_graphql_response,
    without_data,
)
from vaultgraph.http.multipart import FORM_STATE, csrf_refusal, is_multipart, upload_adapter
from vaultgraph.http.persisted import PersistedQueries, PersistedQueryError
from vaultgraph.http.refusals import Refusal, code_for_status, refusal_response
from vaultgraph.http.request_body import SHAPE, check_batch, decode_json
from vaultgraph.http.upload_slots import UploadSlots
from vaultgraph.http.ws import BAD_INIT, CloseSocket, MeasuredWebSocket, PayloadTexts, TransportWSHandler
from vaultgraph.services.uploads import UploadLimits

log = structlog.get_logger(__name__)

UPLOAD_SLOT_STATE = "upload_slot"  # request.state key: the tenant whose upload slot this request holds


class PrincipalContext(Protocol):
    """What the view needs of the Context: where connection_init's payload lands, and a way to name the caller."""

    connection_params: dict[str, Any] | None
    request: Any

    def use_principal(self, principal: Principal) -> None: ...


class GuardedGraphQL(GraphQL[Any, None]):
    """Subclasses build their Context in `get_context` with `await self.principal(request)`."""

    graphql_transport_ws_handler_class = TransportWSHandler  # each shared result encoded once (http/ws.py)
    websocket_adapter_class = MeasuredWebSocket  # sizes for the message cap (http/ws.py)

    def encode_json(self, data: object) -> str:
        """Responses and WebSocket payloads through orjson (no spaces): the stdlib encoder was several times
        slower on a page of 100 objects (bench/README.md). Text, not bytes: strawberry sends bytes as a binary
        WebSocket frame, which graphql-transport-ws does not allow. What orjson refuses (an integer beyond 64
        bits, a non-string key) goes to the stdlib encoder as before."""
        try:
            return orjson.dumps(data).decode()
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            return json.dumps(data, separators=(",", ":"))

    def __init__(self, schema: BaseSchema, authenticator: Authenticator, ws_init_timeout: float = 10.0,
                 upload_limits: UploadLimits | None = None, max_message_bytes: int = 0,
                 persisted_queries: int = 0, cors: CorsPolicy | None = None, foreground: Foreground | None = None,
                 **kwargs: Any) -> None:
        # Only graphql-transport-ws: legacy graphql-ws has no connection_init deadline and no close codes.
        # (Constructor arguments: strawberry's __init__ overwrites class attributes of the same names.)
        super().__init__(schema, subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
                         connection_init_wait_timeout=timedelta(seconds=ws_init_timeout),
                         multipart_uploads_enabled=upload_limits is not None, **kwargs)
        self.authenticator = authenticator
        self.payload_texts = PayloadTexts()
        self.persisted = PersistedQueries(persisted_queries)  # APQ's hash -> query (http/persisted.py)
        self.cors = cors
        self.foreground = foreground or Foreground()  # operations in flight, which background lanes give way to
        self.max_message_bytes = max_message_bytes  # a WebSocket message's cap: the HTTP body's (http/ws.py)
        self.upload_slots: UploadSlots | None = None
        if upload_limits is not None:  # multipart read within the upload limits (http/multipart.py)
            self.request_adapter_class = upload_adapter(upload_limits)
            self.upload_slots = UploadSlots(upload_limits.max_concurrent)

    async def principal(self, request: Request | WebSocket) -> Principal:
        """Who sends this HTTP request (raises Refusal); a WebSocket is nobody until its connection_init."""
        if isinstance(request, WebSocket):
            return NOBODY
        if self.graphql_ide and self.should_render_graphql_ide(self.request_adapter_class(request)):
            return NOBODY  # the IDE page is static; the queries it sends carry their own key
        principal = await self.authenticator.http(request)
        if self.upload_slots is not None and request.method == "POST" and is_multipart(request.headers):
            self.upload_slots.take(principal.tenant_id)  # before the body is read; released by run()
            setattr(request.state, UPLOAD_SLOT_STATE, principal.tenant_id)
        return principal

    def is_websocket_origin_allowed(self, request: WebSocket, origin: str) -> bool:
        """A page of another origin may open the socket when CORS lets it call over HTTP (http/cors.py)."""
        return self.cors is not None and self.cors.allows(origin)

    async def on_ws_connect(self, context: PrincipalContext) -> UnsetType | dict[str, object] | None:
        """Authenticate connection_init; a refusal closes the socket with 4403 (a malformed or contradicting payload
        with 4400 and the reason) before any operation runs."""
        try:
            principal = await self.authenticator.connection_init(context.connection_params or {}, context.request)
        except Refusal as exc:
            log.info("websocket refused", code=exc.code, reason=exc.message)
            if exc.status == 400:  # the payload is malformed or contradicts the handshake: say which, as 4400
                raise CloseSocket(BAD_INIT, exc.message) from exc
            raise ConnectionRejectionError({"code": exc.code, "message": exc.message}) from exc
        context.use_principal(principal)
        return cast(UnsetType, UNSET)  # a plain connection_ack

    def operation_refusal(self, connection: HTTPConnection) -> dict[str, Any] | None:
        """One operation more on an open WebSocket takes a token from its caller's bucket, as an HTTP request does;
        the coded error when the bucket is empty (http/ws.py sends it as the operation's `error`)."""
        try:
            self.authenticator.charge(connection, 1)
        except Refusal as exc:
            return {"message": exc.message, "extensions": {"code": exc.code, **exc.details}}
        return None

    def should_render_graphql_ide(self, request: Any) -> bool:
        # A hash-only persisted query by GET has no `query` either; it wants the answer, not the IDE (curl: */*).
        return super().should_render_graphql_ide(request) and request.query_params.get("extensions") is None

    @property
    def graphql_ide_html(self) -> str:
        """GraphiQL from the web build, not strawberry's page (which loads React and GraphiQL from a CDN); it gets
        the explorer's Content-Security-Policy (http/headers.py): every script and style from this origin."""
        return graphiql_page()

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        return HTMLResponse(self.graphql_ide_html)

    def parse_json(self, data: str | bytes) -> Any:
        return decode_json(data)  # a 400 for every body that is not JSON, not only for JSONDecodeError

    async def parse_http_body(self, request: AsyncHTTPRequestAdapter) -> GraphQLRequestData | list[GraphQLRequestData]:
        try:
            parsed = await super().parse_http_body(request)
        except (AttributeError, TypeError, ValueError, IndexError, KeyError) as exc:
            # JSON, but not an object or an array of objects; or a multipart `map` whose path does not fit
            # `operations` (a batch's path without an operation index) (http/request_body.py)
            raise HTTPException(400, SHAPE) from exc
        check_batch(parsed)
        return parsed

    async def execute_operation(self, request: Request, request_adapter: Any, request_data: Any, context: Any,
                                root_value: Any, sub_response: Any) -> Any:
        if isinstance(request_data, list):
            self.authenticator.charge(request, len(request_data) - 1)
        with self.foreground.serving():  # a query or a mutation: HTTP carries no subscription (execute_single)
            result = await super().execute_operation(request, request_adapter, request_data, context, root_value,
                                                     sub_response)
        if wants_graphql_response(request.headers):  # the GraphQL-over-HTTP media type and status rules
            sub_response.media_type = GRAPHQL_RESPONSE
            if isinstance(result, PreExecutionError):  # nothing executed: a request error (one operation only)
                sub_response.status_code = REQUEST_ERROR_STATUS
        return result

    def create_response(self, response_data: Any, sub_response: Response) -> Response:
        if sub_response.media_type != GRAPHQL_RESPONSE:
            return super().create_response(response_data, sub_response)
        if sub_response.status_code == REQUEST_ERROR_STATUS:
            response_data = without_data(response_data)
        response = super().create_response(response_data, sub_response)
        response.headers["content-type"] = GRAPHQL_RESPONSE
        return response

    async def execute_single(self, request: Request, request_adapter: Any, sub_response: Any, context: Any,
                             root_value: Any, request_data: GraphQLRequestData) -> ExecutionResult:
        try:
            request_data = self.persisted.resolve(request_data)
        except PersistedQueryError as exc:  # a request error: nothing ran (a 4xx under graphql-response+json)
            return PreExecutionError(data=None, errors=[exc.error])
        if _is_subscription(request_data):  # strawberry would run it as a query and fail inside the resolver
            raise HTTPException(400, "subscriptions run over WebSocket at /graphql (graphql-transport-ws), not HTTP")
        return await super().execute_single(request, request_adapter, sub_response, context, root_value,
                                            request_data)

    async def run(self, request: Request | WebSocket, context: Any = UNSET, root_value: Any = UNSET) -> Any:
        if isinstance(request, Request) and self.multipart_uploads_enabled:
            refusal = await csrf_refusal(request)  # before the body is parsed or anyone authenticated
            if refusal is not None:
                return refusal.response()
        try:
            return await super().run(request, context, root_value)
        except Refusal as exc:
            return self._negotiated(request, exc.response())
        except HTTPException as exc:
            return self._negotiated(request, self._http_refusal(exc))
        finally:
            form = getattr(request.state, FORM_STATE, None) if isinstance(request, Request) else None
            if form is not None:
                await form.close()  # the uploads' temporary files
            slot = getattr(request.state, UPLOAD_SLOT_STATE, None) if isinstance(request, Request) else None
            if slot is not None and self.upload_slots is not None:
                self.upload_slots.give_back(slot)

    @staticmethod
    def _negotiated(request: Request | WebSocket, response: Response) -> Response:
        return as_graphql_response(response) if wants_graphql_response(request.headers) else response

    def _http_refusal(self, exc: HTTPException) -> Response:
        if exc.reason == "Too many operations":
            batching = self.schema.config.batching_config or {"max_operations": 1}
            limit = batching["max_operations"]
            return refusal_response(400, "LIMIT_EXCEEDED", f"a batch may carry at most {limit} operations",
                                    limit=limit)
        return refusal_response(exc.status_code, code_for_status(exc.status_code), exc.reason)


def _is_subscription(request_data: GraphQLRequestData) -> bool:
    """Whether the operation this HTTP request runs is a subscription (parsed only when the word is there)."""
    query = request_data.query
    if not isinstance(query, str) or "subscription" not in query:
        return False
    try:
        operation = get_operation_ast(parse(query), request_data.operation_name)
    except GraphQLError:
        return False  # strawberry answers the syntax error itself
    return operation is not None and operation.operation is OperationType.SUBSCRIPTION
