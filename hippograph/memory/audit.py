"""The audit log: every read and write, who did it, to which ids, when.

Writes log inside their own transaction (:meth:`AuditLog.record_in`): the change
and its line commit or fail together. Reads log through the background writer
(:meth:`AuditLog.record`, ``hippograph.memory.background``) that batches events,
so a recall never waits for its log line. Events live in Neo4j as
``(:AuditEvent)`` nodes: they survive restarts and can be filtered by user,
operation and time and paged with a cursor. Each is also written to the Python
logger ``hippograph.audit`` as one JSON object.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j import Driver, ManagedTransaction

from hippograph.graph import audit as audit_cypher
from hippograph.memory.background import BackgroundWriter

logger = logging.getLogger("hippograph.audit")

MAX_PAGE = 1000
MAX_OPERATION = 64

# A missing time bound is widened to the edge of time, so one indexed query serves every filter.
_EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
_LATEST = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


@dataclass(frozen=True)
class AuditEvent:
    """One logged operation: who (``user_id``), what (``operation``), on which ids, when (``at``, UTC)."""

    id: str
    at: datetime
    user_id: str | None
    operation: str
    ids: tuple[str, ...]
    detail: str | None


class AuditLog(BackgroundWriter[dict[str, Any]]):
    """Records audit events in Neo4j and reads them back; one per process, closed on shutdown."""

    def __init__(self, driver: Driver, database: str) -> None:
        super().__init__(driver, database, audit_cypher.record_events, name="audit", what="audit event", log=logger)

    def record_in(
        self,
        tx: ManagedTransaction,
        user_id: str | None,
        operation: str,
        ids: Sequence[str],
        detail: str | None = None,
        announce: bool = True,
    ) -> AuditEvent:
        """Log a write inside the writer's own transaction: both commit, or neither does."""
        return self.record_all_in(tx, [(user_id, operation, ids, detail)], announce)[0]

    def record_all_in(
        self,
        tx: ManagedTransaction,
        events: Sequence[tuple[str | None, str, Sequence[str], str | None]],
        announce: bool = True,
    ) -> list[AuditEvent]:
        """Log writes committed together (user, operation, ids, detail each) in one statement of their
        transaction; without ``announce``, not on the ``hippograph.audit`` logger (a rehearsal rolled back)."""
        made = [_new_event(*event, announce=announce) for event in events]
        audit_cypher.record_events(tx, [_row(event) for event in made])
        return made

    def record(self, user_id: str | None, operation: str, ids: Sequence[str], detail: str | None = None) -> AuditEvent:
        """Log a read; the background writer stores it (``hippograph.memory.background``)."""
        event = _new_event(user_id, operation, ids, detail)
        self.add([_row(event)])
        return event

    def query(
        self,
        *,
        user_id: str | None = None,
        operations: Sequence[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> tuple[list[AuditEvent], str | None]:
        """A page of events, newest first, and the cursor for the next page (None when there is none).

        ``since`` is inclusive and ``until`` exclusive; both must be timezone-aware.
        """
        if not 1 <= first <= MAX_PAGE:
            raise ValueError(f"first must be between 1 and {MAX_PAGE}, got {first}")
        for name, bound in (("since", since), ("until", until)):
            if bound is not None and bound.utcoffset() is None:
                raise ValueError(f"{name} must be a timezone-aware datetime")
        cursor = _decode_cursor(after) if after is not None else None
        with self._driver.session(database=self._database) as session:
            rows = session.execute_read(
                audit_cypher.query_events,
                # Stored times are UTC, and Neo4j breaks ties between equal instants by their offset: compare in UTC.
                since=(since or _EARLIEST).astimezone(UTC),
                until=(until or _LATEST).astimezone(UTC),
                user_id=user_id,
                operations=None if operations is None else list(operations),
                after=cursor,
                first=first + 1,  # one more than asked tells whether another page exists
            )
        events = [_from_row(row) for row in rows[:first]]
        return events, (_encode_cursor(events[-1]) if len(rows) > first else None)


def _new_event(
    user_id: str | None, operation: str, ids: Sequence[str], detail: str | None, announce: bool = True
) -> AuditEvent:
    if not isinstance(operation, str) or not operation.strip() or len(operation) > MAX_OPERATION:
        raise ValueError(f"an audit operation is a name of 1-{MAX_OPERATION} characters, got {operation!r}")
    if isinstance(ids, str):
        raise ValueError("ids is a sequence of ids, not one string")
    event = AuditEvent(
        id=str(uuid.uuid4()),
        at=datetime.now(UTC),
        user_id=user_id,
        operation=operation,
        ids=tuple(str(i) for i in ids),
        detail=detail,
    )
    if announce and logger.isEnabledFor(logging.INFO):
        logger.info(
            json.dumps(
                {
                    "id": event.id,
                    "at": event.at.isoformat(),
                    "userId": event.user_id,
                    "operation": event.operation,
                    "ids": list(event.ids),
                    "detail": event.detail,
                }
            )
        )
    return event


def _row(event: AuditEvent) -> dict[str, Any]:
    return {
        "id": event.id,
        "at": event.at,
        "userId": event.user_id,
        "operation": event.operation,
        "ids": list(event.ids),
        "detail": event.detail,
    }


def _from_row(row: dict[str, Any]) -> AuditEvent:
    at = row["at"]
    return AuditEvent(
        id=row["id"],
        at=at.to_native() if hasattr(at, "to_native") else at,
        user_id=row["userId"],
        operation=row["operation"],
        ids=tuple(row["ids"] or ()),
        detail=row["detail"],
    )


def _encode_cursor(event: AuditEvent) -> str:
    return base64.urlsafe_b64encode(json.dumps([event.at.isoformat(), event.id]).encode()).decode()


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        at, event_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        moment = datetime.fromisoformat(at)
    except (ValueError, TypeError, binascii.Error, UnicodeError):
        raise ValueError("invalid audit cursor") from None
    if moment.utcoffset() is None or not isinstance(event_id, str):
        raise ValueError("invalid audit cursor")
    return moment.astimezone(UTC), event_id
