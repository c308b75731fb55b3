"""Access bookkeeping: what recall returns is counted exactly, off the recall's path."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest

from hippograph.graph.memories import create_memories
from hippograph.memory.recall.access_counts import AccessRecorder
from hippograph.memory.recall.query import recall
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
TEXTS = [
    "the payments service retries webhooks three times",
    "payments webhooks are signed with an HMAC secret rotated monthly",
    "the payments dashboard shows webhook failures per merchant",
    "we moved the payments queue to a dedicated cluster",
]


def store(services: Services) -> list[str]:
    vectors = services.embedder.embed(TEXTS)
    rows = []
    for text, vector in zip(TEXTS, vectors):
        memory_id = str(uuid.uuid4())
        rows.append({
            "id": memory_id, "content": text, "summary": None, "tier": "PROJECT", "kind": "note", "labels": ["Memory"],
            "userId": "u1", "projectId": "p1", "sessionId": None, "createdAt": (NOW - timedelta(days=1)).isoformat(),
            "relevance": 1.0, "tokens": services.tokens.count(text), "summaryTokens": None, "attributes": None,
            "contentHash": memory_id, "embedding": vector.tolist(),
        })
    with services.driver.session(database=services.database) as session:
        session.execute_write(create_memories, rows)
    return [row["id"] for row in rows]


def counts(services: Services, ids: list[str]) -> dict[str, tuple[int, object]]:
    records = services.driver.execute_query(
        "UNWIND $ids AS id MATCH (m:Memory {id: id}) RETURN m.id AS id, m.accessCount AS n, m.lastAccessedAt AS at",
        ids=ids, database_=services.database,
    ).records
    return {r["id"]: (r["n"], r["at"]) for r in records}


def test_concurrent_recalls_count_every_access_exactly(clean_db: Services) -> None:
    ids = store(clean_db)
    recorder = AccessRecorder(clean_db.driver, clean_db.database)
    returned: Counter[str] = Counter()
    lock = threading.Lock()
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(10):
                result = recall(clean_db, "payments webhooks", Scope("u1", "p1"), ["critical", "high", "medium"][i % 3],
                                "hybrid", now=NOW + timedelta(minutes=n), access=recorder)
                with lock:
                    returned.update(item.id for item in result.items)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert recorder.flush(timeout=30)
    found = counts(clean_db, ids)
    assert sum(returned.values()) >= 80  # every recall returned something
    for memory_id in ids:
        assert found[memory_id][0] == returned[memory_id]
        if returned[memory_id]:
            assert found[memory_id][1].to_native() == NOW + timedelta(minutes=7)  # the latest recall's "now"
    recorder.close()


def test_two_recorders_writing_at_once_lose_no_increment(clean_db: Services) -> None:
    ids = store(clean_db)
    recorders = [AccessRecorder(clean_db.driver, clean_db.database) for _ in range(2)]

    def hammer(recorder: AccessRecorder) -> None:
        for _ in range(200):
            recorder.record("u1", ids, NOW)

    threads = [threading.Thread(target=hammer, args=(r,)) for r in recorders for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for recorder in recorders:
        assert recorder.flush(timeout=60)
        recorder.close()
    assert {memory_id: n for memory_id, (n, _) in counts(clean_db, ids).items()} == {memory_id: 800 for memory_id in ids}


def test_recording_does_not_wait_for_the_write(clean_db: Services) -> None:
    ids = store(clean_db)
    recorder = AccessRecorder(clean_db.driver, clean_db.database, interval=3600)
    recorder.record("u1", ids, NOW)  # returns at once; the write waits for the hour, or a flush
    assert counts(clean_db, ids)[ids[0]][0] == 0
    assert recorder.flush(timeout=30)
    assert counts(clean_db, ids)[ids[0]][0] == 1
    recorder.close()


def test_a_recall_that_returns_nothing_records_nothing(clean_db: Services) -> None:
    ids = store(clean_db)
    recorder = AccessRecorder(clean_db.driver, clean_db.database)
    result = recall(clean_db, "payments", Scope("u1", "p1"), "low", "hybrid", now=NOW, access=recorder)
    assert result.items == []
    assert recorder.flush(timeout=10)
    assert all(n == 0 for n, _ in counts(clean_db, ids).values())
    recorder.close()


def test_an_access_counts_only_for_the_memory_of_that_user(clean_db: Services) -> None:
    ids = store(clean_db)
    recorder = AccessRecorder(clean_db.driver, clean_db.database)
    for _ in range(5):
        recorder.record("someone-else", ids, NOW)  # the ids of u1's memories, booked for another user
    recorder.record("u1", ids[:1], NOW)
    assert recorder.flush(timeout=30)
    assert {memory_id: n for memory_id, (n, _) in counts(clean_db, ids).items()} == {
        memory_id: 1 if memory_id == ids[0] else 0 for memory_id in ids
    }
    recorder.close()
