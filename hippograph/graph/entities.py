"""Cypher for the knowledge graph: entities, the edges between them, mentions.

Every statement matches nodes by ``userId`` as well as id, so an edge between
two users' nodes cannot be created: the other user's node is simply not found.
Relationship types come from the ``EdgeType`` allow-list, never from input text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph.vocabulary import EdgeType

ENTITY_FIELDS = """
  id: e.id, name: e.name, type: e.type, userId: e.userId, scopeKey: e.scopeKey,
  createdAt: e.createdAt, validFrom: e.validFrom, validUntil: e.validUntil, attributes: e.attributes
"""

# Deterministic dedup: the identity is (user, scope, type, normalised name). A row that only opens a
# sentence (``opens``) links to an entity the user has and creates none; the match is read before any
# row is merged, so such a row links to a name the same write makes only through its key.
UPSERT_ENTITIES = """
UNWIND $entities AS row
OPTIONAL MATCH (known:Entity {userId: $userId, scopeKey: row.scopeKey, type: row.type, normName: row.normName})
WITH row WHERE NOT row.opens OR known IS NOT NULL
MERGE (e:Entity {userId: $userId, scopeKey: row.scopeKey, type: row.type, normName: row.normName})
  ON CREATE SET e.id = row.id, e.name = row.name, e.createdAt = datetime(), e.validFrom = datetime(),
                e.recordedAt = datetime(), e.attributes = row.attributes
SET e:$(row.type)
RETURN row.key AS key, e.id AS id
"""

MENTION = """
MATCH (m:Memory {id: $memoryId, userId: $userId})
UNWIND $entityIds AS entityId
MATCH (e:Entity {id: entityId, userId: $userId})
MERGE (m)-[:MENTIONS]->(e)
"""

MENTION_MANY = """
UNWIND $pairs AS pair
MATCH (m:Memory {id: pair.memoryId, userId: $userId})
MATCH (e:Entity {id: pair.entityId, userId: $userId})
MERGE (m)-[:MENTIONS]->(e)
"""

RECORDS = """
MATCH (m:Memory {id: $memoryId, userId: $userId}), (e:Entity {id: $entityId, userId: $userId})
MERGE (m)-[:RECORDS]->(e)
"""

LINK = """
MATCH (a:Entity {id: $fromId, userId: $userId}), (b:Entity {id: $toId, userId: $userId})
MERGE (a)-[r:$($type)]->(b)
  ON CREATE SET r.userId = $userId, r.createdAt = datetime(), r.note = $note
RETURN a.id AS fromId, b.id AS toId, type(r) AS type, r.note AS note
"""

UNLINK = """
MATCH (a:Entity {id: $fromId, userId: $userId})-[r]->(b:Entity {id: $toId, userId: $userId})
WHERE type(r) = $type
DELETE r
RETURN count(r) AS removed
"""

GET_ENTITIES = f"""
UNWIND $ids AS id
MATCH (e:Entity {{id: id, userId: $userId}})
RETURN e {{ {ENTITY_FIELDS} }} AS entity
"""

# Closing a fact: the entity and every memory recording it stop being active; both stay for history.
CLOSE_ENTITIES = """
UNWIND $ids AS id
MATCH (e:Entity {id: id, userId: $userId})
WHERE e.validUntil IS NULL
SET e.validUntil = datetime($at), e.closedAt = datetime()
WITH e
OPTIONAL MATCH (m:Memory)-[:RECORDS]->(e)
WHERE m.validUntil IS NULL
SET m.validUntil = datetime($at), m.closedAt = datetime()
RETURN collect(DISTINCT e.id) AS entities, collect(DISTINCT m.id) AS memories
"""

RECORDED_ENTITY = """
MATCH (:Memory {id: $memoryId, userId: $userId})-[:RECORDS]->(e:Entity)
RETURN e.id AS id
LIMIT 1
"""

ACTIVE_PREFERENCES = """
MATCH (e:Entity:UserPreference {userId: $userId, scopeKey: '~user'})
WHERE e.validUntil IS NULL AND e.id <> $keep AND e.name STARTS WITH $prefix
RETURN e.id AS id
"""


def recorded_entity(tx: ManagedTransaction, user_id: str, memory_id: str) -> str | None:
    record = tx.run(RECORDED_ENTITY, userId=user_id, memoryId=memory_id).single()
    return record["id"] if record else None


def active_preferences(tx: ManagedTransaction, user_id: str, prefix: str, keep: str | None) -> list[str]:
    return [r["id"] for r in tx.run(ACTIVE_PREFERENCES, userId=user_id, prefix=prefix, keep=keep)]


def upsert_entities(tx: ManagedTransaction, user_id: str, rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    """MERGE entities; rows carry key, id (used on create), name, normName, type, scopeKey, opens. Returns
    key → id, without the key of a row that opens a sentence and names no entity the user has."""
    if not rows:
        return {}
    return {r["key"]: r["id"] for r in tx.run(UPSERT_ENTITIES, userId=user_id, entities=list(rows))}


def mention(tx: ManagedTransaction, user_id: str, memory_id: str, entity_ids: Sequence[str]) -> None:
    if entity_ids:
        tx.run(MENTION, userId=user_id, memoryId=memory_id, entityIds=list(entity_ids)).consume()


def mention_many(tx: ManagedTransaction, user_id: str, pairs: Sequence[tuple[str, str]]) -> None:
    """(memory id, entity id) pairs, in one statement."""
    if pairs:
        tx.run(MENTION_MANY, userId=user_id, pairs=[{"memoryId": m, "entityId": e} for m, e in pairs]).consume()


def records(tx: ManagedTransaction, user_id: str, memory_id: str, entity_id: str) -> None:
    tx.run(RECORDS, userId=user_id, memoryId=memory_id, entityId=entity_id).consume()


def link(
    tx: ManagedTransaction, user_id: str, from_id: str, to_id: str, edge: EdgeType, note: str | None = None
) -> dict[str, Any] | None:
    """The edge, or None when either end is not one of the user's entities."""
    record = tx.run(LINK, userId=user_id, fromId=from_id, toId=to_id, type=EdgeType(edge).value, note=note).single()
    return dict(record) if record else None


def unlink(tx: ManagedTransaction, user_id: str, from_id: str, to_id: str, edge: EdgeType) -> int:
    record = tx.run(UNLINK, userId=user_id, fromId=from_id, toId=to_id, type=EdgeType(edge).value).single()
    return int(record["removed"]) if record else 0


def get_entities(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> list[dict[str, Any]]:
    return [r["entity"] for r in tx.run(GET_ENTITIES, userId=user_id, ids=list(ids))]


def close_entities(tx: ManagedTransaction, user_id: str, ids: Sequence[str], at: str) -> tuple[list[str], list[str]]:
    record = tx.run(CLOSE_ENTITIES, userId=user_id, ids=list(ids), at=at).single()
    return (list(record["entities"]), list(record["memories"])) if record else ([], [])
