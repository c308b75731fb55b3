"""Access bookkeeping off the recall path.

Promotion (accessed more than 3 times) and decay (not accessed for 90 days) read
``accessCount`` and ``lastAccessedAt``. A recall must not pay for writing them,
so it hands the ids to an ``AccessRecorder``, a background writer
(``hippograph.memory.background``) that merges what piles up (one row per memory,
counts summed, latest time kept) and writes it in one ``UNWIND`` batch. The
increments are atomic in Cypher, so several recorders — threads or processes —
never lose one. Each process has one, opened and closed with its services
(``hippograph.memory.services``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from neo4j import Driver

from hippograph.graph import access_counts as access_cypher
from hippograph.memory.background import INTERVAL, BackgroundWriter

log = logging.getLogger(__name__)


class AccessRecorder(BackgroundWriter[dict[str, Any]]):
    """Books accesses in the background; ``flush()`` waits until everything recorded so far is written."""

    def __init__(self, driver: Driver, database: str, interval: float = INTERVAL) -> None:
        super().__init__(
            driver,
            database,
            access_cypher.record_access,
            name="access",
            what="memory access",
            log=log,
            combine=_combine,
            interval=interval,
        )

    def record(self, user_id: str, ids: Iterable[str], at: datetime | None = None) -> None:
        """Count one access of each of the user's memories ``ids`` at ``at`` (default now); returns at once."""
        at = at or datetime.now(UTC)
        self.add([{"userId": user_id, "id": memory_id, "count": 1, "at": at} for memory_id in ids])


def _combine(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per memory, its counts summed and its latest time kept; in a fixed order, so that two
    recorders writing at once take the nodes' locks in the same order."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        key = (row["userId"], row["id"])
        seen = merged.get(key)
        if seen is None:
            merged[key] = dict(row)
        else:
            seen["count"] += row["count"]
            seen["at"] = max(seen["at"], row["at"])
    return [merged[key] for key in sorted(merged)]
