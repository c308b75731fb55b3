"""What every resolver receives: the services, the caller, the per-request loaders,
the event bus and the metrics sink."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from starlette.requests import Request
from starlette.websockets import WebSocket
from strawberry.types import Info as StrawberryInfo

from hippograph.memory.keys import Caller
from hippograph.schema.events import EventBus
from hippograph.schema.loaders import Loaders, build_loaders
from hippograph.memory.services import Services


class MetricsSink(Protocol):
    """Where the schema reports what it measures (``hippograph.api.metrics`` implements it)."""

    def operation(self, name: str, seconds: float, failed: bool) -> None: ...

    def recall(self, profile: str, seconds: float) -> None: ...

    def tier_usage(self, tier: str, fill: float) -> None: ...

    def neo4j_error(self, kind: str) -> None: ...


class NoMetrics:
    def operation(self, name: str, seconds: float, failed: bool) -> None:
        pass

    def recall(self, profile: str, seconds: float) -> None:
        pass

    def tier_usage(self, tier: str, fill: float) -> None:
        pass

    def neo4j_error(self, kind: str) -> None:
        pass


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
    def user_id(self) -> str:
        """The caller's user id; resolvers run behind ``IsAuthenticated``, so there is one."""
        if self.caller is None:
            raise RuntimeError("no authenticated caller in this context")
        return self.caller.user_id

    @property
    def loaders(self) -> Loaders:
        if self._loaders is None:
            self._loaders = build_loaders(self.services, self.user_id, cache=not isinstance(self.request, WebSocket))
        return self._loaders


Info = StrawberryInfo[Context, None]
