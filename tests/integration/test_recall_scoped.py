"""Scoped recall loses nothing: a caller's top-10 is exactly the scan of their in-scope memories.

A vector index asked for its global top-k before any filter gives a caller who owns 1 % of the
store almost nothing ("top-k then filter"). Recall scans a small owner's memories, and for a
larger one searches the index with the scope as its filter (Neo4j 2026: the index holds userId,
tier, projectId, sessionId, archived, validUntil). Both paths are checked here against an exact
scan, the index path forced with ``exact_scan_limit=0``; the million-memory measurement is in
``hippograph bench latency``.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import numpy as np
import pytest

from hippograph_bench.metrics import overlap_at
from hippograph.graph.memories import create_memories
from hippograph.graph.recall import RelationBranch
from hippograph.memory.recall.profiles import PROFILES, Budget, Gates, Priority, RecallProfile, Source, Weights
from hippograph.memory.recall.query import recall
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

NOW = datetime(2025, 3, 1, tzinfo=timezone.utc)
QUERY = "which region hosts the primary database replica"
VECTOR_ONLY = RecallProfile(
    name="vector-only", weights=Weights(vector=1.0), sources=frozenset({Source.VECTOR}),
    relation=RelationBranch(anchor_k=0), gates=Gates(full_above=-1.0, summary_above=-1.0, budgets={p: Budget(50, 100_000) for p in Priority}),
)


@pytest.fixture
def skewed(clean_db: Services) -> tuple[Services, np.ndarray, dict[str, dict[str, np.ndarray]]]:
    """3,000 memories: 'small' owns 30 (1 %), 'big' the rest, vectors spread around the query's."""
    services = clean_db
    q = services.embedder.embed_query(QUERY)
    rng = np.random.default_rng(7)
    owners = ["small"] * 30 + ["big"] * 2970
    rng.shuffle(owners)
    vectors = rng.standard_normal((len(owners), q.shape[0])).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = rng.uniform(0, 1.2, (len(owners), 1)).astype(np.float32) * q + vectors
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    by_user: dict[str, dict[str, np.ndarray]] = {"small": {}, "big": {}}
    rows = []
    for owner, vector in zip(owners, vectors):
        memory_id = str(uuid.uuid4())
        by_user[owner][memory_id] = vector
        rows.append({
            "id": memory_id, "content": f"memory {memory_id[:8]}", "summary": None, "tier": "LONG_TERM", "kind": "note",
            "labels": ["Memory"], "userId": owner, "projectId": None, "sessionId": None, "createdAt": NOW.isoformat(),
            "relevance": 1.0, "tokens": 3, "summaryTokens": None, "attributes": None, "contentHash": memory_id,
            "embedding": vector.tolist(),
        })
    with services.driver.session(database=services.database) as session:
        for start in range(0, len(rows), 1000):
            session.execute_write(create_memories, rows[start:start + 1000])
    return services, q, by_user


def exact_top(q: np.ndarray, memories: dict[str, np.ndarray], k: int = 10) -> list[str]:
    ids = list(memories)
    scores = np.stack([memories[i] for i in ids]) @ q
    return [ids[i] for i in np.argsort(-scores, kind="stable")[:k]]


def test_top_k_then_filter_loses_a_small_owners_memories(skewed) -> None:
    services, q, by_user = skewed
    records = services.driver.execute_query(
        "CYPHER 25 MATCH (m:Memory) SEARCH m IN (VECTOR INDEX memory_embedding FOR $q LIMIT 10) SCORE AS s "
        "WITH m WHERE m.userId = 'small' RETURN m.id AS id",
        q=q.tolist(), database_=services.database,
    ).records
    assert len(records) < 10  # the naive plan: what recall must not do


def test_a_small_owners_top_10_is_exact(skewed) -> None:
    services, q, by_user = skewed
    result = recall(services, QUERY, Scope("small"), "critical", VECTOR_ONLY, now=NOW, record_access=False)
    found = [c.id for c in result.ranking]
    assert overlap_at(found, exact_top(q, by_user["small"]), 10) == 1.0
    assert set(found) <= set(by_user["small"])


def test_through_the_filtered_index_a_small_owners_top_10_is_exact(skewed) -> None:
    services, q, by_user = skewed
    through_index = VECTOR_ONLY.with_(exact_scan_limit=0)
    result = recall(services, QUERY, Scope("small"), "critical", through_index, now=NOW, record_access=False)
    assert [c.id for c in result.ranking][:10] == exact_top(q, by_user["small"])


def test_every_profile_sees_the_small_owners_best_match(skewed) -> None:
    services, q, by_user = skewed
    best = exact_top(q, by_user["small"], 1)[0]
    for profile in ("hybrid", "hanzo"):
        wide = PROFILES[profile].with_(summary_above=-1.0, full_above=-1.0)
        ranked = recall(services, QUERY, Scope("small"), "critical", wide, now=NOW, record_access=False).ranking
        if profile == "hanzo" and float(by_user["small"][best] @ q) <= 0.6:
            assert best not in {c.id for c in ranked}  # under hanzo's long-term threshold
        else:
            assert ranked[0].id == best


def test_a_large_owner_goes_through_the_index_and_stays_close_to_exact(skewed) -> None:
    services, q, by_user = skewed
    # 'big' owns 2,970 of 3,000, over the limit: the HNSW index, where the filter hardly narrows the
    # graph. It is approximate, and these vectors (random directions around the query) are its hard
    # case; real embeddings do better (bench/REPORT.md measures both paths on LoCoMo texts).
    through_index = VECTOR_ONLY.with_(exact_scan_limit=100)
    found = [c.id for c in recall(services, QUERY, Scope("big"), "critical", through_index, now=NOW, record_access=False).ranking]
    assert set(found) <= set(by_user["big"]) and len(found) >= 10
    assert overlap_at(found, exact_top(q, by_user["big"]), 10) >= 0.6
    scanning = VECTOR_ONLY.with_(exact_scan_limit=10_000)
    exact = [c.id for c in recall(services, QUERY, Scope("big"), "critical", scanning, now=NOW, record_access=False).ranking]
    assert overlap_at(exact, exact_top(q, by_user["big"]), 10) == 1.0


def test_asking_the_index_for_more_than_it_keeps_makes_a_wide_owners_top_10_exact(skewed) -> None:
    services, q, by_user = skewed
    overlaps = {}
    for index_k in (60, 1000):
        profile = VECTOR_ONLY.with_(exact_scan_limit=100, index_k=index_k)
        ranked = recall(services, QUERY, Scope("big"), "critical", profile, now=NOW, record_access=False).ranking
        assert 10 <= len(ranked) <= profile.vector.k  # asked for more, it still keeps at most its k
        overlaps[index_k] = overlap_at([c.id for c in ranked], exact_top(q, by_user["big"]), 10)
    assert overlaps[1000] == 1.0 and overlaps[60] <= overlaps[1000]


@pytest.fixture
def scoped(clean_db: Services) -> tuple[Services, np.ndarray]:
    """One user's memories in every tier, two projects with a session each, some archived or closed."""
    services = clean_db
    q = services.embedder.embed_query(QUERY)
    rng = np.random.default_rng(11)
    places = [("LONG_TERM", None, None), ("PROJECT", "p1", None), ("PROJECT", "p2", None),
              ("SESSION", "p1", "s1"), ("SESSION", "p2", "s2"), ("SESSION", None, "s3")]
    rows = []
    for tier, project, session in places:
        for _ in range(15):
            vector = rng.standard_normal(q.shape[0]).astype(np.float32) + rng.uniform(0, 20) * q
            memory_id = str(uuid.uuid4())
            rows.append({
                "id": memory_id, "content": f"memory {memory_id[:8]}", "summary": None, "tier": tier, "kind": "note",
                "labels": ["Memory"], "userId": "scoped", "projectId": project, "sessionId": session,
                "createdAt": NOW.isoformat(), "relevance": 1.0, "tokens": 3, "summaryTokens": None, "attributes": None,
                "contentHash": memory_id, "embedding": (vector / np.linalg.norm(vector)).tolist(),
            })
    with services.driver.session(database=services.database) as session:
        session.execute_write(create_memories, rows)
        hidden = [row["id"] for row in rows[::7]]
        session.run("MATCH (m:Memory) WHERE m.id IN $ids[..5] SET m.archived = true", ids=hidden).consume()
        session.run("MATCH (m:Memory) WHERE m.id IN $ids[5..] SET m.validUntil = datetime()", ids=hidden).consume()
    return services, q


@pytest.mark.parametrize("scope", [Scope("scoped"), Scope("scoped", "p1"), Scope("scoped", "p1", "s1"),
                                   Scope("scoped", None, "s3"), Scope("scoped", "p2", "s2")],
                         ids=["user", "project", "project-session", "session", "other-project-session"])
@pytest.mark.parametrize("profile", [VECTOR_ONLY, PROFILES["hanzo"].with_(summary_above=-1.0, full_above=-1.0)],
                         ids=["one-pool", "per-tier"])
def test_the_filtered_index_finds_exactly_what_the_scan_finds_in_every_scope(scoped, scope: Scope, profile) -> None:
    services, _ = scoped
    scanned = recall(services, QUERY, scope, "critical", profile.with_(exact_scan_limit=10_000), now=NOW,
                     record_access=False).ranking
    searched = recall(services, QUERY, scope, "critical", profile.with_(exact_scan_limit=0), now=NOW,
                      record_access=False).ranking
    assert scanned, "the scope reaches some memories"
    assert [(c.id, round(c.score, 5)) for c in searched] == [(c.id, round(c.score, 5)) for c in scanned]
