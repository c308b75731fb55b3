"""The bare two-index query the latency bench measures recall against: one user's memories only,
each branch normalised by its best, the larger score kept."""

from __future__ import annotations

import pytest

from hippograph_bench.two_index import two_index_search
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall import lucene
from hippograph.memory.recall.query import MEMORY_TEXT_FIELDS
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.store import MemoryInput, bulk_import

pytestmark = pytest.mark.neo4j

QUERY = "which region hosts the primary database replica"


def search(services: Services, user_id: str, text: str, k: int = 10) -> list[dict]:
    embedding = services.embedder.embed_query(QUERY).tolist()
    query = lucene.owned_query(user_id, lucene.keywords(text), MEMORY_TEXT_FIELDS)
    with services.driver.session(database=services.database) as session:
        return session.execute_read(two_index_search, user_id, embedding, query, k)


def test_one_users_memories_best_first(clean_db: Services) -> None:
    mine = [stored for (stored,) in bulk_import(clean_db, Scope("u-two-a"), [MemoryInput(content=text, tier=Tier.LONG_TERM) for text in (
        "The primary database replica is hosted in eu-west-1.",
        "Lunch on Fridays is pizza.",
        "Backups of the replica run nightly.",
    )])]
    (theirs,) = bulk_import(clean_db, Scope("u-two-b"), [MemoryInput(
        content="The primary database replica is hosted in us-east-2.", tier=Tier.LONG_TERM)])

    rows = search(clean_db, "u-two-a", QUERY)
    assert {r["id"] for r in rows} == set(mine) and theirs[0] not in {r["id"] for r in rows}
    assert rows[0]["id"] == mine[0] and rows[0]["score"] == pytest.approx(1.0)
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1.0 + 1e-9 for s in scores)
    assert len(search(clean_db, "u-two-a", QUERY, k=2)) == 2
    # No keyword: the vector branch alone.
    assert {r["id"] for r in search(clean_db, "u-two-a", "")} == set(mine)
