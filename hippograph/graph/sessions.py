"""Cypher for sessions: start, read, and the eviction of the volatile tier at the end."""

from __future__ import annotations

from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph.vocabulary import in_lifecycle

START_SESSION = """
MERGE (user:User {id: $userId})
  ON CREATE SET user.createdAt = datetime()
MERGE (session:Session {userId: $userId, id: $sessionId})
  ON CREATE SET session.startedAt = datetime($at), session.status = 'active', session.projectId = $projectId
MERGE (user)-[:HAS_SESSION]->(session)
WITH session
CALL (session) {
  WITH session WHERE session.projectId IS NOT NULL
  MERGE (project:Project {userId: $userId, id: session.projectId})
  MERGE (session)-[:IN_PROJECT]->(project)
}
RETURN session {.id, .projectId, .status, startedAt: toString(session.startedAt)} AS session,
       session.projectId = $projectId OR (session.projectId IS NULL AND $projectId IS NULL) AS sameProject
"""

GET_SESSION = """
MATCH (session:Session {userId: $userId, id: $sessionId})
RETURN session {.id, .projectId, .status,
                 startedAt: toString(session.startedAt), endedAt: toString(session.endedAt)} AS session
"""

# What leaves with the session: its volatile memories (with accesses, for promotion) and its turns. A
# stored item stays until its caller deletes it.
SESSION_MEMORIES = f"""
MATCH (m:Memory {{userId: $userId, tier: 'SESSION', sessionId: $sessionId}})
WHERE m.archived = false AND {in_lifecycle("m")}
RETURN m.id AS id, m.content AS content, m.kind AS kind, m.accessCount AS accessCount,
       m.relevance AS relevance, m.attributes AS attributes, toString(m.createdAt) AS createdAt
ORDER BY m.createdAt
"""

DELETE_TURNS = """
MATCH (turn:Turn {userId: $userId, sessionId: $sessionId})
DETACH DELETE turn
RETURN count(*) AS deleted
"""

END_SESSION = """
MATCH (session:Session {userId: $userId, id: $sessionId})
SET session.status = 'ended', session.endedAt = datetime($at)
WITH session
OPTIONAL MATCH (session)-[:HAS_TASK]->(task)
DETACH DELETE task
RETURN session.id AS id
"""


def start_session(
    tx: ManagedTransaction, user_id: str, session_id: str, project_id: str | None, at: str
) -> dict[str, Any]:
    record = tx.run(START_SESSION, userId=user_id, sessionId=session_id, projectId=project_id, at=at).single(
        strict=True
    )
    return {**record["session"], "sameProject": record["sameProject"]}


def get_session(tx: ManagedTransaction, user_id: str, session_id: str) -> dict[str, Any] | None:
    record = tx.run(GET_SESSION, userId=user_id, sessionId=session_id).single()
    return dict(record["session"]) if record else None


def session_memories(tx: ManagedTransaction, user_id: str, session_id: str) -> list[dict[str, Any]]:
    return [dict(r) for r in tx.run(SESSION_MEMORIES, userId=user_id, sessionId=session_id)]


def delete_turns(tx: ManagedTransaction, user_id: str, session_id: str) -> int:
    return int(tx.run(DELETE_TURNS, userId=user_id, sessionId=session_id).single(strict=True)["deleted"])


def end_session(tx: ManagedTransaction, user_id: str, session_id: str, at: str) -> None:
    tx.run(END_SESSION, userId=user_id, sessionId=session_id, at=at).consume()
