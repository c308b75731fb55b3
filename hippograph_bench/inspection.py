"""The benchmarks' own Cypher: what they check a store by, from outside its operations.

Each answers a question a benchmark asks of the store it built or served — how many memories a
user owns, whether an acknowledged write is there, a tenant's vectors for an exact scan, what one
recall statement costs under PROFILE — always parameterised, each statement named here once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from neo4j import Driver, ManagedTransaction

from hippograph.graph.recall import RecallQuery

MEMORY_COUNTS = """
UNWIND $userIds AS uid
RETURN uid AS userId, COUNT {
  MATCH (m:Memory {userId: uid})
  WHERE $skipProjects IS NULL OR m.projectId IS NULL OR NOT m.projectId STARTS WITH $skipProjects
} AS n
"""

# What a user's memories say of themselves (their JSON attributes), those of projects named $skipProjects… left out.
MEMORY_ATTRIBUTES = """
MATCH (m:Memory {userId: $userId})
WHERE m.projectId IS NULL OR NOT m.projectId STARTS WITH $skipProjects
RETURN m.attributes AS attributes
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

TURNS_BY_ID = """
UNWIND $ids AS id
MATCH (t:Turn {id: id})
RETURN t.id AS id, t.userId AS userId, t.content AS content
"""

PROJECT_MEMORY_COUNT = "RETURN COUNT { MATCH (m:Memory {userId: $userId, projectId: $projectId}) } AS n"

ACTIVE_MEMORIES = """
MATCH (m:Memory {userId: $userId})
WHERE m.archived = false
RETURN m.id AS id, m.attributes AS attributes, coalesce(m.summaryTokens, m.tokens) AS tokens
"""

OWNER_VECTORS = """
MATCH (m:Memory {userId: $userId}) WHERE m.tier IN $tiers
RETURN m.id AS id, m.embedding AS embedding
"""

# Every memory in the store, of whatever user (from the count store).
MEMORY_TOTAL = "MATCH (m:Memory) RETURN count(m) AS memories"


def memory_counts(tx: ManagedTransaction, user_ids: Sequence[str], skip_projects: str | None = None) -> dict[str, int]:
    """Memories per user, those of projects whose id starts with ``skip_projects`` left out."""
    result = tx.run(MEMORY_COUNTS, userIds=list(user_ids), skipProjects=skip_projects)
    return {r["userId"]: r["n"] for r in result}


def memory_attributes(tx: ManagedTransaction, user_id: str, skip_projects: str) -> list[str | None]:
    return [r["attributes"] for r in tx.run(MEMORY_ATTRIBUTES, userId=user_id, skipProjects=skip_projects)]


def projects_named(tx: ManagedTransaction, user_id: str, prefix: str) -> list[str]:
    return [r["projectId"] for r in tx.run(PROJECTS_NAMED, userId=user_id, prefix=prefix)]


def memories_by_id(tx: ManagedTransaction, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Whoever owns them: a write acknowledged to one user must not turn up as another's."""
    return tx.run(MEMORIES_BY_ID, ids=list(ids)).data()


def turns_by_id(tx: ManagedTransaction, ids: Sequence[str]) -> list[dict[str, Any]]:
    return tx.run(TURNS_BY_ID, ids=list(ids)).data()


def project_memory_count(tx: ManagedTransaction, user_id: str, project_id: str) -> int:
    return int(tx.run(PROJECT_MEMORY_COUNT, userId=user_id, projectId=project_id).single(strict=True)["n"])


def active_memories(tx: ManagedTransaction, user_id: str) -> list[dict[str, Any]]:
    return tx.run(ACTIVE_MEMORIES, userId=user_id).data()


def owner_vectors(tx: ManagedTransaction, user_id: str, tiers: Sequence[str]) -> list[dict[str, Any]]:
    return tx.run(OWNER_VECTORS, userId=user_id, tiers=list(tiers)).data()


def memory_total(tx: ManagedTransaction) -> int:
    return int(tx.run(MEMORY_TOTAL).single(strict=True)["memories"])


# The JVM's heap in use, and the page cache Neo4j was given (what it holds of the store is at most that).
HEAP = """
CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes
WITH attributes.HeapMemoryUsage.value.properties AS heap
RETURN heap.used AS heapUsedBytes, heap.max AS heapMaxBytes
"""
PAGE_CACHE = "SHOW SETTINGS YIELD name, value WHERE name = 'server.memory.pagecache.size' RETURN value AS pageCache"


def server_memory(tx: ManagedTransaction) -> dict[str, Any]:
    return {**tx.run(HEAP).single(strict=True).data(), **tx.run(PAGE_CACHE).single(strict=True).data()}


def profiled(driver: Driver, database: str, query: RecallQuery) -> dict[str, Any]:
    """One recall statement run under PROFILE: total db hits, rows, and the operators that cost most."""
    with driver.session(database=database, default_access_mode="READ") as session:
        result = session.run(query.statement().replace("CYPHER 25\n", "CYPHER 25 PROFILE\n", 1), query.parameters())
        rows = len(list(result))
        summary = result.consume()
    operators: list[dict[str, Any]] = []

    def walk(plan: Mapping[str, Any]) -> None:
        operators.append(
            {
                "operator": plan.get("operatorType"),
                "dbHits": plan.get("dbHits", 0),
                "rows": plan.get("rows", 0),
                "details": (plan.get("args") or {}).get("Details", ""),
            }
        )
        for child in plan.get("children", []):
            walk(child)

    walk(summary.profile or {})
    return {
        "rows": rows,
        "dbHits": sum(op["dbHits"] for op in operators),
        "operators": sorted(operators, key=lambda op: op["dbHits"], reverse=True),
    }
