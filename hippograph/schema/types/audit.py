"""The audit log as the caller sees it: their own reads and writes."""

from __future__ import annotations

from datetime import datetime

import strawberry

from hippograph.memory.audit import AuditEvent
from hippograph.schema.pagination import PageInfo


@strawberry.input
class AuditFilter:
    operations: list[str] | None = strawberry.field(default=None, description="remember, recall, forget, export …")
    since: datetime | None = strawberry.field(
        default=None,
        description=(
            "Events at or after this time. A time without a zone is UTC; a UTC offset past ±18:00 is refused."
        ),
    )
    until: datetime | None = strawberry.field(default=None, description="Events before this time, read as `since` is.")


@strawberry.type(name="AuditEvent", description="One read or write: what was done, to which ids, when.")
class AuditEntry:
    id: strawberry.ID
    at: datetime
    operation: str
    ids: list[strawberry.ID]
    detail: str | None

    @classmethod
    def from_event(cls, event: AuditEvent) -> AuditEntry:
        return cls(
            id=strawberry.ID(event.id),
            at=event.at,
            operation=event.operation,
            ids=[strawberry.ID(i) for i in event.ids],
            detail=event.detail,
        )


@strawberry.type
class AuditEventConnection:
    nodes: list[AuditEntry]
    page_info: PageInfo
