"""The bare two-index query that recall's cost is measured against: what neo4j-graphrag's
HybridRetriever runs — one vector-index search and one full-text search, each score divided by its
branch's best, the larger kept per memory, the best ``k`` — within one user's memories.
``hippograph bench latency`` times it beside recall on the same store, tenant and question."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

TWO_INDEX_SEARCH = """
CYPHER 25
CALL () {
    MATCH (m:Memory)
      SEARCH m IN (VECTOR INDEX memory_embedding FOR $embedding WHERE m.userId = $userId LIMIT $k) SCORE AS score
    WITH collect({m: m, score: score}) AS hits, max(score) AS best
    UNWIND hits AS hit
    RETURN hit.m AS m, hit.score / best AS score
  UNION
    WITH $text AS text WHERE text <> ''
    CALL db.index.fulltext.queryNodes('memory_text', text) YIELD node, score
    WITH node, score WHERE node.userId = $userId
    WITH node, score LIMIT $k
    WITH collect({m: node, score: score}) AS hits, max(score) AS best
    UNWIND hits AS hit
    RETURN hit.m AS m, hit.score / best AS score
}
WITH m, max(score) AS score
RETURN m.id AS id, score ORDER BY score DESC LIMIT $k
"""


def two_index_search(
    tx: ManagedTransaction,
    user_id: str,
    embedding: Sequence[float],
    text_query: str,
    k: int,
) -> list[dict[str, Any]]:
    """The user's best ``k`` memories by the two indexes; ``text_query`` is a Lucene query ('' for none)."""
    return [
        dict(record)
        for record in tx.run(TWO_INDEX_SEARCH, userId=user_id, embedding=list(embedding), text=text_query, k=k)
    ]


# The vector index search recall's vector branch makes for a user-wide scope, alone: the caller's
# live memories of the tiers asked for, ``k`` of them (recall asks for ``index_k``).
VECTOR_SEARCH = """
CYPHER 25
MATCH (m:Memory)
  SEARCH m IN (VECTOR INDEX memory_embedding FOR $embedding
               WHERE m.userId = $userId AND m.tier IN $tiers AND m.archived = false AND m.validUntil IS NULL
               LIMIT $k) SCORE AS score
// Counted, not returned: sending 500 rows would time the network, not the search.
RETURN count(m) AS found
"""


def vector_search(
    tx: ManagedTransaction, user_id: str, embedding: Sequence[float], tiers: Sequence[str], k: int
) -> int:
    """How many of the user's ``k`` nearest live memories of ``tiers`` the vector index found."""
    found = tx.run(VECTOR_SEARCH, userId=user_id, embedding=list(embedding), tiers=list(tiers), k=k)
    return int(found.single(strict=True)["found"])
