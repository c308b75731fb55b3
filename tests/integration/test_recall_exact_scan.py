"""The exact scan: a small owner's memories each scored by the exact cosine, as the index path scores a large one's.

The 100,000-memory figures (speed, and overlap with an exact scan) are in ``hippograph bench latency``;
these tests pin the rules on small real stores.
"""

from __future__ import annotations

import itertools
import uuid
from datetime import datetime, timezone

import numpy as np
import pytest

from hippograph.graph import migrations
from hippograph.graph.memories import create_memories
from hippograph.graph.recall import RelationBranch, VectorBranch
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.profiles import Budget, Gates, Priority, RecallProfile, Selection, Source, TierSearch, Weights
from hippograph.memory.recall.query import recall
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope

pytestmark = pytest.mark.neo4j

NOW = datetime(2025, 3, 1, tzinfo=timezone.utc)
VECTOR_ONLY = RecallProfile(
    name="vector-only", weights=Weights(vector=1.0), sources=frozenset({Source.VECTOR}),
    relation=RelationBranch(anchor_k=0), gates=Gates(full_above=-1.0, summary_above=-1.0, budgets={p: Budget(50, 100_000) for p in Priority}),
)
SUBJECTS = ["The billing service", "Our mobile app", "The search cluster", "The nightly ETL job", "The auth gateway",
            "The payments team", "The staging database", "Caroline's pottery class", "Melanie's camping trip",
            "The onboarding docs", "The release pipeline", "The GPU scheduler"]
EVENTS = ["failed after the upgrade to version 3", "moved to the Frankfurt region", "needs a new owner next quarter",
          "was rewritten in Rust", "ran out of disk space on Sunday", "got a new logo and colour scheme",
          "doubled its latency under load", "was approved by the security review", "is blocked on a licence question",
          "started paging the on-call engineer", "shipped a dark mode", "lost its test coverage reports"]
QUERIES = ["why did the billing service fail", "which team moved to Frankfurt", "what was rewritten in Rust",
           "what ran out of disk space", "did security approve anything", "who needs a new owner",
           "what happened on the camping trip", "latency doubled under load"]


def _rows(services: Services, owner: str, texts: list[str], tier: Tier = Tier.LONG_TERM) -> list[dict]:
    vectors = services.embedder.embed_documents(texts)
    return [{
        "id": str(uuid.uuid4()), "content": text, "summary": None, "tier": tier.value, "kind": "note",
        "labels": ["Memory"], "userId": owner, "projectId": None if tier is Tier.LONG_TERM else "p1",
        "sessionId": "s1" if tier is Tier.SESSION else None, "createdAt": NOW.isoformat(), "relevance": 1.0,
        "tokens": 10, "summaryTokens": None, "attributes": None, "contentHash": str(uuid.uuid4()),
        "embedding": vector.tolist(),
    } for text, vector in zip(texts, vectors)]


def _store(services: Services, rows: list[dict]) -> None:
    with services.driver.session(database=services.database) as session:
        session.execute_write(create_memories, rows)


def _exact_top(services: Services, rows: list[dict], query: str, k: int = 10) -> list[str]:
    q = services.embedder.embed_query(query)
    scores = np.array([np.asarray(row["embedding"], dtype=np.float32) @ q for row in rows])
    return [rows[i]["id"] for i in np.argsort(-scores, kind="stable")[:k]]


@pytest.mark.parametrize("exact_scan_limit", [10_000, 0], ids=["scan", "index"])
def test_recall_gets_the_exact_top_10_by_the_exact_cosine(clean_db: Services, exact_scan_limit: int) -> None:
    services = clean_db
    texts = [f"{s} {e}" for s, e in itertools.product(SUBJECTS, EVENTS)]  # 144 …
    texts += [f"Last week {t[0].lower()}{t[1:]}" for t in texts]           # … 288 memories
    rows = _rows(services, "u-big", texts)
    _store(services, rows)
    profile = VECTOR_ONLY.with_(exact_scan_limit=exact_scan_limit)
    by_id = {row["id"]: np.asarray(row["embedding"], dtype=np.float32) for row in rows}
    for query in QUERIES:
        result = recall(services, query, Scope("u-big"), "critical", profile, now=NOW, record_access=False)
        assert [c.id for c in result.ranking[:10]] == _exact_top(services, rows, query), query
        q = services.embedder.embed_query(query)
        for candidate in result.ranking[:10]:
            assert candidate.cosine == pytest.approx(float(by_id[candidate.id] @ q), abs=1e-4)


def test_per_tier_search_keeps_a_pool_for_each_tier(clean_db: Services) -> None:
    services = clean_db
    # Many session memories close to the query, one long-term memory further from it.
    session_rows = _rows(services, "u-tiers", [f"The billing service failed after upgrade number {i}" for i in range(60)],
                         Tier.SESSION)
    long_term = _rows(services, "u-tiers", ["Billing incidents are reviewed on Fridays by the finance team"])
    _store(services, session_rows + long_term)
    per_tier = RecallProfile(
        name="per-tier", weights=Weights(vector=1.0), sources=frozenset({Source.VECTOR}),
        vector=VectorBranch(k=10, tiers={
            Tier.SESSION: TierSearch(5, -1.0), Tier.PROJECT: TierSearch(5, -1.0), Tier.LONG_TERM: TierSearch(5, -1.0)}),
        relation=RelationBranch(anchor_k=0),
        gates=Gates(selection=Selection.TIER_TOP_K, budgets={p: Budget(50, 100_000) for p in Priority}),
    )
    ranked = recall(services, "why did the billing service fail", Scope("u-tiers", "p1", "s1"), "critical", per_tier,
                    now=NOW, record_access=False).ranking
    ids = {c.id for c in ranked}
    assert long_term[0]["id"] in ids
    assert sum(1 for c in ranked if c.id in {r["id"] for r in session_rows}) == 5


def test_the_migration_drops_the_sketch_a_store_written_before_it_holds(clean_db: Services) -> None:
    services = clean_db
    rows = _rows(services, "u-old", [f"{s} {EVENTS[0]}" for s in SUBJECTS[:3]])
    _store(services, rows)
    services.driver.execute_query("MATCH (m:Memory {userId: 'u-old'}) SET m.sketch = [0.5, 0.5]", database_=services.database)
    dropping = next(m for m in migrations.discover(services.settings.migrations_dir) if m.version == "0012")
    with services.driver.session(database=services.database) as session:  # CALL … IN TRANSACTIONS: auto-commit
        for statement in dropping.statements({}):
            session.run(statement).consume()
    records = services.driver.execute_query(
        "MATCH (m:Memory {userId: 'u-old'}) RETURN count(m) AS n, count(m.sketch) AS sketched",
        database_=services.database).records
    assert (records[0]["n"], records[0]["sketched"]) == (3, 0)
