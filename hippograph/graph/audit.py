"""Cypher for the audit log: who did what to which ids, and when.

An event is ``(:AuditEvent {id, at, userId, operation, ids, detail})`` with
``at`` a native datetime (UTC). Reads walk the ``audit_time`` index newest
first and stop after one page; the cursor is the ``(at, id)`` of the last row
a caller saw, so pages never repeat or skip an event, even when several share
the same instant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

RECORD_EVENTS = """
UNWIND $events AS event
CREATE (:AuditEvent {
  id: event.id, at: event.at, userId: event.userId, operation: event.operation,
  ids: event.ids, detail: event.detail
})
"""

# since is inclusive, until exclusive. Both are always set (the caller widens a
# missing bound to the edge of time), which lets the planner seek the
# audit_time index backwards instead of sorting every event; and both are in
# UTC like every stored `at`: Neo4j orders equal instants by their offset, so a
# bound in another zone would misplace an event at exactly that time.
QUERY_EVENTS = """
MATCH (event:AuditEvent)
WHERE event.at >= $since AND event.at < $until
  AND ($userId IS NULL OR event.userId = $userId)
  AND ($operations IS NULL OR event.operation IN $operations)
  AND ($afterAt IS NULL OR event.at < $afterAt OR (event.at = $afterAt AND event.id < $afterId))
RETURN event.id AS id, event.at AS at, event.userId AS userId, event.operation AS operation,
       event.ids AS ids, event.detail AS detail
ORDER BY event.at DESC, event.id DESC
LIMIT $first
"""


def record_events(tx: ManagedTransaction, events: Sequence[Mapping[str, Any]]) -> None:
    """Create one AuditEvent per mapping (id, at as an aware datetime, userId, operation, ids, detail)."""
    tx.run(RECORD_EVENTS, events=[dict(e) for e in events]).consume()


def query_events(
    tx: ManagedTransaction,
    *,
    since: datetime,
    until: datetime,
    user_id: str | None = None,
    operations: Sequence[str] | None = None,
    after: tuple[datetime, str] | None = None,
    first: int = 50,
) -> list[dict[str, Any]]:
    """Events in ``[since, until)`` matching the filters, newest first, strictly after the cursor ``(at, id)``."""
    result = tx.run(
        QUERY_EVENTS,
        since=since,
        until=until,
        userId=user_id,
        operations=None if operations is None else list(operations),
        afterAt=None if after is None else after[0],
        afterId=None if after is None else after[1],
        first=first,
    )
    return [record.data() for record in result]
