"""``auditLog``: the caller's own audit events, newest first."""

from __future__ import annotations

from hippograph.operations import audit
from hippograph.operations.limits import DEFAULT_PAGE
from hippograph.schema.context import Info
from hippograph.schema.guards import checked
from hippograph.schema.pagination import PageInfo
from hippograph.schema.types.audit import AuditEntry, AuditEventConnection, AuditFilter


@checked
async def audit_log(
    info: Info, filter: AuditFilter | None = None, first: int = DEFAULT_PAGE, after: str | None = None
) -> AuditEventConnection:
    where = filter or AuditFilter()
    events, cursor = await audit.audit_log(
        info.context.call,
        operations=where.operations,
        since=where.since,
        until=where.until,
        first=first,
        after=after,
    )
    return AuditEventConnection(
        nodes=[AuditEntry.from_event(e) for e in events],
        page_info=PageInfo(has_next_page=cursor is not None, end_cursor=cursor),
    )
