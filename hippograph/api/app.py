"""The ASGI application: GraphQL at /graphql (GraphiQL's files at /graphiql), MCP at /mcp, the memory
explorer at /explore, the Neo4j Browser guide at /browser/guide, health at /healthz and /readyz, metrics
at /metrics."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from hippograph.api import explore, graphiql
from hippograph.api.browser_guide import guide_endpoint, style_endpoint
from hippograph.api.graphql import GraphQLEndpoint
from hippograph.api.health import Warming, healthz, readyz
from hippograph.api.mcp import McpEndpoint, streamable_http
from hippograph.api.metrics import Metrics, metrics_endpoint
from hippograph.api.middleware import BodyLimit, RequestContext
from hippograph.api.periodic import consolidate_periodically
from hippograph.api.sockets import watching
from hippograph.config import Settings
from hippograph.memory.keys import CallerCache
from hippograph.memory.services import Services
from hippograph.operations.services import open_services
from hippograph.operations.event_bus import EventBus


def create_app(settings: Settings, services: Services | None = None) -> Starlette:
    """Build the app; its lifespan opens the driver, loads the model once and warms up (unless given ``services``)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.events = EventBus()
        app.state.metrics = Metrics()
        app.state.callers = CallerCache(settings.auth_cache_ms / 1000.0) if settings.auth_cache_ms > 0 else None
        if services is not None:
            app.state.services = services
            app.state.metrics.watch_writes(services.writer.counts)
            app.state.mcp = streamable_http(services, app.state.events, app.state.metrics)
            async with watching(services, app.state.events) as app.state.sockets, app.state.mcp.running():
                yield
            return
        with open_services(settings, recover_vectors=True) as opened:
            app.state.services = opened
            app.state.metrics.watch_writes(opened.writer.counts)
            app.state.mcp = streamable_http(opened, app.state.events, app.state.metrics)
            # In the background: the server is ready (and serves) meanwhile, its first requests only slower.
            app.state.warming = Warming()
            tasks = [asyncio.create_task(app.state.warming.run(opened))]
            if settings.consolidate_every > 0:
                tasks.append(asyncio.create_task(consolidate_periodically(opened, settings.consolidate_every)))
            try:
                async with watching(opened, app.state.events) as app.state.sockets, app.state.mcp.running():
                    yield
            finally:
                for task in tasks:
                    task.cancel()

    graphql = GraphQLEndpoint(settings.request_timeout)
    return Starlette(
        routes=[
            # Every method reaches the endpoint, so that one it does not serve is refused with a code too.
            Route("/graphql", graphql),
            WebSocketRoute("/graphql", graphql),
            Route("/mcp", McpEndpoint(), methods=["GET", "POST", "DELETE"]),
            Mount(graphiql.PREFIX, StaticFiles(directory=graphiql.ASSETS, check_dir=False)),
            explore.routes,
            Route("/browser/guide", guide_endpoint, methods=["GET", "OPTIONS"]),
            Route("/browser/style.grass", style_endpoint, methods=["GET", "OPTIONS"]),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics_endpoint),
        ],
        middleware=[*_cors(settings), Middleware(RequestContext), Middleware(BodyLimit)],
        lifespan=lifespan,
    )


def _cors(settings: Settings) -> list[Middleware]:
    """Pages of the allowed origins may call the API: a preflight is answered before any endpoint sees it,
    and every answer, a refusal included, carries the headers the page needs to read it. A key travels in
    a header, never a cookie, so credentials are never allowed — with ``*`` least of all."""
    origins = settings.allowed_origins
    if not origins:
        return []
    return [
        Middleware(
            CORSMiddleware,
            allow_origins=list(origins),
            allow_credentials=False,
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=[
                "authorization",
                "content-type",
                "x-api-key",
                "x-request-id",
                "mcp-protocol-version",
                "mcp-session-id",
                "last-event-id",
            ],
            expose_headers=["x-request-id", "retry-after", "www-authenticate", "mcp-session-id"],
            max_age=600,
        )
    ]
