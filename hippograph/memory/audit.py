"""The audit log: every read and write, who did it, to which ids, when.

Writes log inside their own transaction (:meth:`AuditLog.record_in`): the change
and its line commit or fail together. Reads log through a background writer
(:meth:`AuditLog.record`) that batches events, so a recall never waits for its
log line. Events live in Neo4j as ``(:AuditEvent)`` nodes: they survive
restarts and can be filtered by user, operation and time and paged with a
cursor. Each is also written to the Python logger ``hippograph.audit`` as one
JSON object.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from neo4j import Driver, ManagedTransaction

from hippograph.graph import audit as audit_cypher

logger = logging.getLogger("hippograph.audit")

BATCH_SIZE = 500
FLUSH_INTERVAL = 0.2
MAX_PAGE = 1000
MAX_OPERATION = 64

# A missing time bound is widened to the edge of time, so one indexed query serves every filter.
_EARLIEST = datetime(1, 1, 1, tzinfo=timezone.utc)
_LATEST = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)


@dataclass(frozen=True)
class AuditEvent:
    """One logged operation: who (``user_id``), what (``operation``), on which ids, when (``at``, UTC)."""

    id: str
    at: datetime
    user_id: str | None
    operation: str
    ids: tuple[str, ...]
    detail: str | None


class AuditLog:
    """Records audit events in Neo4j and reads them back; one per process, closed on shutdown."""

    def __init__(self, driver: Driver, database: str) -> None:
        self._driver = driver
        self._database = database
        self._batch_size = BATCH_SIZE
        self._interval = FLUSH_INTERVAL
        # Everything below is guarded by _changed: the queue, the counters the
        # flushers wait on, and the flags that wake the writer early.
        self._changed = threading.Condition()
        self._queue: list[dict[str, Any]] = []
        self._enqueued = 0
        self._settled = 0
        self._flush_wanted = False
        self._closing = False
        self._writer = threading.Thread(target=self._write_loop, name="hippograph-audit", daemon=True)
        self._writer.start()

    def record_in(
        self,
        tx: ManagedTransaction,
        user_id: str | None,
        operation: str,
        ids: Sequence[str],
        detail: str | None = None,
    ) -> AuditEvent:
        """Log a write inside the writer's own transaction: both commit, or neither does."""
        return self.record_all_in(tx, [(user_id, operation, ids, detail)])[0]

    def record_all_in(
        self, tx: ManagedTransaction, events: Sequence[tuple[str | None, str, Sequence[str], str | None]],
    ) -> list[AuditEvent]:
        """Log writes committed together (user, operation, ids, detail each) in one statement of their transaction."""
        made = [_new_event(*event) for event in events]
        audit_cypher.record_events(tx, [_row(event) for event in made])
        return made

    def record(self, user_id: str | None, operation: str, ids: Sequence[str], detail: str | None = None) -> AuditEvent:
        """Log a read; the background writer stores it within :data:`FLUSH_INTERVAL` seconds."""
        event = _new_event(user_id, operation, ids, detail)
        with self._changed:
            if not self._closing:
                self._queue.append(_row(event))
                self._enqueued += 1
                if len(self._queue) >= self._batch_size:
                    self._changed.notify_all()
                return event
        # A request still in flight while the service shuts down: store it directly.
        self._store([_row(event)])
        return event

    def flush(self, timeout: float = 5.0) -> bool:
        """Block until every event recorded so far is stored (or given up on); False if ``timeout`` ran out first."""
        with self._changed:
            target = self._enqueued
            if self._settled >= target:
                return True
            self._flush_wanted = True
            self._changed.notify_all()
            return self._changed.wait_for(lambda: self._settled >= target, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Store what is queued and stop the background writer; later ``record`` calls store directly."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        self._writer.join(timeout)

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
                since=(since or _EARLIEST).astimezone(timezone.utc),
                until=(until or _LATEST).astimezone(timezone.utc),
                user_id=user_id,
                operations=None if operations is None else list(operations),
                after=cursor,
                first=first + 1,  # one more than asked tells whether another page exists
            )
        events = [_from_row(row) for row in rows[:first]]
        return events, (_encode_cursor(events[-1]) if len(rows) > first else None)

    def _write_loop(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(
                    lambda: self._closing or self._flush_wanted or len(self._queue) >= self._batch_size,
                    self._interval,
                )
                batch, self._queue = self._queue, []
                upto = self._enqueued
                self._flush_wanted = False
                closing = self._closing
            for start in range(0, len(batch), self._batch_size):
                self._store(batch[start:start + self._batch_size])
            with self._changed:
                self._settled = upto
                self._changed.notify_all()
            if closing:
                return

    def _store(self, rows: list[dict[str, Any]]) -> None:
        # The log must never take the service down: one retry, then the loss is reported and the caller goes on.
        for attempt in (1, 2):
            try:
                with self._driver.session(database=self._database) as session:
                    session.execute_write(audit_cypher.record_events, rows)
                return
            except Exception:
                if attempt == 2:
                    logger.exception(
                        "dropped %d audit event(s) that could not be stored: %s",
                        len(rows), ", ".join(row["id"] for row in rows),
                    )


def _new_event(user_id: str | None, operation: str, ids: Sequence[str], detail: str | None) -> AuditEvent:
    if not isinstance(operation, str) or not operation.strip() or len(operation) > MAX_OPERATION:
        raise ValueError(f"an audit operation is a name of 1-{MAX_OPERATION} characters, got {operation!r}")
    if isinstance(ids, str):
        raise ValueError("ids is a sequence of ids, not one string")
    event = AuditEvent(
        id=str(uuid.uuid4()),
        at=datetime.now(timezone.utc),
        user_id=user_id,
        operation=operation,
        ids=tuple(str(i) for i in ids),
        detail=detail,
    )
    if logger.isEnabledFor(logging.INFO):
        logger.info(json.dumps({
            "id": event.id, "at": event.at.isoformat(), "userId": event.user_id,
            "operation": event.operation, "ids": list(event.ids), "detail": event.detail,
        }))
    return event


def _row(event: AuditEvent) -> dict[str, Any]:
    return {
        "id": event.id, "at": event.at, "userId": event.user_id, "operation": event.operation,
        "ids": list(event.ids), "detail": event.detail,
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
    return moment.astimezone(timezone.utc), event_id
