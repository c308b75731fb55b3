"""``auditLog``: the caller's own audit events, newest first."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from hippograph.schema.context import Info
from hippograph.schema.errors import BadInput
from hippograph.schema.guards import checked
from hippograph.schema.limits import DEFAULT_PAGE, bounded_list, page_size, text
from hippograph.schema.pagination import MAX_CURSOR, PageInfo
from hippograph.schema.types.audit import AuditEvent, AuditEventConnection, AuditFilter


@checked
async def audit_log(
    info: Info, filter: AuditFilter | None = None, first: int = DEFAULT_PAGE, after: str | None = None
) -> AuditEventConnection:
    where = filter or AuditFilter()
    operations = [text(op, "filter.operations", 64) for op in bounded_list(where.operations, "filter.operations") or []]
    if after is not None and len(after) > MAX_CURSOR:
        raise BadInput("after is not a cursor this field returned", field="after")
    try:
        events, cursor = await run_in_threadpool(
            lambda: info.context.services.audit.query(
                user_id=info.context.user_id,  # always the caller: None would mean every user
                operations=operations or None, since=where.since, until=where.until,
                first=page_size(first), after=after,
            )
        )
    except ValueError as exc:  # the audit log's own word on a bad cursor
        raise BadInput(f"after is not a cursor this field returned ({exc})", field="after") from None
    return AuditEventConnection(
        nodes=[AuditEvent.from_event(e) for e in events],
        page_info=PageInfo(has_next_page=cursor is not None, end_cursor=cursor),
    )
