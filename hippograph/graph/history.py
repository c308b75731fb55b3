"""Cypher for the store's history: two times on what changes, the versions an edit keeps, and reads as of a moment.

Every memory and entity carries two times:

- **valid time** — ``validFrom`` and ``validUntil``: when it held in the world (a memory's
  ``validFrom`` is its ``createdAt``, which an import may date in the past);
- **record time** — ``recordedAt``: when the store first held it, ``updatedAt``: when its current
  text was recorded, ``closedAt``: when the store recorded its ``validUntil``, ``archivedAt``: when
  consolidation or compression took it out of use.

An edit of a memory's text (``updateMemory``, compression's summary) first copies the memory as it
read into a ``(:MemoryVersion)`` hanging from it by ``HAD_VERSION``: the version keeps what recall and the
browse reads read (text, summary, vector, tokens, relevance), its ``recordedAt`` (when that text was
recorded) and ``supersededAt`` (when the edit replaced it). A version is not in the vector or
full-text index; it carries its memory's ``id`` and ``userId``, and forgetting the memory deletes it.

Each read takes ``$asOf`` (null: now). The fragments below read a node ``n`` as the store held it
then: recorded by then, not archived or closed by then; with ``$asOf`` null they are exactly the
filters the reads had before, so a read without it is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph.store_model import SLOT_PROPERTIES


def recorded_by(node: str) -> str:
    """``node`` was in the store at ``$asOf`` (always, without it)."""
    return f"($asOf IS NULL OR coalesce({node}.recordedAt, {node}.createdAt) <= $asOf)"


def archived_then(node: str) -> str:
    """``node`` was archived at ``$asOf`` (one archived at an unknown time counts as archived at any)."""
    return (
        f"CASE WHEN $asOf IS NULL THEN coalesce({node}.archived, false) "
        f"ELSE coalesce({node}.archivedAt <= $asOf, coalesce({node}.archived, false)) END"
    )


def closed_then(node: str) -> str:
    """``node`` was closed (``validUntil`` recorded) at ``$asOf``."""
    return (
        f"CASE WHEN $asOf IS NULL THEN {node}.validUntil IS NOT NULL "
        f"ELSE coalesce({node}.closedAt <= $asOf, {node}.validUntil IS NOT NULL) END"
    )


def visible(node: str) -> str:
    """``node`` was in use at ``$asOf``: recorded, neither archived nor closed."""
    return f"{recorded_by(node)} AND NOT ({archived_then(node)}) AND NOT ({closed_then(node)})"


# The version of `m` current at $asOf, as `version` (null without $asOf, or when m's text has not
# changed since): the one recorded by then and superseded after. Only a memory edited after $asOf
# has one to look for, so a read of the present walks no HAD_VERSION edge.
VERSION_THEN = """
OPTIONAL CALL (m) {
  WITH m WHERE $asOf IS NOT NULL AND m.updatedAt > $asOf
  MATCH (m)-[:HAD_VERSION]->(version:MemoryVersion)
  WHERE version.recordedAt <= $asOf AND version.supersededAt > $asOf
  RETURN version ORDER BY version.supersededAt LIMIT 1
}
"""

# What a version overrides of its memory when read as of its time (the browse reads' fields).
VERSION_FIELDS = """CASE WHEN version IS NULL THEN null ELSE version {
  .content, .summary, .tokens, .summaryTokens, .relevance, .attributes, recordedAt: version.recordedAt,
  supersededAt: version.supersededAt } END"""

# Before an edit of `m`'s text ($keepVersion): `m` as it read, kept as a version (its vector included: an
# as-of recall scores the text it had), recorded when the last version was superseded (or `m` recorded).
# A fragment for `m` and `$at` (the edit's time).
KEEP_VERSION = """
CALL (m) {
  WITH m WHERE $keepVersion
  CREATE (m)-[:HAD_VERSION]->(version:MemoryVersion {
    id: m.id, userId: m.userId, content: m.content, summary: m.summary, tier: m.tier, kind: m.kind,
    projectId: m.projectId, sessionId: m.sessionId, createdAt: m.createdAt, speaker: m.speaker,
    tokens: m.tokens, summaryTokens: m.summaryTokens, relevance: m.relevance, attributes: m.attributes,
    recordedAt: coalesce(COLLECT { MATCH (m)-[:HAD_VERSION]->(old) RETURN max(old.supersededAt) }[0],
                         m.recordedAt, m.createdAt),
    supersededAt: datetime($at)
  })
  // Each slot's vector (``hippograph.graph.store_model``): during a reembed, the next model's too.
  WITH m, version
  UNWIND __SLOTS__ AS slot
  WITH m, version, slot WHERE m[slot] IS NOT NULL
  CALL db.create.setNodeVectorProperty(version, slot, m[slot])
}
""".replace("__SLOTS__", repr(SLOT_PROPERTIES))

# A memory a consolidation merge or promotion takes out of use, `old`, stays as the store's history:
# archived then (so a read as of before still reads it) and `SUPERSEDED_BY` the memory `new` that carries
# it on, whose forgetting takes it too (``hippograph.graph.memories.DELETE_MEMORIES``).
SUPERSEDE = """
SET old.archived = true, old.archivedAt = datetime()
CREATE (old)-[:SUPERSEDED_BY {createdAt: datetime()}]->(new)
"""


def closed_field(fields: str, node: str) -> str:
    """A projection's ``validUntil: node.validUntil`` read as of ``$asOf``: null while not closed then."""
    plain = f"validUntil: {node}.validUntil"
    assert plain in fields
    return fields.replace(plain, f"validUntil: CASE WHEN {closed_then(node)} THEN {node}.validUntil END")


def as_it_was(memory: dict[str, Any], version: dict[str, Any] | None, archived: bool) -> dict[str, Any]:
    """A memory row (``MEMORY_FIELDS``) read as of a moment: its version's text then, if it had another."""
    was = {**memory, "archived": archived}
    if version is not None:
        was.update({key: value for key, value in version.items() if key not in ("recordedAt", "supersededAt")})
    return was


# Why a decision was taken: the recall that informed it (``informedBy``, the id of that recall's audit
# event) and when the decision was recorded; the memories are then read as of that moment.
INFORMED_BY = """
MATCH (d:Entity {id: $id, userId: $userId})
OPTIONAL MATCH (m:Memory {userId: $userId})-[:RECORDS]->(d)
WHERE m.informedBy IS NOT NULL
WITH m ORDER BY coalesce(m.recordedAt, m.createdAt) LIMIT 1
OPTIONAL MATCH (event:AuditEvent {id: m.informedBy})
WHERE event.userId = $userId AND event.operation = 'recall'
RETURN m.informedBy AS recallId, coalesce(m.recordedAt, m.createdAt) AS at, coalesce(event.ids, []) AS ids
"""

# When each id was erased: the first tombstone that names it (forgetting lists what it took).
ERASED_AT = """
UNWIND $ids AS id
OPTIONAL MATCH (event:AuditEvent {userId: $userId})
WHERE event.operation IN ['forget', 'forget_session', 'forget_project'] AND id IN event.ids
RETURN id, min(event.at) AS at
"""

# A recall an agent says informed its decision: one of the caller's own recall events.
RECALL_EVENT = """
MATCH (event:AuditEvent {id: $eventId})
WHERE event.userId = $userId AND event.operation = 'recall'
RETURN count(event) > 0 AS found
"""

# The decision's memory and entity keep the recall that informed it.
INFORM = """
MATCH (m:Memory {id: $memoryId, userId: $userId})
SET m.informedBy = $eventId
WITH m
OPTIONAL MATCH (m)-[:RECORDS]->(d:Entity)
SET d.informedBy = $eventId
"""


def informed_by(tx: ManagedTransaction, user_id: str, entity_id: str) -> dict[str, Any] | None:
    """The decision's ``recallId``, when it was recorded (``at``) and the ``ids`` that recall returned; None
    when the caller has no such entity."""
    record = tx.run(INFORMED_BY, userId=user_id, id=entity_id).single()
    return dict(record) if record else None


def erased_at(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> dict[str, datetime | None]:
    return {r["id"]: r["at"] for r in tx.run(ERASED_AT, userId=user_id, ids=list(ids))}


def recall_event_exists(tx: ManagedTransaction, user_id: str, event_id: str) -> bool:
    return bool(tx.run(RECALL_EVENT, userId=user_id, eventId=event_id).single(strict=True)["found"])


def inform(tx: ManagedTransaction, user_id: str, memory_id: str, event_id: str) -> None:
    tx.run(INFORM, userId=user_id, memoryId=memory_id, eventId=event_id).consume()
