"""``/mcp``: the MCP server over streamable HTTP, behind the same API keys as ``/graphql``.

A request without a good key is refused here, before the MCP session sees it: 401
with a Bearer challenge, or 503 while Neo4j cannot check the key. The key's owner
goes along in the request's state, where the tools find it (``hippograph.mcp.tools``):
one key lookup a request.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from hippograph.api.auth import identify, key_from_headers
from hippograph.api.graphql import RETRY_AFTER, coded_error
from hippograph.mcp.server import StreamableHttp
from hippograph.memory.keys import Caller
from hippograph.memory.services import Services
from hippograph.operations.errors import ErrorCode
from hippograph.operations.event_bus import EventBus
from hippograph.operations.metrics import MetricsSink


def streamable_http(services: Services, events: EventBus, metrics: MetricsSink) -> StreamableHttp:
    """The MCP server of ``/mcp``, publishing to the app's event bus (a GraphQL subscriber sees an MCP
    write) and measuring into the app's metrics."""

    async def caller_of(request: Request | None) -> Caller | None:
        # The endpoint checked the key on the way in and left its owner with the request.
        return getattr(request.state, "caller", None) if request is not None else None

    return StreamableHttp(services, caller_of, events, metrics)


class McpEndpoint:
    """An ASGI app (not a request handler): the MCP transport writes its own responses, streams included."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        state = request.app.state
        caller, failure = await identify(
            state.services, key_from_headers(request.headers), getattr(state, "callers", None)
        )
        if failure is not None:
            response = coded_error(ErrorCode.UNAVAILABLE, "the store is unavailable; retry shortly", 503)
            response.headers["retry-after"] = str(RETRY_AFTER)
        elif caller is None:
            response = coded_error(
                ErrorCode.UNAUTHENTICATED, "an API key is required: Authorization: Bearer <key>", 401
            )
            response.headers["www-authenticate"] = 'Bearer realm="hippograph"'
        else:
            request.state.caller = caller
            await state.mcp(scope, receive, send)
            return
        await response(scope, receive, send)
