"""What every operation receives: the services, the caller, the event bus and the metrics sink."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from hippograph.memory.keys import Caller
from hippograph.memory.services import Services
from hippograph.operations.event_bus import Event, EventBus
from hippograph.operations.metrics import MetricsSink, NoMetrics


@dataclass(frozen=True)
class Call:
    """One call of an operation, by the owner of the key its interface checked: every user id an
    operation uses is ``caller.user_id``, never a value from the request."""

    services: Services
    caller: Caller
    events: EventBus
    metrics: MetricsSink = field(default_factory=NoMetrics)

    @property
    def user_id(self) -> str:
        return self.caller.user_id

    @property
    def actor(self) -> str:
        """Who asked, for an audit tombstone: the caller and the key they used."""
        return f"{self.caller.user_id} (key {self.caller.key_id})"

    def publish(
        self,
        kind: str,
        project_id: str | None = None,
        session_id: str | None = None,
        memory_ids: Iterable[str] = (),
        entity_ids: Iterable[str] = (),
    ) -> None:
        """Tell the caller's subscribers (``memoryEvents``) what changed."""
        self.events.publish(Event(kind, self.user_id, project_id, session_id, tuple(memory_ids), tuple(entity_ids)))
