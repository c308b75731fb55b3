"""``audit_log``: the caller's own audit events, newest first."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from starlette.concurrency import run_in_threadpool

from hippograph.memory.audit import AuditEvent
from hippograph.operations.call import Call
from hippograph.operations.errors import BadInput
from hippograph.operations.limits import DEFAULT_PAGE, MAX_CURSOR, bounded, bounded_list, text, utc


async def audit_log(
    call: Call,
    *,
    operations: Sequence[str] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
) -> tuple[list[AuditEvent], str | None]:
    """A page of the caller's events and the cursor of the next page (None after the last)."""
    named = [text(op, "filter.operations", 64) for op in bounded_list(operations, "filter.operations") or []]
    if after is not None and len(after) > MAX_CURSOR:
        raise BadInput("after is not a cursor this field returned", field="after")
    first = bounded(first, "first")
    since, until = utc(since, "filter.since"), utc(until, "filter.until")
    try:
        return await run_in_threadpool(
            lambda: call.services.audit.query(
                user_id=call.user_id,  # always the caller: None would mean every user
                operations=named or None,
                since=since,
                until=until,
                first=first,
                after=after,
            )
        )
    except ValueError as exc:  # the audit log's own word on a bad cursor
        raise BadInput(f"after is not a cursor this field returned ({exc})", field="after") from None
