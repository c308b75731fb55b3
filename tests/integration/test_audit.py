"""The audit log against the real Neo4j: stored with the write, batched for reads, filtered, paged, durable."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from hippograph.graph import audit as audit_cypher
from hippograph.graph.driver import connect
from hippograph.memory.audit import AuditEvent, AuditLog
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

COUNT_EVENTS = "MATCH (e:AuditEvent) RETURN count(e) AS n"


@pytest.fixture
def audit(clean_hashed: Services) -> Iterator[AuditLog]:
    log = AuditLog(clean_hashed.driver, clean_hashed.database)
    yield log
    log.close()


def count_events(services: Services, where: str = "", **params: object) -> int:
    query = f"MATCH (e:AuditEvent) {where} RETURN count(e) AS n" if where else COUNT_EVENTS
    return services.driver.execute_query(query, params, database_=services.database).records[0]["n"]


def seed(services: Services, events: list[dict[str, object]]) -> None:
    """Store events with chosen times, as the write path would have, so filters can be tested exactly."""
    with services.driver.session(database=services.database) as session:
        session.execute_write(audit_cypher.record_events, events)


def event_row(n: int, at: datetime, user: str | None = "alice", operation: str = "recall") -> dict[str, object]:
    return {"id": f"evt-{n:04d}", "at": at, "userId": user, "operation": operation, "ids": [f"m{n}"], "detail": None}


T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)


def test_an_event_recorded_in_a_transaction_is_stored_with_it(clean_hashed: Services, audit: AuditLog) -> None:
    with clean_hashed.driver.session(database=clean_hashed.database) as session:
        event = session.execute_write(
            lambda tx: (tx.run("CREATE (:Probe {id: 'p1'})").consume(), audit.record_in(tx, "alice", "remember", ["p1"], "tier=PROJECT"))[1]
        )
    stored = clean_hashed.driver.execute_query(
        "MATCH (e:AuditEvent {id: $id}) RETURN e.userId AS user, e.operation AS op, e.ids AS ids, e.detail AS detail, "
        "e.at AS at, valueType(e.at) AS type",
        id=event.id, database_=clean_hashed.database,
    ).records
    assert len(stored) == 1
    row = stored[0]
    assert (row["user"], row["op"], row["ids"], row["detail"]) == ("alice", "remember", ["p1"], "tier=PROJECT")
    assert row["type"].startswith("ZONED DATETIME")
    assert row["at"].to_native() == event.at


def test_a_transaction_that_fails_leaves_no_event(clean_hashed: Services, audit: AuditLog) -> None:
    def write_then_fail(tx) -> None:
        audit.record_in(tx, "alice", "remember", ["p1"])
        tx.run("CREATE (:Probe {id: 'p1'})").consume()
        raise RuntimeError("the write failed after its log line")

    with clean_hashed.driver.session(database=clean_hashed.database) as session:
        with pytest.raises(RuntimeError, match="write failed"):
            session.execute_write(write_then_fail)
    assert count_events(clean_hashed) == 0
    probes = clean_hashed.driver.execute_query("MATCH (p:Probe) RETURN count(p) AS n", database_=clean_hashed.database)
    assert probes.records[0]["n"] == 0


def test_background_events_are_stored_after_flush(clean_hashed: Services, audit: AuditLog) -> None:
    recorded = [audit.record("bob", "recall", [f"m{i}", f"n{i}"], detail=None) for i in range(25)]
    assert audit.flush(timeout=10)
    assert count_events(clean_hashed, "WHERE e.userId = 'bob' AND e.operation = 'recall'") == 25
    events, cursor = audit.query(user_id="bob", first=100)
    assert cursor is None
    assert sorted(events, key=lambda e: e.id) == sorted(recorded, key=lambda e: e.id)


def test_filters_by_user_operation_and_time_each_work_and_combine(clean_hashed: Services, audit: AuditLog) -> None:
    rows = []
    for n in range(24):
        rows.append(event_row(
            n,
            T0 + timedelta(hours=n),
            user=("alice", "bob", None)[n % 3],
            operation=("remember", "recall", "forget", "export")[n % 4],
        ))
    seed(clean_hashed, rows)

    def ids(**filters: object) -> list[str]:
        events, _ = audit.query(first=100, **filters)
        return [e.id for e in events]

    def expected(keep) -> list[str]:
        return [r["id"] for r in sorted(rows, key=lambda r: r["at"], reverse=True) if keep(r)]

    assert ids() == expected(lambda r: True)
    assert ids(user_id="alice") == expected(lambda r: r["userId"] == "alice")
    assert ids(operations=["recall", "export"]) == expected(lambda r: r["operation"] in ("recall", "export"))
    assert ids(operations=[]) == []
    since, until = T0 + timedelta(hours=5), T0 + timedelta(hours=15)
    assert ids(since=since) == expected(lambda r: r["at"] >= since)
    assert ids(until=until) == expected(lambda r: r["at"] < until)
    assert ids(since=since, until=until) == expected(lambda r: since <= r["at"] < until)
    combined = ids(user_id="bob", operations=["recall"], since=since, until=until)
    assert combined == expected(lambda r: r["userId"] == "bob" and r["operation"] == "recall" and since <= r["at"] < until)
    assert combined  # the data holds such events, so the combination is really tested


def test_time_bounds_in_another_timezone_mean_the_same_instants(clean_hashed: Services, audit: AuditLog) -> None:
    seed(clean_hashed, [event_row(n, T0 + timedelta(hours=n)) for n in range(6)])
    tokyo = timezone(timedelta(hours=9))
    events, _ = audit.query(since=(T0 + timedelta(hours=2)).astimezone(tokyo), until=(T0 + timedelta(hours=4)).astimezone(tokyo))
    assert [e.id for e in events] == ["evt-0003", "evt-0002"]


def test_naive_bounds_and_bad_arguments_are_refused(audit: AuditLog) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        audit.query(since=datetime(2025, 1, 1))
    with pytest.raises(ValueError, match="first"):
        audit.query(first=0)
    with pytest.raises(ValueError, match="cursor"):
        audit.query(after="not a cursor")


@pytest.mark.parametrize("operation", ["", "   ", "x" * 65])
def test_operation_names_must_be_1_to_64_characters(audit: AuditLog, operation: str) -> None:
    with pytest.raises(ValueError, match="operation"):
        audit.record("alice", operation, [])


def test_cursor_pages_return_every_event_once_newest_first(clean_hashed: Services, audit: AuditLog) -> None:
    # Several events share each instant: the id breaks the tie, so no page repeats or skips one.
    rows = [event_row(n, T0 + timedelta(seconds=n // 4), user="carol") for n in range(137)]
    seed(clean_hashed, rows)
    seen: list[AuditEvent] = []
    cursor: str | None = None
    pages = 0
    while True:
        page, cursor = audit.query(user_id="carol", first=10, after=cursor)
        seen += page
        pages += 1
        assert len(page) == 10 or cursor is None
        if cursor is None:
            break
    assert pages == 14
    assert [e.id for e in seen] == [r["id"] for r in sorted(rows, key=lambda r: (r["at"], r["id"]), reverse=True)]
    assert len({e.id for e in seen}) == 137


def test_a_page_that_ends_exactly_at_the_last_event_has_no_cursor(clean_hashed: Services, audit: AuditLog) -> None:
    seed(clean_hashed, [event_row(n, T0 + timedelta(minutes=n)) for n in range(20)])
    first_page, cursor = audit.query(first=10)
    second_page, last = audit.query(first=10, after=cursor)
    assert len(first_page) == len(second_page) == 10
    assert last is None


def test_concurrent_records_from_many_threads_all_land(clean_hashed: Services, audit: AuditLog) -> None:
    def worker(t: int) -> None:
        for i in range(250):
            audit.record(f"user-{t}", "recall", [f"m-{t}-{i}"])

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert audit.flush(timeout=30)
    assert count_events(clean_hashed) == 2000
    assert count_events(clean_hashed, "WHERE e.userId = 'user-7'") == 250
    distinct = clean_hashed.driver.execute_query(
        "MATCH (e:AuditEvent) RETURN count(DISTINCT e.ids[0]) AS n", database_=clean_hashed.database
    ).records[0]["n"]
    assert distinct == 2000


def test_events_survive_closing_and_a_new_driver(clean_hashed: Services) -> None:
    first = AuditLog(clean_hashed.driver, clean_hashed.database)
    written = [first.record("dave", "export", [f"m{i}"]) for i in range(5)]
    first.close()  # close stores what is queued: no flush needed

    driver = connect(clean_hashed.settings)
    try:
        second = AuditLog(driver, clean_hashed.database)
        try:
            events, _ = second.query(user_id="dave")
        finally:
            second.close()
    finally:
        driver.close()
    assert sorted(e.id for e in events) == sorted(e.id for e in written)
    assert all(e.operation == "export" and e.user_id == "dave" for e in events)


def test_each_event_goes_to_the_python_logger_as_json(audit: AuditLog, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="hippograph.audit"):
        event = audit.record("gina", "recall", ["m1", "m2"], detail="query=cats")
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "hippograph.audit" and r.levelno == logging.INFO]
    assert lines == [{
        "id": event.id, "at": event.at.isoformat(), "userId": "gina", "operation": "recall",
        "ids": ["m1", "m2"], "detail": "query=cats",
    }]


def test_a_recall_is_logged_with_what_it_returned_and_not_the_query(clean_hashed: Services) -> None:
    from hippograph.graph.vocabulary import Tier
    from hippograph.memory.recall.query import recall
    from hippograph.memory.tiers import Scope
    from hippograph.memory.writing.store import MemoryInput, remember

    stored = remember(clean_hashed, Scope("alice", "p"), MemoryInput("The deploy runs on Fridays", Tier.PROJECT))
    result = recall(clean_hashed, "when does the deploy run? password hunter2", Scope("alice", "p"), "critical")
    assert [i.id for i in result.items] == [stored.id]
    clean_hashed.audit.flush()
    rows = clean_hashed.driver.execute_query(
        "MATCH (e:AuditEvent {userId: 'alice', operation: 'recall'}) RETURN e.ids AS ids, e.detail AS detail",
        database_=clean_hashed.database).records
    assert [r["ids"] for r in rows] == [[stored.id]]
    assert "hunter2" not in rows[0]["detail"] and "deploy" not in rows[0]["detail"]
