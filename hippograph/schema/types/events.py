"""What ``memoryEvents`` delivers."""

from __future__ import annotations

from datetime import datetime

import strawberry

from hippograph.operations.event_bus import Event


@strawberry.type(description="A change to the caller's memory, as a mutation made it.")
class MemoryEvent:
    kind: str = strawberry.field(
        description="REMEMBERED, UPDATED, FORGOTTEN, DECISION_RECORDED, LINKED, SESSION_ENDED …"
    )
    project: str | None
    session: str | None
    memory_ids: list[strawberry.ID]
    entity_ids: list[strawberry.ID]
    at: datetime

    @classmethod
    def from_event(cls, event: Event) -> MemoryEvent:
        return cls(
            kind=event.kind,
            project=event.project_id,
            session=event.session_id,
            memory_ids=[strawberry.ID(i) for i in event.memory_ids],
            entity_ids=[strawberry.ID(i) for i in event.entity_ids],
            at=event.at,
        )
