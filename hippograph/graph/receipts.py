"""Cypher for erasure receipts: what an erasure is about to remove, what of it is still there, and what
of an erased user remains anywhere.

An erasure of a memory, an entity, a turn, a session or a project removes its seeds (the nodes it names) and,
by the rules of ``hippograph.graph.forget`` and ``memories.DELETE_MEMORIES``, what hangs from them:
versions, summaries only they supported, entities nothing else mentions, a fix only an erased error
held, turns, tasks. All of it lies within two hops of a seed over the user's own nodes. So the receipt
reads that neighbourhood before the erasure and again after, in the same transaction: what is gone is
exactly what the erasure removed (a node or relationship nothing deleted is still there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import store_model

# The labels that say what a node is, first match wins (a decision's memory is a Memory, not a Decision).
KINDS = ("Memory", "MemoryVersion", "Entity", "Turn", "Session", "Project", "Task", "ApiKey", "AuditEvent", "User")

# The erasure's seeds and every node of the user within two hops of one, through the user's nodes only
# (the User node holds no userId, so the neighbourhood never spreads through it to the whole user).
NEIGHBOURHOOD = """
CALL () {
    UNWIND $memoryIds AS id MATCH (n:Memory {id: id, userId: $userId}) RETURN n
  UNION
    UNWIND $entityIds AS id MATCH (n:Entity {id: id, userId: $userId}) RETURN n
  UNION
    UNWIND $turnIds AS id MATCH (n:Turn {id: id, userId: $userId}) RETURN n
  UNION
    UNWIND $sessionIds AS id MATCH (n:Session {id: id, userId: $userId}) RETURN n
  UNION
    UNWIND $sessionIds AS id MATCH (n:Turn {userId: $userId, sessionId: id}) RETURN n
  UNION
    MATCH (n:Project {id: $projectId, userId: $userId}) RETURN n
  UNION
    MATCH (n:Entity {userId: $userId, scopeKey: $projectId}) RETURN n
}
WITH collect(n) AS seeds
CALL (seeds) {
  UNWIND seeds AS seed
  MATCH path = (seed)-[*1..2]-(near)
  WHERE all(node IN nodes(path) WHERE node.userId = $userId)
  RETURN collect(DISTINCT near) AS near
}
UNWIND seeds + near AS n
WITH collect(DISTINCT n) AS region
RETURN [n IN region | {element: elementId(n), id: n.id, labels: labels(n)}] AS nodes,
       COLLECT { UNWIND region AS n MATCH (n)-[r]-() RETURN DISTINCT {element: elementId(r), type: type(r)} }
         AS relationships
"""

STILL_NODES = """
UNWIND $elements AS element
MATCH (n) WHERE elementId(n) = element
RETURN collect(element) AS still
"""

STILL_RELATIONSHIPS = """
UNWIND $elements AS element
MATCH ()-[r]->() WHERE elementId(r) = element
RETURN collect(element) AS still
"""

# A receipt's check: of its ids, those still held by a node of the user (or by a version of one).
REMAINING_IDS = """
UNWIND $ids AS id
CALL (id) {
    MATCH (n:Memory {id: id}) WHERE n.userId = $userId RETURN n
  UNION
    MATCH (n:MemoryVersion {userId: $userId, id: id}) RETURN n
  UNION
    MATCH (n:Entity {id: id}) WHERE n.userId = $userId RETURN n
  UNION
    MATCH (n:Turn {id: id}) WHERE n.userId = $userId RETURN n
  UNION
    MATCH (n:Session {userId: $userId, id: id}) RETURN n
  UNION
    MATCH (n:Project {userId: $userId, id: id}) RETURN n
  UNION
    MATCH (n:ApiKey {id: id}) WHERE n.userId = $userId RETURN n
}
RETURN collect(DISTINCT id) AS remaining
"""

# After a user's erasure: anything at all that still carries the user — any node with their userId
# but the tombstone, their User node, a relationship with their userId (knowledge-graph edges), an
# entry of the full-text indexes (each indexes userId; a phrase may match another id holding the same
# words, so each hit is checked), a vector of the vector index (searched with the user as its filter).
USER_REMAINS = """CYPHER 25
CALL () {
  MATCH (n) WHERE n.userId = $userId AND NOT (n:AuditEvent AND n.operation = 'forget_user')
  RETURN count(n) AS nodes
}
CALL () {
  MATCH (user:User {id: $userId}) RETURN count(user) AS users
}
CALL () {
  MATCH ()-[r]->() WHERE r.userId = $userId RETURN count(r) AS relationships
}
CALL () {
  CALL db.index.fulltext.queryNodes('memory_text', $ownerQuery) YIELD node
  WITH node WHERE node.userId = $userId RETURN count(node) AS memoryText
}
CALL () {
  CALL db.index.fulltext.queryNodes('entity_name', $ownerQuery) YIELD node
  WITH node WHERE node.userId = $userId RETURN count(node) AS entityName
}
CALL () {
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX __VECTOR_INDEX__ FOR $probe WHERE m.userId = $userId LIMIT 1) SCORE AS score
  RETURN count(m) AS vectors
}
RETURN nodes, users, relationships, memoryText, entityName, vectors
"""


def neighbourhood(
    tx: ManagedTransaction,
    user_id: str,
    *,
    memory_ids: Sequence[str] = (),
    entity_ids: Sequence[str] = (),
    turn_ids: Sequence[str] = (),
    session_ids: Sequence[str] = (),
    project_id: str | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The nodes (element, id, labels) and relationships (element, type) an erasure of these seeds may remove."""
    record = tx.run(
        NEIGHBOURHOOD,
        userId=user_id,
        memoryIds=list(memory_ids),
        entityIds=list(entity_ids),
        turnIds=list(turn_ids),
        sessionIds=list(session_ids),
        projectId=project_id,
    ).single(strict=True)
    return [dict(n) for n in record["nodes"]], [dict(r) for r in record["relationships"]]


def still_there(
    tx: ManagedTransaction, nodes: Sequence[str], relationships: Sequence[str]
) -> tuple[set[str], set[str]]:
    """Of these element ids, the nodes and the relationships that still exist."""
    kept_nodes = tx.run(STILL_NODES, elements=list(nodes)).single(strict=True)["still"]
    kept_relationships = tx.run(STILL_RELATIONSHIPS, elements=list(relationships)).single(strict=True)["still"]
    return set(kept_nodes), set(kept_relationships)


def remaining_ids(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> list[str]:
    return sorted(tx.run(REMAINING_IDS, userId=user_id, ids=list(ids)).single(strict=True)["remaining"])


def user_remains(tx: ManagedTransaction, user_id: str, owner_query: str, probe: Sequence[float]) -> dict[str, int]:
    """What of the user is anywhere in the store, by where it was found (0 each when nothing is)."""
    statement = USER_REMAINS.replace("__VECTOR_INDEX__", store_model.current_vectors(tx).index)
    record = tx.run(statement, userId=user_id, ownerQuery=owner_query, probe=list(probe)).single(strict=True)
    # A Record iterates its values, not its keys (ruff's SIM118 would say otherwise).
    return {key: int(record[key]) for key in record.keys()}  # noqa: SIM118


def kind(labels: Sequence[str]) -> str:
    """The label a receipt counts a node under."""
    return next((label for label in KINDS if label in labels), labels[0] if labels else "")
