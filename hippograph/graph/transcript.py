"""Cypher for a session's transcript: turns in order, and summaries that stand in for the oldest."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph.memories import RECORD_SOURCE

# The session node is the lock: appends and summarisation of one transcript never interleave.
# ``item`` is the turn's structure in its host (JSON text): kept and given back, read by nothing else.
APPEND_TURN = """
MATCH (session:Session {userId: $userId, id: $sessionId})
WHERE session.status = 'active'
SET session.lastTurnAt = datetime($at), session.turnCount = coalesce(session.turnCount, 0) + 1
CREATE (session)-[:HAS_TURN]->(turn:Turn {
  id: $id, userId: $userId, sessionId: $sessionId, role: $role, content: $content,
  position: session.turnCount, at: datetime($at), tokens: $tokens, compacted: false, isSummary: false,
  ref: $ref, item: $item
})
RETURN turn.position AS position
"""

# The transcript as the model sees it: the standing summary (if any) and the turns after it.
LIVE_TRANSCRIPT = """
MATCH (:Session {userId: $userId, id: $sessionId})-[:HAS_TURN]->(turn:Turn)
WHERE turn.compacted = false
RETURN turn.id AS id, turn.role AS role, turn.content AS content, turn.tokens AS tokens,
       turn.position AS position, toString(turn.at) AS at, turn.isSummary AS isSummary, turn.ref AS ref,
       turn.item AS item
ORDER BY turn.position, turn.isSummary DESC
"""

# The summary takes the place of the turns it covers; they stay (facts point at them) but leave the transcript.
REPLACE_WITH_SUMMARY = """
MATCH (session:Session {userId: $userId, id: $sessionId})
CREATE (session)-[:HAS_TURN]->(summary:Turn {
  id: $id, userId: $userId, sessionId: $sessionId, role: 'summary', content: $content,
  position: $position, at: datetime($at), tokens: $tokens, compacted: false, isSummary: true
})
WITH summary
UNWIND $turnIds AS turnId
MATCH (turn:Turn {id: turnId, userId: $userId, sessionId: $sessionId})
SET turn.compacted = true
MERGE (summary)-[:SUMMARISES]->(turn)
RETURN count(turn) AS covered
"""

# A fact keeps where it was said: the session and (as createdAt, set when it was stored) the
# time of its turn, so it has a place in its session's timeline beside the other facts of it,
# and the sessions and turn positions it derives from (``sourceSessions``, ``sourceTurns``), which
# outlive the turns. A fact stored again (the same text said once more) gains the new turns' provenance.
# As its `preceding` it keeps what was said right before its turn — the question it answers — as a
# session memory keeps the memory before it (``memories.REFRESH_PRECEDING``): the keyword branch
# finds a fact by it as it finds a turn.
FACT_PROVENANCE = """
MATCH (m:Memory {id: $id, userId: $userId})
SET m.sessionId = coalesce(m.sessionId, $sessionId),
    m.preceding = coalesce(m.preceding, $preceding),
    m.attributes = coalesce($attributes, m.attributes)
WITH m
__RECORD_SOURCE__
""".replace("__RECORD_SOURCE__", RECORD_SOURCE)

SESSION_STATE = """
MATCH (session:Session {userId: $userId, id: $sessionId})
RETURN session.status AS status, session.projectId AS projectId
"""


def append_turn(tx: ManagedTransaction, row: dict[str, Any]) -> int | None:
    record = tx.run(APPEND_TURN, row).single()
    return int(record["position"]) if record else None


def live_transcript(tx: ManagedTransaction, user_id: str, session_id: str) -> list[dict[str, Any]]:
    return [dict(r) for r in tx.run(LIVE_TRANSCRIPT, userId=user_id, sessionId=session_id)]


def replace_with_summary(tx: ManagedTransaction, row: dict[str, Any], turn_ids: Sequence[str]) -> int:
    return int(tx.run(REPLACE_WITH_SUMMARY, {**row, "turnIds": list(turn_ids)}).single(strict=True)["covered"])


def session_state(tx: ManagedTransaction, user_id: str, session_id: str) -> dict[str, Any] | None:
    record = tx.run(SESSION_STATE, userId=user_id, sessionId=session_id).single()
    return dict(record) if record else None


def set_fact_provenance(
    tx: ManagedTransaction,
    user_id: str,
    memory_id: str,
    session_id: str | None,
    attributes: str | None,
    preceding: str | None,
) -> None:
    tx.run(
        FACT_PROVENANCE, id=memory_id, userId=user_id, sessionId=session_id, attributes=attributes, preceding=preceding
    ).consume()
