"""The one background writer (``hippograph.memory.background``) against the real Neo4j, as both of
its kinds use it — the audit log of reads and the access recorder: the same flush rule, the same
behaviour on close, the same refusal to take a request down."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

import pytest

from hippograph.memory.audit import AuditLog
from hippograph.memory.background import BackgroundWriter
from hippograph.memory.recall.access_counts import AccessRecorder
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)


@dataclass
class Kind:
    """A background writer of one kind: how to open one, record a row through it, and count what landed."""

    name: str
    open: Callable[[Services, str], BackgroundWriter]
    record: Callable[[BackgroundWriter, int], None]
    landed: Callable[[Services], int]
    logger: str


def count(services: Services, cypher: str) -> int:
    return services.driver.execute_query(cypher, database_=services.database).records[0][0]


KINDS = [
    Kind("audit", lambda s, db: AuditLog(s.driver, db), lambda w, n: w.record("bg-user", "recall", [f"m{n}"]),
         lambda s: count(s, "MATCH (e:AuditEvent {userId: 'bg-user'}) RETURN count(e)"), "hippograph.audit"),
    Kind("access", lambda s, db: AccessRecorder(s.driver, db), lambda w, n: w.record("bg-user", [f"m{n}"], NOW),
         lambda s: count(s, "MATCH (m:Memory {userId: 'bg-user'}) RETURN coalesce(sum(m.accessCount), 0)"),
         "hippograph.memory.recall.access_counts"),
]


@pytest.fixture(params=KINDS, ids=[k.name for k in KINDS])
def kind(request: pytest.FixtureRequest, clean_db: Services) -> Kind:
    # Memories for the access recorder to count: it books accesses of stored memories only.
    clean_db.driver.execute_query(
        "UNWIND range(0, 49) AS n CREATE (:Memory {id: 'm' + toString(n), userId: 'bg-user', accessCount: 0})",
        database_=clean_db.database,
    )
    return request.param


def test_what_was_recorded_before_a_flush_has_landed_when_it_returns(clean_db: Services, kind: Kind) -> None:
    writer = kind.open(clean_db, clean_db.database)
    try:
        for n in range(30):
            kind.record(writer, n)
        assert writer.flush()
        assert kind.landed(clean_db) == 30
    finally:
        writer.close()


def test_what_was_recorded_lands_without_anyone_flushing(clean_db: Services, kind: Kind) -> None:
    writer = kind.open(clean_db, clean_db.database)
    try:
        kind.record(writer, 0)
        deadline = time.monotonic() + 30  # the writer wakes every 0.2 s; this only proves it wakes at all
        while kind.landed(clean_db) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert kind.landed(clean_db) == 1
    finally:
        writer.close()


def test_closing_stores_what_waits_and_a_row_recorded_after_close_is_stored_at_once(clean_db: Services, kind: Kind) -> None:
    writer = kind.open(clean_db, clean_db.database)
    for n in range(5):
        kind.record(writer, n)
    writer.close()
    assert kind.landed(clean_db) == 5
    kind.record(writer, 5)  # a request still in flight at shutdown: stored before record returns
    assert kind.landed(clean_db) == 6


def test_a_batch_that_cannot_be_stored_is_dropped_and_logged_and_flush_still_returns(
    clean_db: Services, kind: Kind, caplog: pytest.LogCaptureFixture,
) -> None:
    # A database that does not exist makes every write fail, as an unreachable store would.
    writer = kind.open(clean_db, "nosuchdatabase")
    try:
        with caplog.at_level(logging.ERROR, logger=kind.logger):
            kind.record(writer, 0)
            assert writer.flush()
    finally:
        writer.close()
    assert any(r.name == kind.logger and "dropped 1 " in r.getMessage() for r in caplog.records)
    assert kind.landed(clean_db) == 0
