"""A store search's scores: each item by its best indexed field's cosine to the query, as LangGraph scores."""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.graph import items as items_cypher
from hippograph.memory.services import Services


def item_scores(services: Services, user_id: str, query: str, ids: Sequence[str]) -> dict[str, float]:
    """The caller's memories among ``ids``, each with its best field's cosine to ``query`` (its own
    vector's, for a memory with no field vectors); another user's id is left out, as an unknown one."""
    # The query is embedded as a field is, as LangGraph's stores embed both alike: recall's query encoder is
    # quantized, and a field equal to the query scored 0.94 by it (MiniLM, "xxx"), not 1.
    vector = services.embedder.embed_documents([query])[0].tolist()
    services.writer.settle(user_id)  # an item without field vectors is scored by its own: those still owed first
    with services.driver.session(database=services.database, default_access_mode="READ") as session:
        scores = session.execute_read(items_cypher.best_field_scores, user_id, ids, vector, services.embedder.name)
    # A read is logged as recall is: who asked and which memories it scored, never the query.
    services.audit.record(user_id, "itemScores", list(scores), f"{len(scores)} items")
    return scores
