"""Forgetting: a memory, an entity, or a whole user — with everything only they supported."""

from __future__ import annotations

from dataclasses import dataclass, field

from neo4j import ManagedTransaction

from hippograph.graph import forget as forget_cypher
from hippograph.graph import memories as memory_cypher
from hippograph.memory.errors import NotFound
from hippograph.services import Services


@dataclass
class Forgotten:
    memories: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)


def forget_memory(services: Services, user_id: str, memory_id: str) -> Forgotten:
    def write(tx: ManagedTransaction) -> Forgotten:
        memories, entities = memory_cypher.delete_memories(tx, user_id, [memory_id])
        if memory_id not in memories:
            raise NotFound(f"memory {memory_id} not found")
        services.audit.record_in(tx, user_id, "forget", memories + entities, "memory")
        return Forgotten(memories, entities)

    with services.driver.session(database=services.database) as session:
        return session.execute_write(write)


def forget_entity(services: Services, user_id: str, entity_id: str) -> Forgotten:
    """The entity, the memories that record it, and what only those supported; mentions elsewhere just lose the edge."""

    def write(tx: ManagedTransaction) -> Forgotten:
        recording = forget_cypher.recording_memories(tx, user_id, entity_id)
        if recording is None:
            raise NotFound(f"entity {entity_id} not found")
        memories, entities = memory_cypher.delete_memories(tx, user_id, recording)
        if entity_id not in entities:
            forget_cypher.delete_entity(tx, user_id, entity_id)
            entities.append(entity_id)
        services.audit.record_in(tx, user_id, "forget", memories + entities, "entity")
        return Forgotten(memories, entities)

    with services.driver.session(database=services.database) as session:
        return session.execute_write(write)


def forget_user(services: Services, user_id: str) -> int:
    """Delete every node the user owns, then the user; returns how many nodes went."""
    deleted = 0
    with services.driver.session(database=services.database) as session:
        while batch := session.execute_write(forget_cypher.delete_user_batch, user_id):
            deleted += batch
        deleted += session.execute_write(forget_cypher.delete_user_node, user_id)
        # The events of the user's past operations go with the user; the deletion itself stays traceable.
        while session.execute_write(forget_cypher.delete_user_audit_batch, user_id):
            pass
        session.execute_write(lambda tx: services.audit.record_in(tx, user_id, "forget_user", [user_id], f"{deleted} nodes"))
    return deleted
