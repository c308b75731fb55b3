"""Cypher for API keys: ``(:User)-[:HAS_API_KEY]->(:ApiKey {id, hash, userId, role, revoked})``.

Only the SHA-256 of a key's secret is stored; the lookup goes through the
``api_key_hash`` uniqueness constraint's index.
"""

from __future__ import annotations

from typing import Any

from neo4j import ManagedTransaction, Session

KEY_FIELDS = (
    "id: key.id, userId: key.userId, role: key.role, revoked: key.revoked, "
    "createdAt: key.createdAt, revokedAt: key.revokedAt"
)

CREATE_KEY = f"""
MERGE (user:User {{id: $userId}})
  ON CREATE SET user.createdAt = datetime()
CREATE (key:ApiKey {{id: $id, hash: $hash, userId: $userId, role: $role, revoked: false, createdAt: datetime()}})
CREATE (user)-[:HAS_API_KEY]->(key)
RETURN key {{ {KEY_FIELDS} }} AS key
"""

FIND_ACTIVE_KEY = """
MATCH (key:ApiKey {hash: $hash})
WHERE key.revoked = false
RETURN key.id AS id, key.userId AS userId, key.role AS role
"""

# The keys open WebSockets authenticated with, checked together: a key missing here went with its user.
KEY_STATES = """
MATCH (key:ApiKey)
WHERE key.id IN $ids
RETURN key.id AS id, key.revoked AS revoked
"""

LIST_KEYS = f"""
MATCH (key:ApiKey)
WHERE $userId IS NULL OR key.userId = $userId
RETURN key {{ {KEY_FIELDS} }} AS key
ORDER BY key.createdAt, key.id
"""

REVOKE_KEY = f"""
MATCH (key:ApiKey {{id: $id}})
SET key.revoked = true, key.revokedAt = coalesce(key.revokedAt, datetime())
RETURN key {{ {KEY_FIELDS} }} AS key
"""


def create_key(tx: ManagedTransaction, key_id: str, key_hash: str, user_id: str, role: str) -> dict[str, Any]:
    return dict(tx.run(CREATE_KEY, id=key_id, hash=key_hash, userId=user_id, role=role).single(strict=True)["key"])


def find_active_key(session: Session, key_hash: str) -> dict[str, Any] | None:
    """One auto-commit read (see ``hippograph.memory.keys.authenticate``)."""
    record = session.run(FIND_ACTIVE_KEY, hash=key_hash).single()
    return dict(record) if record else None


def key_states(session: Session, key_ids: list[str]) -> dict[str, bool]:
    """Whether each of the keys that still exist is revoked; one auto-commit read, like ``find_active_key``."""
    return {r["id"]: bool(r["revoked"]) for r in session.run(KEY_STATES, ids=key_ids)}


def list_keys(tx: ManagedTransaction, user_id: str | None) -> list[dict[str, Any]]:
    return [dict(r["key"]) for r in tx.run(LIST_KEYS, userId=user_id)]


def revoke_key(tx: ManagedTransaction, key_id: str) -> dict[str, Any] | None:
    record = tx.run(REVOKE_KEY, id=key_id).single()
    return dict(record["key"]) if record else None
