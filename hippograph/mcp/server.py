"""The MCP server over its two transports: stdio for an agent that starts ``hippograph mcp`` itself,
streamable HTTP for ``hippograph serve`` to answer at ``/mcp``."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult
from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from hippograph import __version__
from hippograph.mcp.tools import CallerOf, MemoryTools, refusal, refused
from hippograph.memory.keys import Caller
from hippograph.memory.services import Services
from hippograph.operations.errors import ErrorCode, RequestError
from hippograph.operations.event_bus import EventBus
from hippograph.operations.keys import key_owner
from hippograph.operations.limits import check_strings
from hippograph.operations.metrics import MetricsSink, NoMetrics

INSTRUCTIONS = """\
hippograph is your memory. Before answering, `recall` what you know about the question (priority sets how \
much it may return). When you learn something worth keeping, `remember` it as a self-contained statement: \
SESSION for this conversation's working context, PROJECT for the project's decisions, errors and \
conventions, LONG_TERM for what holds for the user everywhere. Record decisions, errors with their fixes, \
and patterns with the record_* tools, so that `chains` and `trace` can show what led to what. Enumerations \
are spelled in capitals (CRITICAL, PROJECT, NOTE, HYBRID). A tool that refuses says why, with a code \
(BAD_USER_INPUT, NOT_FOUND, LIMIT_EXCEEDED, UNAUTHENTICATED, UNAVAILABLE)."""


class MemoryServer(MCPServer):
    """The SDK's server, with every refusal made before a tool runs coded as the tools' own are: an
    unknown tool, an argument the tool does not take, a string no field takes, arguments that do not
    fit the tool's schema."""

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        context: Context[Any, Any] | None = None,
    ) -> Any:
        tools = {tool.name: tool for tool in await self.list_tools()}
        if name not in tools:
            return refusal(ErrorCode.BAD_USER_INPUT, f"unknown tool {name!r}; the tools are {', '.join(sorted(tools))}")
        # The SDK would drop it unread: `remember(user: "alice")` would store the caller's memory, as if the
        # argument had been heard. GraphQL refuses a field its input does not have; so does every tool.
        takes = list(tools[name].input_schema.get("properties", {}))
        unknown = [argument for argument in arguments if argument not in takes]
        if unknown:
            return refusal(
                ErrorCode.BAD_USER_INPUT,
                f"{unknown[0]}: {name} takes no such argument; it takes {', '.join(takes)}",
                unknown[0],
            )
        try:
            for argument, value in arguments.items():
                check_strings(value, argument)
            return await super().call_tool(name, arguments, context)
        except RequestError as exc:
            return refused(exc)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc.__cause__, ValidationError):
                raise
            return invalid_arguments(exc.__cause__)


def invalid_arguments(error: ValidationError) -> CallToolResult:
    """``BAD_USER_INPUT`` for arguments the tool's schema refuses: each problem with the argument it is in
    (the values are not repeated: they are the caller's data)."""
    problems = [(_location(problem["loc"]), problem["msg"]) for problem in error.errors(include_url=False)]
    message = "; ".join(f"{where}: {what}" if where else what for where, what in problems)
    return refusal(ErrorCode.BAD_USER_INPUT, message, problems[0][0] or None)


def _location(loc: tuple[int | str, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def build(services: Services, caller_of: CallerOf, events: EventBus, metrics: MetricsSink) -> MemoryServer:
    server = MemoryServer(name="hippograph", version=__version__, instructions=INSTRUCTIONS)
    MemoryTools(services, caller_of, events, metrics).register(server.add_tool)
    return server


async def serve_stdio(services: Services, key: str) -> None:
    """Serve on stdin/stdout as the owner of ``key``, checked on every call (a revoked key stops working).

    Its events reach nobody (no GraphQL subscriber shares this process) and nobody scrapes its metrics."""

    async def caller_of(_: Request | None) -> Caller | None:
        return await key_owner(services, key)

    await build(services, caller_of, EventBus(), NoMetrics()).run_stdio_async()


class StreamableHttp:
    """The ``/mcp`` endpoint: stateless streamable HTTP (each POST a whole exchange, answered as JSON), so
    any worker can answer any request and the key of each request is the one that counts."""

    def __init__(self, services: Services, caller_of: CallerOf, events: EventBus, metrics: MetricsSink) -> None:
        server = build(services, caller_of, events, metrics)
        # Rebinding protection checks the Host header against a list; every request here needs an API key
        # instead, which a rebinding page does not have.
        server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self._manager = server.session_manager

    def running(self) -> AbstractAsyncContextManager[None]:
        """The task group the sessions run in, for the app's lifespan."""
        return self._manager.run()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._manager.handle_request(scope, receive, send)
