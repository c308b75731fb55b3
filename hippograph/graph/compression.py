"""Cypher for compressing a tier: read its snapshot, then delete, summarise or archive."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph.history import KEEP_VERSION
from hippograph.graph.memories import refresh_preceding_of
from hippograph.graph.scope import IN_TIER_SCOPE
from hippograph.graph.vocabulary import in_lifecycle

# One scope of one tier, as the compression policy needs it.
TIER_SNAPSHOT = f"""
MATCH (m:Memory {{userId: $userId, tier: $tier}})
WHERE m.archived = false
  AND {IN_TIER_SCOPE} AND {in_lifecycle("m")}
RETURN m.id AS id, m.kind AS kind, coalesce(m.summaryTokens, m.tokens) AS tokens, m.createdAt AS createdAt,
       m.validUntil IS NULL AS active, coalesce(m.compressed, false) AS summarised, m.content AS content,
       m.relevance AS relevance, m.attributes AS attributes
"""

# The summary replaces the content: that is what makes the tier smaller. The text it replaces is kept
# as a version (``hippograph.graph.history``), so a read as of before still reads it.
SUMMARISE_MEMORIES = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id, userId: $userId})
__KEEP_VERSION__
SET m.originalTokens = coalesce(m.originalTokens, m.tokens),
    m.content = row.summary, m.summary = row.summary,
    m.tokens = row.tokens, m.summaryTokens = row.tokens,
    m.compressed = true, m.compressedAt = datetime($at), m.updatedAt = datetime($at)
""".replace("__KEEP_VERSION__", KEEP_VERSION.strip())

ARCHIVE_MEMORIES = """
UNWIND $ids AS id
MATCH (m:Memory {id: id, userId: $userId})
SET m.archived = true, m.archivedAt = datetime()
"""


def tier_snapshot(
    tx: ManagedTransaction, user_id: str, tier: str, project_id: str | None, session_id: str | None
) -> list[dict[str, Any]]:
    return [
        dict(r) for r in tx.run(TIER_SNAPSHOT, userId=user_id, tier=tier, projectId=project_id, sessionId=session_id)
    ]


def summarise_memories(tx: ManagedTransaction, user_id: str, rows: Sequence[dict[str, Any]]) -> None:
    if rows:
        at = datetime.now(UTC).isoformat()
        tx.run(SUMMARISE_MEMORIES, userId=user_id, rows=list(rows), at=at, keepVersion=True).consume()
        refresh_preceding_of(tx, user_id, [row["id"] for row in rows])


def archive_memories(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> None:
    if ids:
        tx.run(ARCHIVE_MEMORIES, userId=user_id, ids=list(ids)).consume()
