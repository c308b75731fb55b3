"""Sketches: each memory's short projection, which recall's exact scan ranks by before the exact cosine.

The 100,000-memory figures (speed, and overlap with an exact scan) are in
``hippograph bench latency``; these tests pin the rules on small real stores.
"""

from __future__ import annotations

import itertools
import uuid
from datetime import datetime, timezone

import numpy as np
import pytest

from hippograph.graph import store_model
from hippograph.graph.memories import create_memories
from hippograph.graph.recall import RelationBranch, VectorBranch
from hippograph.memory.recall.profiles import Budget, Gates, Priority, RecallProfile, Selection, Source, TierSearch, Weights
from hippograph.memory.recall.query import recall
from hippograph.memory.writing.reembed import reembed, sketch_missing
from hippograph.memory.writing.store import MemoryInput, remember
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.updates import update_memory
from hippograph.memory.services import Services

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


def _rows(services: Services, owner: str, texts: list[str], tier: Tier = Tier.LONG_TERM, with_sketch: bool = True) -> list[dict]:
    vectors = services.embedder.embed_documents(texts)
    sketches = services.embedder.sketches(vectors) if with_sketch else [None] * len(texts)
    return [{
        "id": str(uuid.uuid4()), "content": text, "summary": None, "tier": tier.value, "kind": "note",
        "labels": ["Memory"], "userId": owner, "projectId": None if tier is Tier.LONG_TERM else "p1",
        "sessionId": "s1" if tier is Tier.SESSION else None, "createdAt": NOW.isoformat(), "relevance": 1.0,
        "tokens": 10, "summaryTokens": None, "attributes": None, "contentHash": str(uuid.uuid4()),
        "embedding": vector.tolist(), "sketch": sketch,
    } for text, vector, sketch in zip(texts, vectors, sketches)]


def _store(services: Services, rows: list[dict]) -> None:
    with services.driver.session(database=services.database) as session:
        session.execute_write(create_memories, rows)


def _stored(services: Services, memory_id: str) -> tuple[np.ndarray, np.ndarray | None]:
    record = services.driver.execute_query(
        store_model.CURRENT + "MATCH (m:Memory {id: $id}) RETURN m[vectors] AS embedding, m.sketch AS sketch", id=memory_id,
        database_=services.database).records[0]
    sketch = np.asarray(record["sketch"], dtype=np.float32) if record["sketch"] is not None else None
    return np.asarray(record["embedding"], dtype=np.float32), sketch


def _projection(services: Services, vector: np.ndarray) -> np.ndarray:
    return np.asarray(services.embedder.sketches(vector[None])[0], dtype=np.float32)


def test_the_shipped_model_has_a_basis(services: Services) -> None:
    assert services.embedder.sketcher is not None
    assert services.embedder.sketcher.basis.shape == (services.embedder.dimension, 96)


def test_a_remembered_memory_keeps_the_sketch_of_its_vector(clean_db: Services) -> None:
    services = clean_db
    stored = remember(services, Scope("u-sketch"), MemoryInput("The billing service failed after the upgrade", Tier.LONG_TERM), now=NOW)
    embedding, sketch = _stored(services, stored.id)
    assert sketch is not None and sketch.shape == (96,)
    assert np.allclose(sketch, _projection(services, embedding), atol=1e-5)


def test_an_update_and_a_reembed_make_the_sketch_again(first_slot: Services) -> None:
    services = first_slot
    stored = remember(services, Scope("u-sketch"), MemoryInput("The billing service failed after the upgrade", Tier.LONG_TERM), now=NOW)
    _, before = _stored(services, stored.id)
    update_memory(services, "u-sketch", stored.id, content="Our mobile app shipped a dark mode")
    embedding, after = _stored(services, stored.id)
    assert after is not None and not np.allclose(after, before, atol=1e-3)
    assert np.allclose(after, _projection(services, embedding), atol=1e-5)
    services.driver.execute_query("MATCH (m:Memory {id: $id}) REMOVE m.sketch", id=stored.id, database_=services.database)
    reembed(services)
    embedding, again = _stored(services, stored.id)
    assert again is not None and np.allclose(again, _projection(services, embedding), atol=1e-5)


def test_migrate_sketches_what_was_written_without_one(clean_db: Services) -> None:
    services = clean_db
    rows = _rows(services, "u-old", [f"{s} {e}" for s, e in itertools.islice(itertools.product(SUBJECTS, EVENTS), 30)],
                 with_sketch=False)
    _store(services, rows)
    assert all(_stored(services, row["id"])[1] is None for row in rows)
    assert sketch_missing(services, page=7) == 30
    for row in rows:
        embedding, sketch = _stored(services, row["id"])
        assert sketch is not None and np.allclose(sketch, _projection(services, embedding), atol=1e-5)
    assert sketch_missing(services) == 0
    audit = services.driver.execute_query(
        "MATCH (e:AuditEvent {userId: 'u-old', operation: 'sketch'}) RETURN count(e) AS n", database_=services.database).records
    assert audit[0]["n"] >= 1


def _exact_top(services: Services, rows: list[dict], query: str, k: int = 10) -> list[str]:
    q = services.embedder.embed_query(query)
    scores = np.array([np.asarray(row["embedding"], dtype=np.float32) @ q for row in rows])
    return [rows[i]["id"] for i in np.argsort(-scores, kind="stable")[:k]]


def test_an_owner_past_the_rescore_pool_gets_the_exact_top_10(clean_db: Services) -> None:
    services = clean_db
    texts = [f"{s} {e}" for s, e in itertools.product(SUBJECTS, EVENTS)]  # 144 …
    texts += [f"Last week {t[0].lower()}{t[1:]}" for t in texts]           # … 288 memories
    rows = _rows(services, "u-big", texts)
    _store(services, rows)
    profile = VECTOR_ONLY.with_(rescore_k=80)
    for query in QUERIES:
        result = recall(services, query, Scope("u-big"), "critical", profile, now=NOW, record_access=False)
        found = [c.id for c in result.ranking[:10]]
        assert found == _exact_top(services, rows, query), query
        # The cosine that scores is the exact one, not the sketch's.
        q = services.embedder.embed_query(query)
        by_id = {row["id"]: np.asarray(row["embedding"], dtype=np.float32) for row in rows}
        for candidate in result.ranking[:10]:
            assert candidate.cosine == pytest.approx(float(by_id[candidate.id] @ q), abs=1e-4)


def test_a_memory_without_a_sketch_is_ranked_by_its_vector(clean_db: Services) -> None:
    services = clean_db
    rows = _rows(services, "u-mixed", [f"{s} {e}" for s, e in itertools.product(SUBJECTS, EVENTS)])
    query = "which team moved to Frankfurt"
    best = _exact_top(services, rows, query, 1)[0]
    for row in rows:
        if row["id"] == best:
            row["sketch"] = None
    _store(services, rows)
    assert _stored(services, best)[1] is None
    ranked = recall(services, query, Scope("u-mixed"), "critical", VECTOR_ONLY.with_(rescore_k=60), now=NOW,
                    record_access=False).ranking
    assert ranked[0].id == best


def test_per_tier_search_keeps_a_pool_for_each_tier(clean_db: Services) -> None:
    services = clean_db
    # Many session memories close to the query, one long-term memory further from it.
    session_rows = _rows(services, "u-tiers", [f"The billing service failed after upgrade number {i}" for i in range(60)],
                         Tier.SESSION)
    long_term = _rows(services, "u-tiers", ["Billing incidents are reviewed on Fridays by the finance team"])
    _store(services, session_rows + long_term)
    per_tier = RecallProfile(
        name="per-tier", weights=Weights(vector=1.0), sources=frozenset({Source.VECTOR}),
        vector=VectorBranch(k=10, rescore_k=10, tiers={
            Tier.SESSION: TierSearch(5, -1.0), Tier.PROJECT: TierSearch(5, -1.0), Tier.LONG_TERM: TierSearch(5, -1.0)}),
        relation=RelationBranch(anchor_k=0),
        gates=Gates(selection=Selection.TIER_TOP_K, budgets={p: Budget(50, 100_000) for p in Priority}),
    )
    ranked = recall(services, "why did the billing service fail", Scope("u-tiers", "p1", "s1"), "critical", per_tier,
                    now=NOW, record_access=False).ranking
    ids = {c.id for c in ranked}
    assert long_term[0]["id"] in ids
    assert sum(1 for c in ranked if c.id in {r["id"] for r in session_rows}) == 5


def test_fitting_a_basis_twice_gives_the_same_basis(services: Services) -> None:
    from hippograph.sketch import fit_basis

    words = services.embedder.vocabulary()[5000:5600]
    first, second = fit_basis(services.embedder, words, 8), fit_basis(services.embedder, words, 8)
    assert first.shape == (services.embedder.dimension, 8)
    assert np.array_equal(first, second)
    assert np.allclose(first.T @ first, np.eye(8), atol=1e-4)
    # Signs are fixed: each direction's largest entry is positive.
    assert all(first[np.abs(first[:, j]).argmax(), j] > 0 for j in range(8))


def test_the_migrate_command_sketches_what_has_none_and_says_so(clean_db: Services, capsys: pytest.CaptureFixture[str]) -> None:
    from hippograph.cli import main

    _store(clean_db, _rows(clean_db, "u-cli", [f"{s} {EVENTS[0]}" for s in SUBJECTS[:5]], with_sketch=False))
    assert main(["migrate"]) == 0
    assert "5 memories sketched" in capsys.readouterr().out
    assert main(["migrate"]) == 0
    assert "sketched" not in capsys.readouterr().out


def test_the_sketch_basis_command_refuses_a_dimension_it_cannot_make(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from hippograph.cli import main

    out = tmp_path / "basis.npy"
    assert main(["sketch-basis", "--out", str(out), "--dimensions", "384"]) == 1
    assert "--dimensions must be between 1 and 383, got 384" in capsys.readouterr().err
    assert not out.exists()
