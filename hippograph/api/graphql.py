"""The GraphQL endpoint: HTTP (queries, mutations) and graphql-transport-ws (subscriptions)."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any, cast

from cross_web import AsyncHTTPRequestAdapter, HTTPException
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketState
from strawberry.asgi import ASGIWebSocketAdapter, GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLRequestData
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult

from hippograph.api import graphiql, request_body
from hippograph.api.auth import identify, key_from_headers, key_from_params
from hippograph.memory.errors import DeadlinePassed
from hippograph.memory.writing.outcomes import Deadline, set_deadline
from hippograph.schema import schema
from hippograph.schema.context import Context
from hippograph.schema.errors import ErrorCode
from hippograph.schema.limits import MAX_SUBSCRIPTIONS_PER_CONNECTION

# Seconds a client should wait before retrying while Neo4j is unavailable.
RETRY_AFTER = 5
# How a WebSocket that presented no key at all is closed (the convention for "no credentials"); one whose
# key is refused, or revoked later (``hippograph.api.sockets``), closes with graphql-transport-ws' 4403.
NO_KEY_CLOSE_CODE = 4401


class _Socket(ASGIWebSocketAdapter):
    async def close(self, code: int, reason: str) -> None:
        # A socket ``on_ws_connect`` already closed (4401, no key) keeps that code: strawberry's own 4403
        # after a rejected connection_init finds it closed.
        if self.ws.application_state is not WebSocketState.DISCONNECTED:
            await super().close(code, reason)


class GraphQLEndpoint(GraphQL[Context, None]):
    """Builds each request's ``Context`` — caller, fresh DataLoaders — from ``app.state``; reads bodies
    strictly (``request_body``); answers each HTTP request within ``timeout`` seconds, with the status
    its errors call for."""

    websocket_adapter_class = _Socket

    def __init__(self, timeout: float) -> None:
        super().__init__(
            schema,
            graphql_ide="graphiql",
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            max_subscriptions_per_connection=MAX_SUBSCRIPTIONS_PER_CONNECTION,
        )
        self.timeout = timeout

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL, every file from this server (``hippograph.api.graphiql``), or how to get them."""
        if absent := graphiql.missing():
            return HTMLResponse(
                "<!doctype html><title>GraphiQL</title><p>GraphiQL's files are not installed here "
                f"({len(absent)} missing, e.g. {absent[0]}): run <code>make setup</code> or "
                "<code>hippograph graphiql-assets</code>. The API itself works: POST to /graphql.</p>",
                status_code=503,
            )
        return HTMLResponse(graphiql.page())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        # The request runs as a task of its own, so that the answer can leave at the deadline even
        # while a worker thread it waits on (which cannot be interrupted) is still busy. Its writes
        # see the deadline (``hippograph.memory.writing.outcomes``): none begins once the answer has
        # gone out, and a request that has begun writing is answered with its outcome instead.
        deadline = Deadline(self.timeout)
        context = contextvars.copy_context()
        context.run(set_deadline, deadline)
        running = asyncio.get_running_loop().create_task(
            self.run(Request(scope=scope, receive=receive)), context=context
        )
        try:
            response = await asyncio.wait_for(asyncio.shield(running), self.timeout)
        except HTTPException as exc:
            # A request strawberry cannot take (a body that is not JSON, no query, a wrong method)
            # answers as a GraphQL error with a code, like every other error, not as plain text.
            response = request_error(exc.status_code, exc.reason)
        except TimeoutError:
            response = await self.past_deadline(running, deadline)
        except DeadlinePassed:
            # Its key was still being checked as the deadline came (``get_context``): cut off like any other.
            response = self.cut_off()
        await response(scope, receive, send)

    async def past_deadline(self, running: asyncio.Task[Response], deadline: Deadline) -> Response:
        """The answer once the deadline has passed: cut off if no write began (and none will); else the
        request's own outcome, waited for as long again, and past that OUTCOME_UNKNOWN."""
        if deadline.expire():
            try:
                return await asyncio.wait_for(asyncio.shield(running), self.timeout)
            except TimeoutError:
                running.add_done_callback(_forget)
                return coded_error(
                    ErrorCode.OUTCOME_UNKNOWN,
                    f"the request's write did not finish within {2 * self.timeout:g} s; it may or may not be stored. "
                    "Retrying it is safe: a write already stored answers with its memory instead of storing it again",
                )
        running.add_done_callback(_forget)
        return self.cut_off()

    def cut_off(self) -> JSONResponse:
        return coded_error(ErrorCode.LIMIT_EXCEEDED, f"the request ran longer than {self.timeout:g} s and was cut off")

    def decode_json(self, data: str | bytes) -> object:
        """A GET request's ``variables`` and ``extensions``, as strictly as a body (they are short)."""
        try:
            return request_body.decode_value(data)
        except request_body.BodyError as exc:
            raise HTTPException(exc.status, str(exc)) from None

    async def parse_http_body(self, request: AsyncHTTPRequestAdapter) -> GraphQLRequestData | list[GraphQLRequestData]:
        """A JSON body is read strictly (``request_body``) and in a worker thread: two megabytes of
        JSON keep a reader busy for tens of milliseconds, which the event loop must not wait out."""
        content_type = (request.content_type or "").lower()
        refused = request_body.charset_error(content_type)
        if refused is not None:
            raise HTTPException(415, refused)
        if request.method != "POST" or "application/json" not in content_type:
            return await super().parse_http_body(request)
        body = await request.get_body()
        try:
            return request_body.request_data(await run_in_threadpool(request_body.decode, body))
        except request_body.BodyError as exc:
            raise HTTPException(exc.status, str(exc)) from None

    async def execute_single(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        """The result, with the HTTP status proxies and clients act on: 401 and a challenge for a
        missing or refused key, 503 and when to retry while Neo4j is unavailable."""
        result = await super().execute_single(request, request_adapter, sub_response, context, root_value, request_data)
        codes = {(error.extensions or {}).get("code") for error in result.errors or ()}
        response = sub_response
        if ErrorCode.UNAVAILABLE.value in codes:
            response.status_code = 503
            response.headers["retry-after"] = str(RETRY_AFTER)
        elif ErrorCode.UNAUTHENTICATED.value in codes:
            response.status_code = 401
            response.headers["www-authenticate"] = 'Bearer realm="hippograph"'
        return result

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        state = request.app.state
        context = Context(services=state.services, events=state.events, metrics=state.metrics, request=request)
        if isinstance(request, Request):
            context.caller, context.auth_failure = await identify(
                state.services,
                key_from_headers(request.headers),
                getattr(state, "callers", None),
            )
        return context

    async def on_ws_connect(self, context: Context) -> dict[str, object] | None:
        """Authenticate a WebSocket from connection_init (or the upgrade request's headers); the key
        is checked again twice a second while the socket is open (``hippograph.api.sockets``)."""
        presented = key_from_params(context.connection_params)
        if presented is None and context.request is not None:
            presented = key_from_headers(context.request.headers)
        socket = cast(WebSocket, context.request)  # on_ws_connect is called for a WebSocket only
        if not presented:
            await socket.close(code=NO_KEY_CLOSE_CODE, reason="an API key is required")
            raise ConnectionRejectionError({"code": "UNAUTHENTICATED"})
        context.caller, context.auth_failure = await identify(context.services, presented)
        if context.auth_failure is not None:
            raise ConnectionRejectionError({"code": "UNAVAILABLE"})
        if context.caller is None:
            raise ConnectionRejectionError({"code": "UNAUTHENTICATED"})
        # From now on the socket closes when its key is revoked or its user erased.
        socket.app.state.sockets.watch(context)
        return None


def _forget(task: asyncio.Future[Response]) -> None:
    """A request answered at its deadline finishes unheard; what it raised then is of no one's concern."""
    if not task.cancelled():
        task.exception()


def request_error(status: int, reason: str) -> JSONResponse:
    code = (
        ErrorCode.NOT_FOUND
        if status == 404
        else ErrorCode.LIMIT_EXCEEDED
        if status == 413
        else ErrorCode.BAD_USER_INPUT
        if 400 <= status < 500
        else ErrorCode.INTERNAL_SERVER_ERROR
    )
    return coded_error(code, reason, status)


def coded_error(code: ErrorCode, message: str, status: int = 200) -> JSONResponse:
    return JSONResponse(
        {"data": None, "errors": [{"message": message, "extensions": {"code": code.value}}]}, status_code=status
    )
