"""Cypher for memory nodes: create, read, delete, and how full a tier is.

A memory is ``(:Memory {id, content, embedding, createdAt, tier, userId,
projectId, sessionId, relevance, accessCount, lastAccessedAt, tokens, summary,
archived, kind, validFrom, validUntil, attributes, sourceSessions, sourceTurns, speaker,
preceding, recordedAt, updatedAt, closedAt, archivedAt, fieldVectors, fieldModel})`` (the times:
``hippograph.graph.history``; a store item's field vectors: ``hippograph.graph.items``),
with an entity label (``:Decision``, ``:Error`` …) when it records one, owned by
``(:User)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import history, store_model
from hippograph.graph.scope import IN_TIER_SCOPE
from hippograph.graph.vocabulary import in_lifecycle

# Properties a caller reads back; the embedding stays in the store.
MEMORY_FIELDS = """
  id: m.id, content: m.content, summary: m.summary, tier: m.tier, kind: m.kind,
  userId: m.userId, projectId: m.projectId, sessionId: m.sessionId,
  createdAt: m.createdAt, relevance: m.relevance, accessCount: m.accessCount,
  lastAccessedAt: m.lastAccessedAt, tokens: m.tokens, summaryTokens: m.summaryTokens,
  archived: m.archived, validFrom: m.validFrom, validUntil: m.validUntil,
  attributes: m.attributes, labels: [l IN labels(m) WHERE l <> 'Memory']
"""

# A memory's vector, in the store's slot (``hippograph.graph.store_model``).
SET_VECTORS = store_model.SET_VECTORS

CREATE_MEMORIES = """
UNWIND $rows AS row
MERGE (user:User {id: row.userId})
  ON CREATE SET user.createdAt = datetime()
CREATE (m:Memory {
  id: row.id, content: row.content, summary: row.summary, tier: row.tier, kind: row.kind,
  userId: row.userId, projectId: row.projectId, sessionId: row.sessionId,
  createdAt: datetime(row.createdAt), validFrom: datetime(row.createdAt), recordedAt: datetime(),
  relevance: row.relevance, accessCount: 0, tokens: row.tokens, summaryTokens: row.summaryTokens,
  archived: false, attributes: row.attributes, contentHash: row.contentHash, speaker: row.speaker,
  requestId: row.requestId, fieldVectors: row.fieldVectors, fieldModel: row.fieldModel
})
SET m:$(row.labels)
CREATE (user)-[:REMEMBERS]->(m)
WITH m, row
__SET_VECTORS__
RETURN count(m) AS created
""".replace("__SET_VECTORS__", SET_VECTORS)

# Taking the user's node for write serialises that user's writers: capacity checks
# and compression then see a tier no concurrent write is changing.
LOCK_USER = """
MERGE (user:User {id: $userId})
  ON CREATE SET user.createdAt = datetime()
SET user.lastWriteAt = datetime()
"""

# As of $asOf (null: now): the memories recorded by then, with the text and closure they had then.
GET_MEMORIES = (
    "UNWIND $ids AS id\nMATCH (m:Memory {id: id, userId: $userId})\nWHERE "
    + history.recorded_by("m")
    + history.VERSION_THEN
    + "RETURN m { "
    + history.closed_field(MEMORY_FIELDS, "m")
    + " } AS memory, "
    + history.VERSION_FIELDS
    + " AS version, "
    + history.archived_then("m")
    + " AS archivedThen\n"
)

# The stored attributes (JSON text) of live memories: provenance merges read them and write the union.
ATTRIBUTES = """
UNWIND $ids AS id
MATCH (m:Memory {id: id, userId: $userId})
WHERE m.archived = false
RETURN m.id AS id, m.attributes AS attributes
"""

FIND_BY_HASHES = """
UNWIND $contentHashes AS contentHash
MATCH (m:Memory {userId: $userId, contentHash: contentHash})
WHERE m.archived = false
RETURN contentHash, min(m.id) AS id
"""

# The memories written by the client requests $requestIds, archived or not: a retry answers with
# the memory its request wrote (the request id lives on the memory, so forgetting it leaves none).
FIND_BY_REQUEST_IDS = """
UNWIND $requestIds AS requestId
MATCH (m:Memory {userId: $userId, requestId: requestId})
RETURN requestId, m.id AS id, m.contentHash AS contentHash
"""

# How full a tier is, for one scope: every memory still stored counts; an
# archived one is kept for history and counts no longer. As of $asOf: what was stored and not archived then.
TIER_USAGE = f"""
MATCH (m:Memory {{userId: $userId, tier: $tier}})
WHERE NOT ({history.archived_then("m")}) AND {history.recorded_by("m")}
  AND {IN_TIER_SCOPE} AND {in_lifecycle("m")}
RETURN coalesce(sum(coalesce(m.summaryTokens, m.tokens)), 0) AS used, count(m) AS items
"""


# Forgetting: the memories with their versions, every summary only they supported, and every entity
# that nothing else mentions or records — so no index or version keeps a trace of the text.
DELETE_MEMORIES = """
MATCH (m:Memory {userId: $userId})
WHERE m.id IN $ids
// What a merge or a promotion superseded (``history.SUPERSEDE``) goes with what carried it on.
WITH collect(m) AS named
WITH named + COLLECT { UNWIND named AS m MATCH (old:Memory)-[:SUPERSEDED_BY*]->(m) RETURN DISTINCT old } AS gone
WITH gone, [g IN gone | g.id] AS goneIds
UNWIND gone AS m
OPTIONAL MATCH (summary:Memory {userId: $userId})-[:DERIVED_FROM]->(m)
WHERE NOT EXISTS { MATCH (summary)-[:DERIVED_FROM]->(other:Memory) WHERE NOT other.id IN goneIds }
WITH collect(DISTINCT m) + collect(DISTINCT summary) AS doomed
UNWIND doomed AS d
OPTIONAL MATCH (d)-[:MENTIONS|RECORDS]->(e:Entity)
WITH doomed, collect(DISTINCT e) AS touched
WITH doomed, [e IN touched WHERE NOT EXISTS {
  MATCH (other:Memory)-[:MENTIONS|RECORDS]->(e) WHERE NOT other IN doomed
}] AS orphans
// A fix exists only as the other end of its error's SOLVED_BY: it goes when nothing else holds it.
WITH doomed, orphans + COLLECT {
  UNWIND orphans AS error
  MATCH (error)-[:SOLVED_BY]->(fix:Entity)
  WHERE NOT EXISTS { MATCH (:Memory)-[:MENTIONS|RECORDS]->(fix) }
    AND NOT EXISTS { MATCH (fix)-[]-(other:Entity) WHERE NOT other IN orphans }
  RETURN DISTINCT fix
} AS orphans
WITH doomed, orphans, [d IN doomed | d.id] AS memoryIds, [e IN orphans | e.id] AS entityIds,
     [d IN doomed WHERE d.sessionId IS NOT NULL |
       {sessionId: d.sessionId, seconds: d.createdAt.epochSeconds, nanosecond: d.createdAt.nanosecond}] AS places
// Forgetting wins over history: every version of a doomed memory goes with it.
FOREACH (version IN COLLECT { UNWIND doomed AS d MATCH (d)-[:HAD_VERSION]->(v:MemoryVersion) RETURN v } |
         DETACH DELETE version)
FOREACH (e IN orphans | DETACH DELETE e)
FOREACH (d IN doomed | DETACH DELETE d)
RETURN memoryIds, entityIds, places
"""

# A session memory keeps, as `preceding`, the text said right before it in its session — the question
# it answers, the discussion a decision closes — so the keyword branch finds it by that text too. A
# write, an edit or a deletion at a place in a timeline (`sessionId`, `at`) changes the session memories
# there and the first ones after it. Each lookup is ordered as memory_session_timeline is (user, session,
# time), so the planner reads one index entry, not the whole session. (A fact, outside the session tier
# with the sessionId where it was said, keeps the turn said before its own: ``transcript.FACT_PROVENANCE``.)
REFRESH_PRECEDING = """
CALL (sessionId, at) {
    MATCH (n:Memory {userId: $userId, sessionId: sessionId})
    WHERE n.createdAt = at AND n.tier = 'SESSION'
    RETURN n
  UNION
    MATCH (after:Memory {userId: $userId, sessionId: sessionId})
    WHERE after.createdAt > at AND after.tier = 'SESSION'
    WITH after.createdAt AS next ORDER BY after.userId, after.sessionId, after.createdAt LIMIT 1
    MATCH (n:Memory {userId: $userId, sessionId: sessionId})
    WHERE n.createdAt = next AND n.tier = 'SESSION'
    RETURN n
}
WITH DISTINCT n
CALL (n) {
  // The latest instant before n, then the memory of that instant with the highest id (a batch shares one).
  OPTIONAL MATCH (last:Memory {userId: $userId, sessionId: n.sessionId})
  WHERE last.createdAt < n.createdAt
  WITH last.createdAt AS at ORDER BY last.userId DESC, last.sessionId DESC, last.createdAt DESC LIMIT 1
  OPTIONAL MATCH (before:Memory {userId: $userId, sessionId: n.sessionId, createdAt: at})
  WITH before ORDER BY before.id DESC LIMIT 1
  RETURN before.content AS preceding
}
SET n.preceding = preceding
"""

# After memories were written or their text changed: their own places in their timelines.
PRECEDING_AFTER_WRITE = (
    """
UNWIND $ids AS id
MATCH (m:Memory {id: id, userId: $userId})
WHERE m.sessionId IS NOT NULL
WITH m.sessionId AS sessionId, m.createdAt AS at
"""
    + REFRESH_PRECEDING
)

# After memories were deleted: the places they held, as DELETE_MEMORIES returns them. The instant
# travels as seconds and nanoseconds: a datetime sent back as a parameter carries a zone name
# where the stored one has an offset, and the two then compare as different times.
PRECEDING_AFTER_DELETE = (
    """
UNWIND $places AS place
WITH place.sessionId AS sessionId, datetime({epochSeconds: place.seconds, nanosecond: place.nanosecond}) AS at
"""
    + REFRESH_PRECEDING
)

# A promoted memory keeps the accesses that earned its promotion.
CARRY_ACCESSES = """
MATCH (source:Memory {id: $sourceId, userId: $userId}), (target:Memory {id: $targetId, userId: $userId})
SET target.accessCount = coalesce(target.accessCount, 0) + coalesce(source.accessCount, 0),
    target.lastAccessedAt = coalesce(source.lastAccessedAt, target.lastAccessedAt)
"""

# Provenance: a memory derives from turns or other memories of the same user.
DERIVE = """
MATCH (m:Memory {id: $memoryId, userId: $userId})
UNWIND $sourceIds AS sourceId
OPTIONAL MATCH (memory:Memory {id: sourceId, userId: $userId})
OPTIONAL MATCH (turn:Turn {id: sourceId, userId: $userId})
WITH m, coalesce(memory, turn) AS source
WHERE source IS NOT NULL
MERGE (m)-[:DERIVED_FROM]->(source)
RETURN count(source) AS linked
"""

# Where a memory's text was said, kept on the memory itself so that it outlives the turns (they go when
# their session ends) and forgetting the session still finds it: ``sourceSessions`` the session ids,
# ``sourceTurns`` "<session>#<position>" of the turns it derives from (a session id never holds '#').
# Said again, or merged, a memory unites both lists. A fragment for `m` and `$sessionId`.
RECORD_SOURCE = """
SET m.sourceSessions = coalesce(m.sourceSessions, [])
                       + [s IN [$sessionId] WHERE NOT s IN coalesce(m.sourceSessions, [])],
    m.sourceTurns = coalesce(m.sourceTurns, []) + COLLECT {
      MATCH (m)-[:DERIVED_FROM]->(turn:Turn {userId: $userId, sessionId: $sessionId})
      WITH $sessionId + '#' + toString(turn.position) AS said, turn.position AS position
      WHERE NOT said IN coalesce(m.sourceTurns, [])
      RETURN said ORDER BY position
    }
"""

# A session memory promoted to a persistent tier keeps the session it came from.
SOURCE_SESSION = """
MATCH (m:Memory {id: $memoryId, userId: $userId})
__RECORD_SOURCE__
""".replace("__RECORD_SOURCE__", RECORD_SOURCE)


def delete_memories(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """Delete memories with what only they supported; returns (memory ids, entity ids) removed."""
    if not ids:
        return [], []
    record = tx.run(DELETE_MEMORIES, userId=user_id, ids=list(ids)).single()
    if not record:
        return [], []
    # What the deleted said lives on in no successor's preceding text.
    if record["places"]:
        tx.run(PRECEDING_AFTER_DELETE, userId=user_id, places=record["places"]).consume()
    return list(record["memoryIds"]), list(record["entityIds"])


def refresh_preceding_of(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> None:
    """After ``ids`` were written or their text changed: their own preceding text and their successors'."""
    if ids:
        tx.run(PRECEDING_AFTER_WRITE, userId=user_id, ids=list(ids)).consume()


def record_source(tx: ManagedTransaction, user_id: str, memory_id: str, session_id: str) -> None:
    tx.run(SOURCE_SESSION, userId=user_id, memoryId=memory_id, sessionId=session_id).consume()


def carry_accesses(tx: ManagedTransaction, user_id: str, source_id: str, target_id: str) -> None:
    tx.run(CARRY_ACCESSES, userId=user_id, sourceId=source_id, targetId=target_id).consume()


def derive(tx: ManagedTransaction, user_id: str, memory_id: str, source_ids: Sequence[str]) -> int:
    record = tx.run(DERIVE, userId=user_id, memoryId=memory_id, sourceIds=list(source_ids)).single()
    return int(record["linked"]) if record else 0


def create_memories(tx: ManagedTransaction, rows: Sequence[dict[str, Any]]) -> int:
    """Create memories from ready rows (id, content, embedding as list, createdAt ISO string, labels …)."""
    if not rows:  # a group or batch of duplicates only, or of writes that each go alone: no statement
        return 0
    record = tx.run(CREATE_MEMORIES, rows=list(rows)).single()
    for user_id in {row["userId"] for row in rows}:
        refresh_preceding_of(tx, user_id, [row["id"] for row in rows if row["userId"] == user_id])
    return int(record["created"]) if record else 0


def lock_user(tx: ManagedTransaction, user_id: str) -> None:
    tx.run(LOCK_USER, userId=user_id).consume()


def get_memories(
    tx: ManagedTransaction, user_id: str, ids: Sequence[str], as_of: datetime | None = None
) -> list[dict[str, Any]]:
    """The user's memories among ``ids``; as of ``as_of``, those recorded by then as they read then."""
    return [
        history.as_it_was(r["memory"], r["version"], r["archivedThen"])
        for r in tx.run(GET_MEMORIES, userId=user_id, ids=list(ids), asOf=as_of)
    ]


def attributes(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> dict[str, str | None]:
    """The stored attributes (JSON text) of the live memories among ``ids``."""
    return {r["id"]: r["attributes"] for r in tx.run(ATTRIBUTES, userId=user_id, ids=list(ids))}


def find_by_hashes(tx: ManagedTransaction, user_id: str, content_hashes: Sequence[str]) -> dict[str, str]:
    """Stored memory ids by content hash, for the hashes that are stored."""
    return {
        r["contentHash"]: r["id"] for r in tx.run(FIND_BY_HASHES, userId=user_id, contentHashes=list(content_hashes))
    }


def find_by_request_ids(tx: ManagedTransaction, user_id: str, request_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """(memory id, content hash) by request id, for the requests whose memory is stored."""
    return {
        r["requestId"]: (r["id"], r["contentHash"])
        for r in tx.run(FIND_BY_REQUEST_IDS, userId=user_id, requestIds=list(request_ids))
    }


def tier_usage(
    tx: ManagedTransaction,
    user_id: str,
    tier: str,
    project_id: str | None,
    session_id: str | None,
    as_of: datetime | None = None,
) -> tuple[int, int]:
    record = tx.run(
        TIER_USAGE, userId=user_id, tier=tier, projectId=project_id, sessionId=session_id, asOf=as_of
    ).single(strict=True)
    return int(record["used"]), int(record["items"])
