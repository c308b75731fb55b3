"""Cypher for memory nodes: create, read, delete, and how full a tier is.

A memory is ``(:Memory {id, content, embedding, createdAt, tier, userId,
projectId, sessionId, relevance, accessCount, lastAccessedAt, tokens, summary,
archived, kind, validFrom, validUntil, attributes})``, with an entity label
(``:Decision``, ``:Error`` …) when it records one, owned by ``(:User)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

# Properties a caller reads back; the embedding stays in the store.
MEMORY_FIELDS = """
  id: m.id, content: m.content, summary: m.summary, tier: m.tier, kind: m.kind,
  userId: m.userId, projectId: m.projectId, sessionId: m.sessionId,
  createdAt: m.createdAt, relevance: m.relevance, accessCount: m.accessCount,
  lastAccessedAt: m.lastAccessedAt, tokens: m.tokens, summaryTokens: m.summaryTokens,
  archived: m.archived, validFrom: m.validFrom, validUntil: m.validUntil,
  attributes: m.attributes, labels: [l IN labels(m) WHERE l <> 'Memory']
"""

CREATE_MEMORIES = """
UNWIND $rows AS row
MERGE (user:User {id: row.userId})
  ON CREATE SET user.createdAt = datetime()
CREATE (m:Memory {
  id: row.id, content: row.content, summary: row.summary, tier: row.tier, kind: row.kind,
  userId: row.userId, projectId: row.projectId, sessionId: row.sessionId,
  createdAt: datetime(row.createdAt), validFrom: datetime(row.createdAt),
  relevance: row.relevance, accessCount: 0, tokens: row.tokens, summaryTokens: row.summaryTokens,
  archived: false, attributes: row.attributes, contentHash: row.contentHash
})
SET m:$(row.labels)
CREATE (user)-[:REMEMBERS]->(m)
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
RETURN count(m) AS created
"""

GET_MEMORIES = f"""
UNWIND $ids AS id
MATCH (m:Memory {{id: id, userId: $userId}})
RETURN m {{ {MEMORY_FIELDS} }} AS memory
"""

FIND_BY_HASH = """
MATCH (m:Memory {userId: $userId, contentHash: $contentHash})
WHERE m.archived = false
RETURN m.id AS id
LIMIT 1
"""

# How full a tier is, for one scope: every memory still stored counts; an
# archived one is kept for history and counts no longer.
TIER_USAGE = """
MATCH (m:Memory {userId: $userId, tier: $tier})
WHERE m.archived = false
  AND ($tier = 'LONG_TERM' OR m.projectId = $projectId)
  AND ($tier <> 'SESSION' OR m.sessionId = $sessionId)
RETURN coalesce(sum(coalesce(m.summaryTokens, m.tokens)), 0) AS used, count(m) AS items
"""


def create_memories(tx: ManagedTransaction, rows: Sequence[dict[str, Any]]) -> int:
    """Create memories from ready rows (id, content, embedding as list, createdAt ISO string, labels …)."""
    record = tx.run(CREATE_MEMORIES, rows=list(rows)).single()
    return int(record["created"]) if record else 0


def get_memories(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> list[dict[str, Any]]:
    return [r["memory"] for r in tx.run(GET_MEMORIES, userId=user_id, ids=list(ids))]


def find_by_hash(tx: ManagedTransaction, user_id: str, content_hash: str) -> str | None:
    record = tx.run(FIND_BY_HASH, userId=user_id, contentHash=content_hash).single()
    return record["id"] if record else None


def tier_usage(
    tx: ManagedTransaction, user_id: str, tier: str, project_id: str | None, session_id: str | None
) -> tuple[int, int]:
    record = tx.run(TIER_USAGE, userId=user_id, tier=tier, projectId=project_id, sessionId=session_id).single()
    return int(record["used"]), int(record["items"])
