"""Access bookkeeping off the recall path.

Promotion (accessed more than 3 times) and decay (not accessed for 90 days) read
``accessCount`` and ``lastAccessedAt``. A recall must not pay for writing them,
so it hands the ids to an ``AccessRecorder``: a daemon thread that merges what
piles up (one row per memory, counts summed, latest time kept) and writes it in
one ``UNWIND`` batch per wake-up. The increments are atomic in Cypher, so several
recorders — threads or processes — never lose one. Each process has one, opened and
closed with its services (``hippograph.memory.services``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from datetime import datetime, timezone

from neo4j import Driver
from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired

from hippograph.graph import access_counts as access_cypher

log = logging.getLogger(__name__)

MAX_BATCH = 2000


class AccessRecorder:
    """Books accesses in the background; ``flush()`` waits until everything recorded so far is written."""

    def __init__(self, driver: Driver, database: str, max_batch: int = MAX_BATCH, linger_seconds: float = 0.02) -> None:
        self._driver = driver
        self._database = database
        self._max_batch = max_batch
        self._linger = linger_seconds
        self._pending: dict[tuple[str, str], list] = {}  # (user id, memory id) -> [count, latest at]
        self._recorded = 0  # record() calls accepted
        self._settled = 0   # of those, written (or given up on)
        self._in_flight = 0
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="hippograph-access", daemon=True)
        self._thread.start()

    def record(self, user_id: str, ids: Iterable[str], at: datetime | None = None) -> None:
        """Count one access of each of the user's memories ``ids`` at ``at`` (default now); returns at once."""
        at = at or datetime.now(timezone.utc)
        with self._cond:
            if self._closed:
                raise RuntimeError("this access recorder is closed")
            for memory_id in ids:
                entry = self._pending.get((user_id, memory_id))
                if entry is None:
                    self._pending[(user_id, memory_id)] = [1, at]
                else:
                    entry[0] += 1
                    entry[1] = max(entry[1], at)
            self._recorded += 1
            self._cond.notify_all()

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Wait until everything recorded before this call is written; False on timeout."""
        with self._cond:
            target = self._recorded
            self._cond.notify_all()
            return self._cond.wait_for(lambda: self._settled >= target, timeout=timeout)

    def close(self, timeout: float | None = 30.0) -> None:
        """Write what is pending, then stop the thread."""
        self.flush(timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending or self._closed or self._settled < self._recorded)
                if not self._pending and self._closed:
                    return
            # Let concurrent recalls pile up for a moment: one write instead of many.
            if self._linger:
                threading.Event().wait(self._linger)
            with self._cond:
                batch, self._pending = self._pending, {}
                settles = self._recorded
            self._write(batch)
            with self._cond:
                self._settled = max(self._settled, settles)
                self._cond.notify_all()

    def _write(self, batch: dict[tuple[str, str], list]) -> None:
        rows = [{"userId": user_id, "id": memory_id, "count": count, "at": at}
                for (user_id, memory_id), (count, at) in sorted(batch.items())]
        for start in range(0, len(rows), self._max_batch):
            chunk = rows[start:start + self._max_batch]
            try:
                with self._driver.session(database=self._database) as session:
                    session.execute_write(access_cypher.record_access, chunk)
            except (Neo4jError, ServiceUnavailable, SessionExpired, OSError) as exc:
                # Bookkeeping must never break recall; the driver already retried transient errors.
                log.warning("could not record %d memory accesses: %s", len(chunk), exc)
            except Exception:  # the writer thread must outlive any surprise, or flush() would hang
                log.exception("could not record %d memory accesses", len(chunk))
