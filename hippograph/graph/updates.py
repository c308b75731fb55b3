"""Cypher for editing a stored memory in place (its id, tier and scope never change)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph.history import KEEP_VERSION
from hippograph.graph.memories import MEMORY_FIELDS, SET_VECTORS, refresh_preceding_of

MEMORY_FOR_UPDATE = """
MATCH (m:Memory {id: $id, userId: $userId})
RETURN m.tier AS tier, m.kind AS kind, m.projectId AS projectId, m.sessionId AS sessionId,
       m.tokens AS tokens, m.summaryTokens AS summaryTokens, m.archived AS archived, m.requestId AS requestId
"""

# Values left null keep what is stored; ``$setSummary`` tells "clear the summary" from "leave it".
# A summary that stands in for the content in the tier's count (summaryTokens set) keeps doing so.
# The memory remembers the last request that wrote it: a retry of that request changes nothing.
# A change of text keeps the text it replaces as a version (``hippograph.graph.history``).
UPDATE_MEMORY = f"""
MATCH (m:Memory {{id: $id, userId: $userId}})
{KEEP_VERSION.strip()}
SET m.content = coalesce($content, m.content),
    m.contentHash = coalesce($contentHash, m.contentHash),
    m.tokens = coalesce($tokens, m.tokens),
    m.summary = CASE WHEN $setSummary THEN $summary ELSE m.summary END,
    m.summaryTokens = CASE
      WHEN $setSummary AND m.summaryTokens IS NOT NULL THEN $summaryTokens
      ELSE m.summaryTokens END,
    m.relevance = coalesce($relevance, m.relevance),
    m.requestId = coalesce($requestId, m.requestId),
    m.updatedAt = datetime($at)
WITH m
CALL (m) {{
  WITH m, {{embedding: $embedding, model: $model}} AS row WHERE row.embedding IS NOT NULL
  {SET_VECTORS.strip()}
}}
RETURN m {{ {MEMORY_FIELDS} }} AS memory
"""

DROP_MENTIONS = """
MATCH (m:Memory {id: $id, userId: $userId})-[r:MENTIONS]->(:Entity)
DELETE r
"""


def memory_for_update(tx: ManagedTransaction, user_id: str, memory_id: str) -> dict[str, Any] | None:
    record = tx.run(MEMORY_FOR_UPDATE, userId=user_id, id=memory_id).single()
    return dict(record) if record else None


def update_memory(
    tx: ManagedTransaction,
    user_id: str,
    memory_id: str,
    *,
    at: str,
    content: str | None = None,
    content_hash: str | None = None,
    tokens: int | None = None,
    embedding: Sequence[float] | None = None,
    model: str | None = None,
    set_summary: bool = False,
    summary: str | None = None,
    summary_tokens: int | None = None,
    relevance: float | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    record = tx.run(
        UPDATE_MEMORY,
        userId=user_id,
        id=memory_id,
        at=at,
        content=content,
        contentHash=content_hash,
        tokens=tokens,
        embedding=list(embedding) if embedding is not None else None,
        model=model,
        setSummary=set_summary,
        summary=summary,
        summaryTokens=summary_tokens,
        relevance=relevance,
        requestId=request_id,
        keepVersion=content is not None or set_summary,
    ).single(strict=True)
    if content is not None:
        refresh_preceding_of(tx, user_id, [memory_id])
    return dict(record["memory"])


def drop_mentions(tx: ManagedTransaction, user_id: str, memory_id: str) -> None:
    tx.run(DROP_MENTIONS, userId=user_id, id=memory_id).consume()
