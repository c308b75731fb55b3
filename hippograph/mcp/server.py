"""The MCP server over its two transports: stdio for an agent that starts ``hippograph mcp`` itself,
streamable HTTP for ``hippograph serve`` to answer at ``/mcp``."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from hippograph import __version__
from hippograph.mcp.tools import CallerOf, MemoryTools
from hippograph.memory.keys import Caller, authenticate
from hippograph.memory.services import Services

INSTRUCTIONS = """\
hippograph is your memory. Before answering, `recall` what you know about the question (priority sets how \
much it may return). When you learn something worth keeping, `remember` it as a self-contained statement: \
SESSION for this conversation's working context, PROJECT for the project's decisions, errors and \
conventions, LONG_TERM for what holds for the user everywhere. Record decisions, errors with their fixes, \
and patterns with the record_* tools, so that `chains` and `trace` can show what led to what. A tool that \
refuses says why, with a code (BAD_USER_INPUT, NOT_FOUND, LIMIT_EXCEEDED, UNAUTHENTICATED, UNAVAILABLE)."""


def build(services: Services, caller_of: CallerOf) -> MCPServer:
    server = MCPServer(name="hippograph", version=__version__, instructions=INSTRUCTIONS)
    MemoryTools(services, caller_of).register(server.add_tool)
    return server


async def serve_stdio(services: Services, key: str) -> None:
    """Serve on stdin/stdout as the owner of ``key``, checked on every call (a revoked key stops working)."""

    async def caller_of(_: Request | None) -> Caller | None:
        return await run_in_threadpool(authenticate, services.driver, services.database, key)

    await build(services, caller_of).run_stdio_async()


class StreamableHttp:
    """The ``/mcp`` endpoint: stateless streamable HTTP (each POST a whole exchange, answered as JSON), so
    any worker can answer any request and the key of each request is the one that counts."""

    def __init__(self, services: Services, caller_of: CallerOf) -> None:
        server = build(services, caller_of)
        # Rebinding protection checks the Host header against a list; every request here needs an API key
        # instead, which a rebinding page does not have.
        server.streamable_http_app(
            stateless_http=True, json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self._manager = server.session_manager

    def running(self) -> AbstractAsyncContextManager[None]:
        """The task group the sessions run in, for the app's lifespan."""
        return self._manager.run()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._manager.handle_request(scope, receive, send)
