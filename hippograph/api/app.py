"""The ASGI application: GraphQL at /graphql, health at /healthz and /readyz."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from hippograph.api.health import healthz, readyz
from hippograph.config import Settings
from hippograph.schema import schema
from hippograph.schema.context import Context
from hippograph.services import Services, open_services


class HippographGraphQL(GraphQL):
    async def get_context(self, request: Request | WebSocket, response: object) -> Context:
        return Context(request=request, services=request.app.state.services)


def create_app(settings: Settings, services: Services | None = None) -> Starlette:
    """Build the app; its lifespan opens the driver and loads the model once (unless given ``services``)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if services is not None:
            app.state.services = services
            yield
            return
        with open_services(settings) as opened:
            app.state.services = opened
            yield

    graphql = HippographGraphQL(schema, graphql_ide="graphiql")
    return Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
        ],
        lifespan=lifespan,
    )
