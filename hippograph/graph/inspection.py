"""Cypher that looks at a store from outside its operations: what the benchmarks check a store by.

No API field reaches these. Each answers a question a benchmark asks of the store it
built or served — how many memories a user owns, whether an acknowledged write is
there, what a user's state was before a hostile request and after it — so that the
benchmarks hold no Cypher of their own and check the store the product wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

MEMORY_COUNTS = """
UNWIND $userIds AS uid
RETURN uid AS userId, COUNT {
  MATCH (m:Memory {userId: uid})
  WHERE $skipProjects IS NULL OR m.projectId IS NULL OR NOT m.projectId STARTS WITH $skipProjects
} AS n
"""

PROJECTS_NAMED = """
MATCH (m:Memory {userId: $userId}) WHERE m.projectId STARTS WITH $prefix
RETURN DISTINCT m.projectId AS projectId
"""

MEMORIES_BY_ID = """
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, m.userId AS userId, m.content AS content
"""

PROJECT_MEMORY_COUNT = "RETURN COUNT { MATCH (m:Memory {userId: $userId, projectId: $projectId}) } AS n"

ACTIVE_MEMORIES = """
MATCH (m:Memory {userId: $userId})
WHERE m.archived = false
RETURN m.id AS id, m.attributes AS attributes, coalesce(m.summaryTokens, m.tokens) AS tokens
"""

OWNER_VECTORS = """
MATCH (m:Memory {userId: $userId}) WHERE m.tier IN $tiers
RETURN m.id AS id, m.content AS content, m.embedding AS embedding
"""

# Every node a user owns (the labels a user's deletion removes, and the user), without the
# bookkeeping background writers add after an answer (access counts; audit events are not read)
# or the vectors (made from the text).
TENANT_STATE = """
UNWIND $users AS uid
CALL (uid) {
  MATCH (n:Memory {userId: uid}) RETURN n
  UNION ALL MATCH (n:Entity {userId: uid}) RETURN n
  UNION ALL MATCH (n:Turn {userId: uid}) RETURN n
  UNION ALL MATCH (n:Session {userId: uid}) RETURN n
  UNION ALL MATCH (n:Project {userId: uid}) RETURN n
  UNION ALL MATCH (n:Task {userId: uid}) RETURN n
  UNION ALL MATCH (n:ApiKey {userId: uid}) RETURN n
  UNION ALL MATCH (n:User {id: uid}) RETURN n
}
RETURN elementId(n) AS eid, labels(n) AS labels,
       n {.*, embedding: null, sketch: null, accessCount: null, lastAccessedAt: null} AS props,
       [(n)-[r]->(m) | [type(r), elementId(m), properties(r)]] AS out
"""

# The store's totals, from the count store: another user's nodes, a relationship anywhere.
STORE_TOTALS = """
CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH (a:AuditEvent) RETURN count(a) AS audit }
CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships }
RETURN nodes - audit AS nodes, relationships
"""

# Every memory in the store, of whatever user (from the count store).
MEMORY_TOTAL = "MATCH (m:Memory) RETURN count(m) AS memories"


def memory_counts(tx: ManagedTransaction, user_ids: Sequence[str], skip_projects: str | None = None) -> dict[str, int]:
    """Memories per user, those of projects whose id starts with ``skip_projects`` left out."""
    result = tx.run(MEMORY_COUNTS, userIds=list(user_ids), skipProjects=skip_projects)
    return {r["userId"]: r["n"] for r in result}


def projects_named(tx: ManagedTransaction, user_id: str, prefix: str) -> list[str]:
    return [r["projectId"] for r in tx.run(PROJECTS_NAMED, userId=user_id, prefix=prefix)]


def memories_by_id(tx: ManagedTransaction, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Whoever owns them: a write acknowledged to one user must not turn up as another's."""
    return tx.run(MEMORIES_BY_ID, ids=list(ids)).data()


def project_memory_count(tx: ManagedTransaction, user_id: str, project_id: str) -> int:
    return tx.run(PROJECT_MEMORY_COUNT, userId=user_id, projectId=project_id).single(strict=True)["n"]


def active_memories(tx: ManagedTransaction, user_id: str) -> list[dict[str, Any]]:
    return tx.run(ACTIVE_MEMORIES, userId=user_id).data()


def owner_vectors(tx: ManagedTransaction, user_id: str, tiers: Sequence[str]) -> list[dict[str, Any]]:
    return tx.run(OWNER_VECTORS, userId=user_id, tiers=list(tiers)).data()


def tenant_state(tx: ManagedTransaction, users: Sequence[str]) -> list[dict[str, Any]]:
    return tx.run(TENANT_STATE, users=list(users)).data()


def store_totals(tx: ManagedTransaction) -> tuple[int, int]:
    """(nodes other than audit events, relationships)."""
    record = tx.run(STORE_TOTALS).single(strict=True)
    return record["nodes"], record["relationships"]


def memory_total(tx: ManagedTransaction) -> int:
    return tx.run(MEMORY_TOTAL).single(strict=True)["memories"]


# The JVM's heap in use, and the page cache Neo4j was given (what it holds of the store is at most that).
HEAP = """
CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes
WITH attributes.HeapMemoryUsage.value.properties AS heap
RETURN heap.used AS heapUsedBytes, heap.max AS heapMaxBytes
"""
PAGE_CACHE = "SHOW SETTINGS YIELD name, value WHERE name = 'server.memory.pagecache.size' RETURN value AS pageCache"


def server_memory(tx: ManagedTransaction) -> dict[str, Any]:
    return {**tx.run(HEAP).single(strict=True).data(), **tx.run(PAGE_CACHE).single(strict=True).data()}
