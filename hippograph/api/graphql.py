"""The GraphQL endpoint: HTTP (queries, mutations) and graphql-transport-ws (subscriptions)."""

from __future__ import annotations

from typing import Any

from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL

from hippograph.api.auth import identify, key_from_headers, key_from_params
from hippograph.schema import schema
from hippograph.schema.context import Context
from hippograph.schema.errors import ErrorCode
from hippograph.schema.limits import MAX_SUBSCRIPTIONS_PER_CONNECTION


class GraphQLEndpoint(GraphQL[Context, None]):
    """Builds each request's ``Context`` — caller, fresh DataLoaders — from ``app.state``."""

    def __init__(self) -> None:
        super().__init__(
            schema,
            graphql_ide="graphiql",
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            max_subscriptions_per_connection=MAX_SUBSCRIPTIONS_PER_CONNECTION,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except HTTPException as exc:
            # A request strawberry cannot take (a body that is not JSON, no query, a wrong method)
            # answers as a GraphQL error with a code, like every other error, not as plain text.
            response = request_error(exc.status_code, exc.reason)
        await response(scope, receive, send)

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        state = request.app.state
        context = Context(services=state.services, events=state.events, metrics=state.metrics, request=request)
        if isinstance(request, Request):
            context.caller, context.auth_failure = await identify(
                state.services, key_from_headers(request.headers), getattr(state, "callers", None),
            )
        return context

    async def on_ws_connect(self, context: Context) -> dict[str, object] | None:
        """Authenticate a WebSocket once, from connection_init (or the upgrade request's headers)."""
        presented = key_from_params(context.connection_params)
        if presented is None and context.request is not None:
            presented = key_from_headers(context.request.headers)
        context.caller, context.auth_failure = await identify(context.services, presented)
        if context.auth_failure is not None:
            raise ConnectionRejectionError({"code": "UNAVAILABLE"})
        if context.caller is None:
            raise ConnectionRejectionError({"code": "UNAUTHENTICATED"})
        return None


def request_error(status: int, reason: str) -> JSONResponse:
    code = ErrorCode.NOT_FOUND if status == 404 else ErrorCode.BAD_USER_INPUT if 400 <= status < 500 \
        else ErrorCode.INTERNAL_SERVER_ERROR
    return JSONResponse({"data": None, "errors": [{"message": reason, "extensions": {"code": code.value}}]},
                        status_code=status)
