"""Cypher for access bookkeeping: what recall returned counts as accessed.

Each row adds its count to ``accessCount`` in the statement itself, so the
increment happens under the node's write lock: concurrent writers serialise on
the node and no increment is lost, whatever else is writing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

RECORD_ACCESS = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id, userId: row.userId})
SET m.accessCount = coalesce(m.accessCount, 0) + row.count,
    m.lastAccessedAt = CASE
      WHEN m.lastAccessedAt IS NULL OR m.lastAccessedAt < row.at THEN row.at
      ELSE m.lastAccessedAt END
RETURN count(m) AS updated
"""


def record_access(tx: ManagedTransaction, rows: Sequence[dict[str, Any]]) -> int:
    """Add ``count`` accesses at ``at`` (a datetime) to each memory ``id`` of ``userId``; returns how many
    were found (a memory of another user is not)."""
    record = tx.run(RECORD_ACCESS, rows=list(rows)).single()
    return int(record["updated"]) if record else 0
