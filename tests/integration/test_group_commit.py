"""Many writers at once against the real Neo4j: writes that arrive together commit together, and each
still gets its own result, its own refusal, and the tier rules. No rule here is about the model, so a test
double stands for it (``tests/encoders.py``).

To make a group on purpose, a test holds the write queue with a call of its own (the queue's
first group runs it and waits), starts its writers, and releases the queue once they all wait:
they then commit as the next group."""

from __future__ import annotations

import contextvars
import dataclasses
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

from hippograph.memory.browse import get_memories
from hippograph.memory.errors import CapacityExceeded, DeadlinePassed, NotFound
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope, trigger
from hippograph.memory.writing.knowledge import record_error
from hippograph.memory.writing.outcomes import Deadline, set_deadline
from hippograph.memory.writing.store import MemoryInput, Remembered, remember
from hippograph.graph.vocabulary import Tier

pytestmark = pytest.mark.neo4j

ALICE = "alice"


def rows(services: Services, cypher: str, **params: Any) -> list[dict[str, Any]]:
    return [dict(r) for r in services.driver.execute_query(cypher, params, database_=services.database).records]


def queued(services: Services) -> int:
    with services.writer.writes._changed:
        return len(services.writer.writes._queue)


@contextmanager
def held_queue(services: Services) -> Iterator[Callable[[int], None]]:
    """The write queue held by a call of the test's own; ``until(n)`` waits for n writers behind it.
    Leaving the block releases it."""
    started, release = threading.Event(), threading.Event()

    def hold(items: Sequence[str]) -> list[str]:
        started.set()
        assert release.wait(60)
        return list(items)

    holder = threading.Thread(target=services.writer.writes.submit, args=("hold", hold))
    holder.start()
    assert started.wait(30)

    def until(n: int) -> None:
        for _ in range(3000):
            if queued(services) >= n:
                return
            threading.Event().wait(0.01)
        raise AssertionError(f"only {queued(services)} of {n} writers reached the queue")

    try:
        yield until
    finally:
        release.set()
        holder.join(30)


def concurrently(calls: Sequence[Callable[[], Any]]) -> tuple[list[Any], list[threading.Thread]]:
    """Each call in its own thread; its result or the exception it raised, in order."""
    outcomes: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            outcomes[i] = calls[i]()
        except Exception as exc:  # the outcome under test
            outcomes[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    return outcomes, threads


def joined(outcomes: list[Any], threads: list[threading.Thread]) -> list[Any]:
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    return outcomes


def in_one_group(services: Services, calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Each call's result or exception, the calls committed as one group behind a held queue."""
    with held_queue(services) as until:
        outcomes, threads = concurrently(calls)
        until(len(calls))
    return joined(outcomes, threads)


def test_writes_that_wait_together_are_stored_each_with_its_own_id_scope_audit_and_session_order(clean_hashed: Services) -> None:
    writes = [(Scope(ALICE, "web"), MemoryInput(f"The web project uses tool number {i}", Tier.PROJECT)) for i in range(6)]
    writes += [(Scope(ALICE, "web", f"s{i % 3}"), MemoryInput(f"In session {i % 3} we said line {i}", Tier.SESSION))
               for i in range(6)]
    writes.append((Scope("bob", "web"), MemoryInput("Bob keeps his own notes on Kafka", Tier.PROJECT)))
    stored = in_one_group(clean_hashed, [lambda s=s, m=m: remember(clean_hashed, s, m) for s, m in writes])
    assert all(isinstance(r, Remembered) and r.created for r in stored), stored
    assert len({r.id for r in stored}) == len(writes)
    found = {r["id"]: r for r in rows(clean_hashed, "MATCH (u:User)-[:REMEMBERS]->(m:Memory) RETURN m.id AS id, "
                                      "u.id AS user, m.content AS content, m.projectId AS project, m.sessionId AS session, "
                                      "m.preceding AS preceding, m.createdAt AS at")}
    for (scope, item), result in zip(writes, stored):
        memory = found[result.id]
        tier_scope = scope.for_tier(item.tier)
        assert (memory["user"], memory["content"]) == (scope.user_id, item.content)
        assert (memory["project"], memory["session"]) == (tier_scope.project_id, tier_scope.session_id)
    audited = rows(clean_hashed, "MATCH (e:AuditEvent {operation: 'remember'}) RETURN e.userId AS user, e.ids AS ids")
    assert sorted((e["user"], e["ids"][0]) for e in audited) == sorted((s.user_id, r.id) for (s, _), r in zip(writes, stored))
    # Each session's memories, committed in one statement, still carry the text said right before them.
    for session in ("s0", "s1", "s2"):
        timeline = sorted((m for m in found.values() if m["session"] == session), key=lambda m: m["at"])
        assert [m["preceding"] for m in timeline] == [None] + [m["content"] for m in timeline[:-1]]
    # Entities are upserted per user and scope, even when their memories commit in one statement.
    mentions = rows(clean_hashed, "MATCH (m:Memory)-[:MENTIONS]->(e:Entity) RETURN m.userId AS writer, e.userId AS owner, e.name AS name")
    assert all(m["writer"] == m["owner"] for m in mentions)
    assert {m["writer"] for m in mentions if m["name"] == "Kafka"} == {"bob"}


def test_the_same_text_twice_in_one_group_is_stored_once(clean_hashed: Services) -> None:
    scope, text = Scope(ALICE, "web"), "Deploys go out on Tuesdays"
    both = in_one_group(clean_hashed, [lambda: remember(clean_hashed, scope, MemoryInput(text, Tier.PROJECT))] * 2)
    first, second = sorted(both, key=lambda r: r.created, reverse=True)
    assert first.created and not second.created and second.duplicate_of == first.id == second.id
    assert rows(clean_hashed, "MATCH (m:Memory {content: $text}) RETURN m.id AS id", text=text) == [{"id": first.id}]


def test_each_write_carries_its_memory_as_a_read_after_the_commit_finds_it(clean_hashed: Services) -> None:
    scope = Scope(ALICE, "web")
    calls = [lambda i=i: remember(clean_hashed, scope, MemoryInput(f"Service {i} moved to the new cluster", Tier.PROJECT))
             for i in range(3)]
    calls.append(lambda: remember(clean_hashed, scope, MemoryInput("Service 0 moved to the new cluster", Tier.PROJECT)))
    calls.append(lambda: record_error(clean_hashed, scope, "The new cluster drops idle connections").memory)  # goes alone
    stored = in_one_group(clean_hashed, calls)
    assert all(isinstance(r, Remembered) for r in stored), stored
    read = get_memories(clean_hashed, ALICE, [r.id for r in stored])
    for result in stored:
        assert result.memory is not None and result.memory == read[result.id]
    duplicate = next(r for r in stored if not r.created)
    assert duplicate.memory["content"] == "Service 0 moved to the new cluster"


def test_a_write_refused_inside_a_group_fails_alone_and_the_others_are_stored(clean_hashed: Services) -> None:
    scope = Scope(ALICE, "web")
    plain = [MemoryInput(f"Release {i} shipped without incident", Tier.PROJECT) for i in range(4)]
    calls = [lambda m=m: remember(clean_hashed, scope, m) for m in plain]
    calls.append(lambda: record_error(clean_hashed, scope, "The cache stampedes at noon", caused_by="no-such-decision"))
    *stored, refused = in_one_group(clean_hashed, calls)
    assert isinstance(refused, NotFound) and "no-such-decision" in str(refused)
    assert all(isinstance(r, Remembered) and r.created for r in stored)
    contents = {r["content"] for r in rows(clean_hashed, "MATCH (m:Memory) RETURN m.content AS content")}
    assert contents == {m.content for m in plain}
    assert rows(clean_hashed, "MATCH (e:Entity) WHERE e.name CONTAINS 'stampede' RETURN e.id AS id") == []


def test_a_write_whose_own_work_breaks_fails_alone_and_its_memory_is_not_kept(clean_hashed: Services) -> None:
    scope = Scope(ALICE, "web")

    def breaks(tx, stored: Remembered) -> None:
        raise RuntimeError("the link step broke")

    plain = [MemoryInput(f"Build {i} passed on the first try", Tier.PROJECT) for i in range(3)]
    calls = [lambda m=m: remember(clean_hashed, scope, m) for m in plain]
    calls.append(lambda: remember(clean_hashed, scope, MemoryInput("This write's follow-up breaks", Tier.PROJECT), then=breaks))
    *stored, broken = in_one_group(clean_hashed, calls)
    assert isinstance(broken, RuntimeError) and "link step" in str(broken)
    assert all(isinstance(r, Remembered) and r.created for r in stored)
    contents = {r["content"] for r in rows(clean_hashed, "MATCH (m:Memory) RETURN m.content AS content")}
    assert contents == {m.content for m in plain}


def tier_used(services: Services, scope: Scope) -> int:
    return rows(services, "MATCH (m:Memory {userId: $u, tier: 'PROJECT', projectId: $p}) WHERE m.archived = false "
                "RETURN coalesce(sum(coalesce(m.summaryTokens, m.tokens)), 0) AS used",
                u=scope.user_id, p=scope.project_id)[0]["used"]


@pytest.mark.parametrize("held", [True, False], ids=["one-group", "as-they-come"])
def test_racing_writes_at_the_capacity_edge_never_take_the_tier_past_its_trigger(clean_hashed: Services, held: bool) -> None:
    capacity = 400
    services = dataclasses.replace(clean_hashed, settings=dataclasses.replace(clean_hashed.settings, project_capacity=capacity))
    scope, limit = Scope(ALICE, "edge"), trigger(Tier.PROJECT) * capacity
    texts = [f"Note {i}: the edge service restarts its worker pool after each deploy of build {i}" for i in range(30)]
    seen: list[int] = []
    done = threading.Event()

    def watch() -> None:  # what any reader can see at any moment, from committed states
        while not done.is_set():
            seen.append(tier_used(services, scope))

    watcher = threading.Thread(target=watch)
    watcher.start()
    calls = [lambda t=t: remember(services, scope, MemoryInput(t, Tier.PROJECT)) for t in texts]
    try:
        results = in_one_group(services, calls) if held else joined(*concurrently(calls))
    finally:
        done.set()
        watcher.join(30)
    assert all(isinstance(r, Remembered) or isinstance(r, CapacityExceeded) for r in results), results
    assert sum(isinstance(r, Remembered) and r.created for r in results) >= len(texts) // 2
    assert sum(r.compression is not None for r in results if isinstance(r, Remembered)) >= 1  # the edge was reached
    assert seen and max(seen) <= limit, (max(seen), limit)
    assert tier_used(services, scope) <= limit


def test_the_same_request_twice_in_one_group_is_stored_once_and_both_hear_its_memory(clean_hashed: Services) -> None:
    scope, item = Scope(ALICE, "web"), MemoryInput("Canary deploys go to one region first", Tier.PROJECT)
    both = in_one_group(clean_hashed, [lambda: remember(clean_hashed, scope, item, request_id="deploy-note-1")] * 2)
    first, second = sorted(both, key=lambda r: r.created, reverse=True)
    assert first.created and not second.created and second.id == first.id
    assert rows(clean_hashed, "MATCH (m:Memory) RETURN m.requestId AS rid") == [{"rid": "deploy-note-1"}]


def test_a_write_whose_request_was_answered_while_it_waited_is_not_stored_and_the_others_are(clean_hashed: Services) -> None:
    scope = Scope(ALICE, "web")
    deadline = Deadline()
    request = contextvars.copy_context()  # the late write's request, as the API binds it
    request.run(set_deadline, deadline)
    calls = [lambda i=i: remember(clean_hashed, scope, MemoryInput(f"Worker {i} came up", Tier.PROJECT)) for i in range(3)]
    calls.append(lambda: request.run(remember, clean_hashed, scope, MemoryInput("Answered before it began", Tier.PROJECT)))
    with held_queue(clean_hashed) as until:
        outcomes, threads = concurrently(calls)
        until(len(calls))
        assert deadline.expire() is False  # its answer goes out now: "cut off"
    *stored, late = joined(outcomes, threads)
    assert isinstance(late, DeadlinePassed)
    assert all(isinstance(r, Remembered) and r.created for r in stored)
    contents = {r["content"] for r in rows(clean_hashed, "MATCH (m:Memory) RETURN m.content AS content")}
    assert contents == {f"Worker {i} came up" for i in range(3)}
