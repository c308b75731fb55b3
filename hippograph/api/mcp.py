"""``/mcp``: the MCP server over streamable HTTP, behind the same API keys as ``/graphql``.

A request without a good key is refused here, before the MCP session sees it: 401
with a Bearer challenge, or 503 while Neo4j cannot check the key. The tools then
find the caller again from the same headers (``hippograph.mcp.tools``), through the
app's key cache.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from hippograph.api.auth import identify, key_from_headers
from hippograph.api.graphql import RETRY_AFTER, coded_error
from hippograph.mcp.server import StreamableHttp
from hippograph.memory.keys import Caller, CallerCache
from hippograph.memory.services import Services
from hippograph.schema.errors import ErrorCode


def streamable_http(services: Services, cache: CallerCache | None) -> StreamableHttp:
    async def caller_of(headers: Mapping[str, str] | None) -> Caller | None:
        caller, _ = await identify(services, key_from_headers(headers or {}), cache)
        return caller

    return StreamableHttp(services, caller_of)


class McpEndpoint:
    """An ASGI app (not a request handler): the MCP transport writes its own responses, streams included."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        state = request.app.state
        caller, failure = await identify(state.services, key_from_headers(request.headers), getattr(state, "callers", None))
        if failure is not None:
            response = coded_error(ErrorCode.UNAVAILABLE, "the store is unavailable; retry shortly", 503)
            response.headers["retry-after"] = str(RETRY_AFTER)
        elif caller is None:
            response = coded_error(ErrorCode.UNAUTHENTICATED, "an API key is required: Authorization: Bearer <key>", 401)
            response.headers["www-authenticate"] = 'Bearer realm="hippograph"'
        else:
            await state.mcp(scope, receive, send)
            return
        await response(scope, receive, send)
