"""Cypher for consolidation: candidates for each step, and the steps themselves.

Every step re-matches what it changes inside its own write transaction, so a
step racing a write, a recall or another consolidation changes a node once or
not at all (a merged-away memory is archived, no longer there to merge again).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import history, store_model
from hippograph.graph.vocabulary import in_lifecycle

USERS = """
MATCH (user:User)
RETURN user.id AS id
ORDER BY id
"""

# Memories that may be merged with each other: same user, tier and scope, still live.
LIVE_EMBEDDINGS = (
    store_model.CURRENT
    + f"""
MATCH (m:Memory {{userId: $userId}})
WHERE {in_lifecycle("m")} AND m.archived = false AND m.validUntil IS NULL AND m[vectors] IS NOT NULL
RETURN m.id AS id, m.tier AS tier, m.projectId AS projectId, m.sessionId AS sessionId, m.kind AS kind,
       m[vectors] AS embedding, m.createdAt AS createdAt, m.accessCount AS accessCount
"""
)

# One survives; it takes over provenance (edges, and the sessions and turns it was said in), mentions,
# records, derived memories and accesses. The other stays as history (``history.SUPERSEDE``).
# Its attributes are computed by the caller (the union of both provenances) inside the same transaction.
MERGE_DUPLICATE = """
MATCH (keep:Memory {id: $keepId, userId: $userId}), (drop:Memory {id: $dropId, userId: $userId})
WHERE keep.archived = false AND drop.archived = false
CALL (keep, drop) {
  MATCH (drop)-[:DERIVED_FROM]->(source) WHERE source <> keep
  MERGE (keep)-[:DERIVED_FROM]->(source)
}
CALL (keep, drop) {
  MATCH (drop)-[:MENTIONS]->(entity)
  MERGE (keep)-[:MENTIONS]->(entity)
}
CALL (keep, drop) {
  MATCH (drop)-[:RECORDS]->(entity)
  MERGE (keep)-[:RECORDS]->(entity)
}
CALL (keep, drop) {
  MATCH (derived)-[:DERIVED_FROM]->(drop) WHERE derived <> keep
  MERGE (derived)-[:DERIVED_FROM]->(keep)
}
CALL (keep, drop) {
  MATCH (drop)-[:RELATED_TO]-(other:Memory) WHERE other <> keep
  MERGE (keep)-[:RELATED_TO]->(other)
}
SET keep.accessCount = coalesce(keep.accessCount, 0) + coalesce(drop.accessCount, 0),
    keep.relevance = CASE WHEN drop.relevance > keep.relevance THEN drop.relevance ELSE keep.relevance END,
    keep.lastAccessedAt = CASE WHEN keep.lastAccessedAt IS NULL OR drop.lastAccessedAt > keep.lastAccessedAt
                               THEN drop.lastAccessedAt ELSE keep.lastAccessedAt END,
    keep.mergedFrom = coalesce(keep.mergedFrom, []) + drop.id,
    keep.attributes = $attributes,
    keep.sourceSessions = CASE WHEN drop.sourceSessions IS NULL THEN keep.sourceSessions ELSE
      coalesce(keep.sourceSessions, [])
        + [s IN drop.sourceSessions WHERE NOT s IN coalesce(keep.sourceSessions, [])] END,
    keep.sourceTurns = CASE WHEN drop.sourceTurns IS NULL THEN keep.sourceTurns ELSE
      coalesce(keep.sourceTurns, []) + [t IN drop.sourceTurns WHERE NOT t IN coalesce(keep.sourceTurns, [])] END
WITH keep AS new, drop AS old
__SUPERSEDE__
RETURN new.id AS kept
""".replace("__SUPERSEDE__", history.SUPERSEDE.strip())

# A promoted session memory stays, archived, as the history of the memory it became.
SUPERSEDE_BY = """
MATCH (old:Memory {id: $oldId, userId: $userId}), (new:Memory {id: $newId, userId: $userId})
__SUPERSEDE__
""".replace("__SUPERSEDE__", history.SUPERSEDE.strip())

SESSION_MEMORIES_TO_PROMOTE = f"""
MATCH (m:Memory {{userId: $userId, tier: 'SESSION'}})
WHERE {in_lifecycle("m")} AND m.archived = false AND m.accessCount > $accesses
OPTIONAL MATCH (session:Session {{userId: $userId, id: m.sessionId}})
RETURN m.id AS id, m.content AS content, m.kind AS kind, m.accessCount AS accessCount,
       m.relevance AS relevance, m.attributes AS attributes, m.sessionId AS sessionId,
       coalesce(session.projectId, m.projectId) AS projectId
"""

PROJECT_MEMORIES = (
    store_model.CURRENT
    + f"""
MATCH (m:Memory {{userId: $userId, tier: 'PROJECT'}})
WHERE {in_lifecycle("m")} AND m.archived = false AND m.validUntil IS NULL
      AND m[vectors] IS NOT NULL AND m.projectId IS NOT NULL
RETURN m.id AS id, m.projectId AS projectId, m.content AS content, m[vectors] AS embedding,
       EXISTS {{ MATCH (:Memory {{kind: 'rule'}})-[:RELATED_TO]->(m) }} AS generalised
"""
)

RELATE_RULE = """
MATCH (rule:Memory {id: $ruleId, userId: $userId})
UNWIND $memberIds AS memberId
MATCH (member:Memory {id: memberId, userId: $userId})
MERGE (rule)-[:RELATED_TO]->(member)
RETURN count(member) AS related
"""

# Once per period: a memory untouched for the period loses 10 % of its relevance, and not again
# until another whole period has passed since that decay.
DECAY = f"""
MATCH (m:Memory {{userId: $userId}})
WHERE {in_lifecycle("m")} AND m.archived = false
  AND coalesce(m.lastAccessedAt, m.createdAt) <= datetime($now) - duration({{days: $days}})
  AND (m.decayedAt IS NULL OR m.decayedAt <= datetime($now) - duration({{days: $days}}))
SET m.relevance = coalesce(m.relevance, 1.0) * $factor, m.decayedAt = datetime($now)
RETURN collect(m.id) AS ids
"""


def users(tx: ManagedTransaction) -> list[str]:
    return [r["id"] for r in tx.run(USERS)]


def live_embeddings(tx: ManagedTransaction, user_id: str) -> list[dict[str, Any]]:
    return [dict(r) for r in tx.run(LIVE_EMBEDDINGS, userId=user_id)]


def merge_duplicate(tx: ManagedTransaction, user_id: str, keep_id: str, drop_id: str, attributes: str | None) -> bool:
    return (
        tx.run(MERGE_DUPLICATE, userId=user_id, keepId=keep_id, dropId=drop_id, attributes=attributes).single()
        is not None
    )


def supersede_by(tx: ManagedTransaction, user_id: str, old_id: str, new_id: str) -> None:
    tx.run(SUPERSEDE_BY, userId=user_id, oldId=old_id, newId=new_id).consume()


def session_memories_to_promote(tx: ManagedTransaction, user_id: str, accesses: int) -> list[dict[str, Any]]:
    return [dict(r) for r in tx.run(SESSION_MEMORIES_TO_PROMOTE, userId=user_id, accesses=accesses)]


def project_memories(tx: ManagedTransaction, user_id: str) -> list[dict[str, Any]]:
    return [dict(r) for r in tx.run(PROJECT_MEMORIES, userId=user_id)]


def relate_rule(tx: ManagedTransaction, user_id: str, rule_id: str, member_ids: Sequence[str]) -> int:
    return int(
        tx.run(RELATE_RULE, userId=user_id, ruleId=rule_id, memberIds=list(member_ids)).single(strict=True)["related"]
    )


def decay(tx: ManagedTransaction, user_id: str, now: str, days: int, factor: float) -> list[str]:
    return list(tx.run(DECAY, userId=user_id, now=now, days=days, factor=factor).single(strict=True)["ids"])
