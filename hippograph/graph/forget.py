"""Cypher for forgetting entities and whole users (memories: ``memories.DELETE_MEMORIES``)."""

from __future__ import annotations

from neo4j import ManagedTransaction

RECORDING_MEMORIES = """
MATCH (e:Entity {id: $id, userId: $userId})
OPTIONAL MATCH (m:Memory)-[:RECORDS]->(e)
RETURN e.id AS id, collect(m.id) AS memoryIds
"""

DELETE_ENTITY = """
MATCH (e:Entity {id: $id, userId: $userId})
DETACH DELETE e
RETURN count(*) AS deleted
"""

# Everything a user owns, in bounded batches so a large user does not need one huge transaction.
DELETE_USER_BATCH = """
MATCH (n)
WHERE n.userId = $userId AND (n:Memory OR n:Entity OR n:Turn OR n:Session OR n:Project OR n:Task OR n:ApiKey)
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
"""

DELETE_USER_NODE = """
MATCH (user:User {id: $userId})
DETACH DELETE user
RETURN count(*) AS deleted
"""

# The user's past operations go with the user; the deletion itself is logged afresh after this.
DELETE_USER_AUDIT_BATCH = """
MATCH (event:AuditEvent {userId: $userId})
WITH event LIMIT $batch
DELETE event
RETURN count(*) AS deleted
"""


def recording_memories(tx: ManagedTransaction, user_id: str, entity_id: str) -> list[str] | None:
    """Ids of the memories that record the entity, or None when the user has no such entity."""
    record = tx.run(RECORDING_MEMORIES, userId=user_id, id=entity_id).single()
    return list(record["memoryIds"]) if record else None


def delete_entity(tx: ManagedTransaction, user_id: str, entity_id: str) -> int:
    return int(tx.run(DELETE_ENTITY, userId=user_id, id=entity_id).single()["deleted"])


def delete_user_batch(tx: ManagedTransaction, user_id: str, batch: int = 5000) -> int:
    return int(tx.run(DELETE_USER_BATCH, userId=user_id, batch=batch).single()["deleted"])


def delete_user_node(tx: ManagedTransaction, user_id: str) -> int:
    return int(tx.run(DELETE_USER_NODE, userId=user_id).single()["deleted"])


def delete_user_audit_batch(tx: ManagedTransaction, user_id: str, batch: int = 5000) -> int:
    return int(tx.run(DELETE_USER_AUDIT_BATCH, userId=user_id, batch=batch).single()["deleted"])
