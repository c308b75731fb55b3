"""Cypher for context assembly: the memories that stand regardless of the query."""

from __future__ import annotations

from typing import Any

from neo4j import ManagedTransaction

# The user's active preferences and rules, and the project's active decisions, most relevant first.
STANDING_MEMORIES = """
MATCH (m:Memory {userId: $userId})
WHERE m.archived = false AND m.validUntil IS NULL
  AND ((m.tier = 'LONG_TERM' AND m.kind IN ['preference', 'rule'])
       OR (m.tier = 'PROJECT' AND m.projectId = $projectId AND m.kind = 'decision'))
RETURN m.id AS id, m.tier AS tier, m.kind AS kind, m.content AS content
ORDER BY m.relevance DESC, m.createdAt DESC
LIMIT $limit
"""


def standing_memories(
    tx: ManagedTransaction, user_id: str, project_id: str | None, limit: int = 200
) -> list[dict[str, Any]]:
    return [dict(r) for r in tx.run(STANDING_MEMORIES, userId=user_id, projectId=project_id, limit=limit)]
