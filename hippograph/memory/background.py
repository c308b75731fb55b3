"""What a request must not wait for, written in the background: rows handed over now, stored in
batches by one daemon thread. The audit events of reads (``hippograph.memory.audit``) and the
accesses recall counts (``hippograph.memory.recall.access_counts``) are written so.

One rule for every such writer: a row is stored within ``INTERVAL`` seconds of being recorded,
at once when ``BATCH`` rows wait or someone flushes, and ``flush()`` waits at most
``FLUSH_TIMEOUT`` seconds for what was recorded before it. A batch that cannot be stored is tried
once more (the driver has already retried transient errors), then dropped and logged: bookkeeping
never takes a request down. After ``close()`` a row is stored at once, in the caller's thread —
slower, but a request still in flight while the service shuts down loses none of its audit lines.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from neo4j import Driver, ManagedTransaction

BATCH = 500
INTERVAL = 0.2
FLUSH_TIMEOUT = 30.0

Row = TypeVar("Row")


class BackgroundWriter(Generic[Row]):
    """Stores rows with ``store(tx, rows)`` in the background; ``combine`` may merge a batch's rows first."""

    def __init__(
        self,
        driver: Driver,
        database: str,
        store: Callable[[ManagedTransaction, list[Row]], object],
        *,
        name: str,
        what: str,
        log: logging.Logger,
        combine: Callable[[list[Row]], list[Row]] | None = None,
        interval: float = INTERVAL,
    ) -> None:
        if interval <= 0:
            raise ValueError(f"a background writer wakes every interval > 0 seconds, got {interval}")
        self._driver = driver
        self._database = database
        self._statement = store
        self._what = what
        self._log = log
        self._combine = combine
        self._interval = interval
        # Everything below is guarded by _changed: the queue, the counters flushes wait on, the flags.
        self._changed = threading.Condition()
        self._queue: list[Row] = []
        self._recorded = 0  # add() calls accepted
        self._settled = 0  # of those, stored (or given up on)
        self._flushing = False
        self._closing = False
        self._thread = threading.Thread(target=self._loop, name=f"hippograph-{name}", daemon=True)
        self._thread.start()

    def add(self, rows: Sequence[Row]) -> None:
        """Hand ``rows`` over; returns at once (after ``close()``: once they are stored)."""
        with self._changed:
            if not self._closing:
                self._queue.extend(rows)
                self._recorded += 1
                if len(self._queue) >= BATCH:
                    self._changed.notify_all()
                return
        self._store(list(rows))

    def flush(self, timeout: float = FLUSH_TIMEOUT) -> bool:
        """Wait until every row handed over before this call is stored (or given up on); False if
        ``timeout`` ran out first."""
        with self._changed:
            target = self._recorded
            if self._settled >= target:
                return True
            self._flushing = True
            self._changed.notify_all()
            return self._changed.wait_for(lambda: self._settled >= target, timeout)

    def close(self, timeout: float = FLUSH_TIMEOUT) -> None:
        """Store what waits and stop the thread; rows handed over later are stored at once."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        self._thread.join(timeout)

    def _loop(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(
                    lambda: self._closing or self._flushing or len(self._queue) >= BATCH,
                    self._interval,
                )
                rows, self._queue = self._queue, []
                upto = self._recorded
                self._flushing = False
                closing = self._closing
            if rows:
                self._store(rows)
            with self._changed:
                self._settled = upto
                self._changed.notify_all()
            if closing:
                return

    def _store(self, rows: list[Row]) -> None:
        rows = self._combine(rows) if self._combine is not None else rows
        for start in range(0, len(rows), BATCH):
            chunk = rows[start : start + BATCH]
            for attempt in (1, 2):
                try:
                    with self._driver.session(database=self._database) as session:
                        session.execute_write(self._statement, chunk)
                    break
                except Exception:  # the thread must outlive any failure, or flush() would hang
                    if attempt == 2:
                        self._log.exception("dropped %d %s(s) that could not be stored", len(chunk), self._what)
