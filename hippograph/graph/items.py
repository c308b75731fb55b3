"""Cypher for a store item's fields: each indexed field of a LangGraph item keeps a vector of its own.

An item memory's ``fieldVectors`` is its fields' unit vectors laid end to end (a property cannot hold a
list of lists), ``fieldModel`` the model that made them. An item is scored against a query by its best
field's cosine, as LangGraph's own stores score it; a memory with no field vectors of the query's model
(an item written before fields were kept, or one a re-embed moved to another model) by its own vector.
"""

from __future__ import annotations

from collections.abc import Sequence

from neo4j import ManagedTransaction

from hippograph.graph import store_model

# Neo4j's vector.similarity.cosine is (1 + cosine) / 2; a score is the cosine itself, as upstream's.
BEST_FIELD_SCORES = (
    store_model.CURRENT
    + """
UNWIND $ids AS id
MATCH (m:Memory {id: id, userId: $userId})
WITH m, vectors, size($vector) AS d
WITH m, CASE
  WHEN m.fieldVectors IS NOT NULL AND m.fieldModel = $model
    THEN [i IN range(0, size(m.fieldVectors) / d - 1) |
          vector.similarity.cosine(m.fieldVectors[i * d..(i + 1) * d], $vector)]
  WHEN m[vectors] IS NOT NULL THEN [vector.similarity.cosine(m[vectors], $vector)]
  ELSE [] END AS similarities
WHERE size(similarities) > 0
RETURN m.id AS id, 2 * reduce(best = 0.0, s IN similarities | CASE WHEN s > best THEN s ELSE best END) - 1 AS score
"""
)


def best_field_scores(
    tx: ManagedTransaction, user_id: str, ids: Sequence[str], vector: list[float], model: str
) -> dict[str, float]:
    """Each of the user's memories among ``ids`` with its best field's cosine to ``vector``."""
    return {
        r["id"]: float(r["score"])
        for r in tx.run(BEST_FIELD_SCORES, userId=user_id, ids=list(ids), vector=vector, model=model)
    }
