"""Cypher for forgetting entities, turns, sessions, projects and whole users (memories:
``memories.DELETE_MEMORIES``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction


def erasing(label: str, which: str) -> str:
    """The statement that erases the caller's ``label`` nodes ``which`` names (a condition on ``n``), with
    their relationships, and says how many went: entities, turns and projects are erased alike."""
    return f"""
MATCH (n:{label} {{userId: $userId}})
WHERE {which}
DETACH DELETE n
RETURN count(*) AS deleted
"""


def _erase(tx: ManagedTransaction, statement: str, **parameters: Any) -> int:
    return int(tx.run(statement, **parameters).single(strict=True)["deleted"])


RECORDING_MEMORIES = """
MATCH (e:Entity {id: $id, userId: $userId})
OPTIONAL MATCH (m:Memory)-[:RECORDS]->(e)
RETURN e.id AS id, collect(m.id) AS memoryIds
"""

DELETE_ENTITY = erasing("Entity", "n.id = $id")

# A turn and what carries its words: a summary the turns it covers (and the summaries it folded in), and
# the memories extracted from any of these; ``summarisedIn``, the summary covering the turn, if one does.
TURN_TO_FORGET = """
MATCH (session:Session {userId: $userId})-[:HAS_TURN]->(turn:Turn {userId: $userId, id: $id})
OPTIONAL MATCH (summary:Turn {userId: $userId})-[:SUMMARISES]->(turn)
WITH session, turn, summary,
     [turn] + COLLECT { MATCH (turn)-[:SUMMARISES*]->(covered:Turn) RETURN DISTINCT covered } AS turns
RETURN session.id AS sessionId, session.projectId AS projectId, summary.id AS summarisedIn,
       [t IN turns | t.id] AS turnIds,
       COLLECT {
         UNWIND turns AS t MATCH (m:Memory {userId: $userId})-[:DERIVED_FROM]->(t) RETURN DISTINCT m.id
       } AS memoryIds
"""

DELETE_TURNS = erasing("Turn", "n.id IN $ids")

SESSION_TO_FORGET = """
OPTIONAL MATCH (session:Session {userId: $userId, id: $sessionId})
RETURN session IS NOT NULL AS exists, session.projectId AS projectId
"""

PROJECT_TO_FORGET = """
OPTIONAL MATCH (project:Project {userId: $userId, id: $projectId})
RETURN project IS NOT NULL AS exists,
       COLLECT { MATCH (session:Session {userId: $userId, projectId: $projectId}) RETURN session.id } AS sessionIds
"""

# What sessions (and a project) own: their memories, whatever derives from their sessions — facts
# and promoted memories, found by provenance in whichever tier they are now, or by the turns they
# still point at — and the long-term rules generalised from any of these, which carry a member's text
# (consolidation generalises again from what stays).
SCOPE_MEMORIES = """
MATCH (m:Memory {userId: $userId})
WHERE m.sessionId IN $sessionIds
   OR any(source IN coalesce(m.sourceSessions, []) WHERE source IN $sessionIds)
   OR ($projectId IS NOT NULL AND m.projectId = $projectId)
   OR EXISTS { MATCH (m)-[:DERIVED_FROM]->(turn:Turn) WHERE turn.sessionId IN $sessionIds }
WITH collect(m) AS owned
RETURN [m IN owned | m.id] + COLLECT {
  UNWIND owned AS m
  MATCH (rule:Memory {userId: $userId, tier: 'LONG_TERM', kind: 'rule'})-[:RELATED_TO]-(m)
  WHERE NOT rule IN owned
  RETURN DISTINCT rule.id
} AS ids
"""

# Entities of the project's scope that no memory mentions or records any more (its memories are gone by now).
DELETE_PROJECT_ENTITIES = """
MATCH (e:Entity {userId: $userId, scopeKey: $projectId})
WHERE NOT EXISTS { MATCH (:Memory)-[:MENTIONS|RECORDS]->(e) }
WITH collect(e) AS bare
WITH bare, [e IN bare | e.id] AS ids
FOREACH (e IN bare | DETACH DELETE e)
RETURN ids
"""

DELETE_PROJECT = erasing("Project", "n.id = $projectId")

# The nodes a user owns (their node aside): counted for the progress of forgetting the user, and deleted.
USER_NODES = """
MATCH (n)
WHERE n.userId = $userId
  AND (n:Memory OR n:MemoryVersion OR n:Entity OR n:Turn OR n:Session OR n:Project OR n:Task OR n:ApiKey)
"""

COUNT_USER_NODES = USER_NODES + "RETURN count(n) AS nodes"

# Everything a user owns, in bounded batches so a large user does not need one huge transaction;
# each batch says how many of each kind went (a task is part of its session's document).
DELETE_USER_BATCH = (
    USER_NODES
    + """WITH n LIMIT $batch
WITH collect(n) AS doomed
WITH doomed, {
  memories: size([n IN doomed WHERE n:Memory]), entities: size([n IN doomed WHERE n:Entity]),
  turns: size([n IN doomed WHERE n:Turn]), sessions: size([n IN doomed WHERE n:Session]),
  projects: size([n IN doomed WHERE n:Project]), apiKeys: size([n IN doomed WHERE n:ApiKey])
} AS counts,
  // For the receipt: each node, and each relationship once (one between two doomed nodes counts once).
  [n IN doomed | {id: n.id, labels: labels(n)}] AS removed,
  COLLECT { UNWIND doomed AS n MATCH (n)-[r]-() WITH DISTINCT r RETURN type(r) } AS relationships
FOREACH (n IN doomed | DETACH DELETE n)
RETURN size(doomed) AS deleted, counts, removed, relationships
"""
)

DELETE_USER_NODE = """
MATCH (user:User {id: $userId})
WITH user, COLLECT { MATCH (user)-[r]-() RETURN type(r) } AS relationships
DETACH DELETE user
RETURN count(*) AS deleted, collect(relationships)[0] AS relationships
"""

# The user's past operations go with the user; the deletion itself is logged afresh after this.
DELETE_USER_AUDIT_BATCH = """
MATCH (event:AuditEvent {userId: $userId})
WITH event LIMIT $batch
WITH collect(event) AS doomed
WITH doomed, [event IN doomed | event.id] AS ids
FOREACH (event IN doomed | DELETE event)
RETURN ids
"""


def recording_memories(tx: ManagedTransaction, user_id: str, entity_id: str) -> list[str] | None:
    """Ids of the memories that record the entity, or None when the user has no such entity."""
    record = tx.run(RECORDING_MEMORIES, userId=user_id, id=entity_id).single()
    return list(record["memoryIds"]) if record else None


def delete_entity(tx: ManagedTransaction, user_id: str, entity_id: str) -> int:
    return _erase(tx, DELETE_ENTITY, userId=user_id, id=entity_id)


def turn_to_forget(tx: ManagedTransaction, user_id: str, turn_id: str) -> dict[str, Any] | None:
    """The turn's ``sessionId`` and ``projectId``, the ``summarisedIn`` summary covering it (or None), the
    ``turnIds`` that go with it (its own first) and the ``memoryIds`` derived from them; None when the user
    has no such turn."""
    record = tx.run(TURN_TO_FORGET, userId=user_id, id=turn_id).single()
    return dict(record) if record else None


def delete_turns(tx: ManagedTransaction, user_id: str, turn_ids: Sequence[str]) -> int:
    return _erase(tx, DELETE_TURNS, userId=user_id, ids=list(turn_ids))


def session_to_forget(tx: ManagedTransaction, user_id: str, session_id: str) -> dict[str, Any]:
    """``exists`` (the session node) and the session's ``projectId``."""
    return dict(tx.run(SESSION_TO_FORGET, userId=user_id, sessionId=session_id).single(strict=True))


def project_to_forget(tx: ManagedTransaction, user_id: str, project_id: str) -> dict[str, Any]:
    """``exists`` (the project node) and the ``sessionIds`` of the project's sessions."""
    return dict(tx.run(PROJECT_TO_FORGET, userId=user_id, projectId=project_id).single(strict=True))


def scope_memories(
    tx: ManagedTransaction, user_id: str, session_ids: Sequence[str], project_id: str | None
) -> list[str]:
    """Ids of the memories the sessions (and the project, when given) own or that derive from them."""
    record = tx.run(SCOPE_MEMORIES, userId=user_id, sessionIds=list(session_ids), projectId=project_id).single(
        strict=True
    )
    return list(record["ids"])


def delete_project_entities(tx: ManagedTransaction, user_id: str, project_id: str) -> list[str]:
    return list(tx.run(DELETE_PROJECT_ENTITIES, userId=user_id, projectId=project_id).single(strict=True)["ids"])


def delete_project(tx: ManagedTransaction, user_id: str, project_id: str) -> int:
    return _erase(tx, DELETE_PROJECT, userId=user_id, projectId=project_id)


def count_user_nodes(tx: ManagedTransaction, user_id: str) -> int:
    return int(tx.run(COUNT_USER_NODES, userId=user_id).single(strict=True)["nodes"])


def delete_user_batch(tx: ManagedTransaction, user_id: str, batch: int = 5000) -> dict[str, Any]:
    """Delete up to ``batch`` of the user's nodes: how many of each kind went, the nodes (``removed``: id,
    labels) and the types of the relationships that went with them; empty when none was left."""
    record = tx.run(DELETE_USER_BATCH, userId=user_id, batch=batch).single(strict=True)
    if not record["deleted"]:
        return {}
    return {
        **record["counts"],
        "removed": [dict(n) for n in record["removed"]],
        "relationships": record["relationships"],
    }


def delete_user_node(tx: ManagedTransaction, user_id: str) -> tuple[int, list[str]]:
    """Delete the user's node: 1 or 0, and the types of the relationships that went with it."""
    record = tx.run(DELETE_USER_NODE, userId=user_id).single()
    return (int(record["deleted"]), list(record["relationships"] or [])) if record else (0, [])


def delete_user_audit_batch(tx: ManagedTransaction, user_id: str, batch: int = 5000) -> list[str]:
    """Delete up to ``batch`` of the user's audit events; their ids."""
    return list(tx.run(DELETE_USER_AUDIT_BATCH, userId=user_id, batch=batch).single(strict=True)["ids"])
