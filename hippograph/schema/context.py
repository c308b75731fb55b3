"""What every resolver receives: the services, the caller, the per-request loaders, the event bus and
the metrics sink — and, for the operations, all of it as one ``Call``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.websockets import WebSocket
from strawberry.types import Info as StrawberryInfo

from hippograph.memory.keys import Caller
from hippograph.memory.services import Services
from hippograph.operations.call import Call
from hippograph.operations.event_bus import EventBus
from hippograph.operations.metrics import MetricsSink, NoMetrics
from hippograph.schema.loaders import Loaders, build_loaders


@dataclass
class Context:
    services: Services
    events: EventBus
    metrics: MetricsSink = field(default_factory=NoMetrics)
    request: Request | WebSocket | None = None
    caller: Caller | None = None
    # Why the caller could not be identified when it was not its key's fault (Neo4j down).
    auth_failure: BaseException | None = None
    # graphql-transport-ws puts the connection_init payload here.
    connection_params: dict[str, Any] | None = None
    _loaders: Loaders | None = field(default=None, repr=False)

    @property
    def call(self) -> Call:
        """The caller's call of an operation; resolvers run behind ``IsAuthenticated``, so there is a caller."""
        if self.caller is None:
            raise RuntimeError("no authenticated caller in this context")
        return Call(self.services, self.caller, self.events, self.metrics)

    @property
    def user_id(self) -> str:
        return self.call.user_id

    @property
    def loaders(self) -> Loaders:
        if self._loaders is None:
            self._loaders = build_loaders(self.call, cache=not isinstance(self.request, WebSocket))
        return self._loaders


Info = StrawberryInfo[Context, None]
