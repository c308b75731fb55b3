"""The store's history: two times on what changes, the versions an edit keeps, and reads as of a moment.

A scripted history (a memory edited, decisions replaced, a near-copy merged away, a session forgotten) records each step's
answers at that step; read later with ``asOf`` = that step's moment, every read answers the same.
"""

from __future__ import annotations

import dataclasses
import time
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hippograph.graph.vocabulary import Tier
from hippograph.memory import browse
from hippograph.memory.errors import NotFound
from hippograph.memory.lifecycle import sessions
from hippograph.memory.lifecycle.consolidation import consolidate
from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.recall.query import recall
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing import forget, knowledge
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import remember
from hippograph.memory.writing.updates import update_memory

pytestmark = pytest.mark.neo4j

USER = "historian"
SCOPE = Scope(USER, "shop", None)


def moment() -> datetime:
    """A moment strictly between the write before it and the write after it."""
    time.sleep(0.01)
    at = datetime.now(timezone.utc)
    time.sleep(0.01)
    return at


# The hybrid profile searching the vector index whatever the caller owns: a large owner's path.
INDEXED = dataclasses.replace(PROFILES["hybrid"], vector=dataclasses.replace(PROFILES["hybrid"].vector, exact_scan_limit=0))


def answers(services: Services, as_of: datetime | None) -> dict[str, object]:
    """What each read answers, as of ``as_of`` (None: now)."""
    recalled = recall(services, "which database do we use for payments", SCOPE, profile="hybrid", as_of=as_of)
    indexed = recall(services, "which database do we use for payments", SCOPE, profile=INDEXED, as_of=as_of,
                     record_access=False)
    page = browse.memories_page(services, USER, browse.MemoryFilter(project_id="shop"), 50, as_of=as_of)
    return {
        "recall": [(item.id, item.content) for item in recalled.items],
        # The large owner's path: every candidate it ranked, each with the text it had then.
        "indexed": sorted((c.id, c.content) for c in indexed.ranking),
        "memories": sorted((row["id"], row["content"], row["validUntil"] is None) for row in page.rows),
        "chains": [(c["decision"] and c["decision"]["id"], c["error"]["id"], c["fix"] and c["fix"]["id"])
                   for c in browse.chains(services, USER, None, 50, as_of=as_of)],
    }


def without(answer: dict[str, object], erased: set[str]) -> dict[str, object]:
    """An answer with the rows of erased memories taken out."""
    return {read: [row for row in rows if row[0] not in erased] for read, rows in answer.items()}  # type: ignore[attr-defined]


def test_every_read_as_of_a_step_answers_what_the_store_held_then(clean_db: Services) -> None:
    services = clean_db
    steps: list[tuple[datetime, dict[str, object]]] = []

    def step() -> None:
        at = moment()
        steps.append((at, answers(services, None)))

    note = remember(services, SCOPE, MemoryInput("payments are stored in MySQL on the shop cluster", Tier.PROJECT))
    first = knowledge.record_decision(services, SCOPE, "Use MySQL for payments", reason="the team knows it")
    step()
    update_memory(services, USER, note.id, content="payments are stored in PostgreSQL on the shop cluster")
    step()
    second = knowledge.record_decision(services, SCOPE, "Use PostgreSQL for payments", reason="row locking",
                                       conflicts_with=[first.entity_id])
    knowledge.record_error(services, SCOPE, "MySQL deadlocks on payment retries", fix="Use PostgreSQL for payments",
                           caused_by=first.entity_id)
    step()
    echo = remember(services, SCOPE, MemoryInput("payments are stored in PostgreSQL on the shop cluster too", Tier.PROJECT))
    step()
    assert consolidate(services, USER).merged == [(note.id, echo.id)]
    step()
    session = Scope(USER, "shop", "call-1")
    sessions.start_session(services, session)
    remember(services, session, MemoryInput("we said payments would move to PostgreSQL next week", Tier.SESSION))
    step()
    erased = set(forget.forget_session(services, USER, "call-1").memory_ids)
    step()

    # Each step as of its moment answers what it answered then, except what was erased since:
    # forgetting wins over history.
    assert erased
    for at, then in steps:
        assert answers(services, at) == without(then, erased)
    # Every step changed what the reads answer; forgetting the session took the store back to before it.
    answered = [then for _, then in steps]
    assert all(a != b for a, b in zip(answered, answered[1:])) and answered[6] == answered[4]
    # The edited memory reads, as of the first step, with the text it had then.
    assert ("payments are stored in MySQL on the shop cluster" in
            [content for _, content, _ in steps[0][1]["memories"]])  # type: ignore[union-attr]
    assert second.closed == [first.entity_id]


def test_an_edit_keeps_the_text_it_replaced_and_forgetting_takes_every_version(clean_hashed: Services) -> None:
    services = clean_hashed
    note = remember(services, SCOPE, MemoryInput("the cache holds sessions for ten minutes", Tier.PROJECT))
    before = moment()
    for minutes in (20, 30, 40):
        update_memory(services, USER, note.id, content=f"the cache holds sessions for {minutes} minutes")
    versions = services.driver.execute_query(
        "MATCH (:Memory {id: $id})-[:HAD_VERSION]->(v:MemoryVersion) RETURN v.content AS content, "
        "v.recordedAt AS recordedAt, v.supersededAt AS supersededAt ORDER BY v.supersededAt",
        id=note.id, database_=services.database).records
    assert [v["content"] for v in versions] == ["the cache holds sessions for ten minutes"] + [f"the cache holds sessions for {n} minutes" for n in (20, 30)]
    # Each version was recorded when the one before it was superseded: no moment reads two texts or none.
    assert all(a["supersededAt"] == b["recordedAt"] for a, b in zip(versions, versions[1:]))
    then = browse.get_memories(services, USER, [note.id], as_of=before)[note.id]
    assert then["content"] == "the cache holds sessions for ten minutes"
    assert browse.get_memories(services, USER, [note.id])[note.id]["content"] == "the cache holds sessions for 40 minutes"

    forget.forget_memory(services, USER, note.id)
    left = services.driver.execute_query("MATCH (v:MemoryVersion {id: $id}) RETURN count(v) AS n",
                                         id=note.id, database_=services.database).records[0]["n"]
    assert left == 0


def test_an_as_of_recall_counts_no_access(clean_hashed: Services) -> None:
    services = clean_hashed
    note = remember(services, SCOPE, MemoryInput("the invoice job runs at midnight", Tier.PROJECT))
    at = moment()
    result = recall(services, "when does the invoice job run", SCOPE, as_of=at)
    assert [item.id for item in result.items] == [note.id]
    services.access.flush()
    count = services.driver.execute_query("MATCH (m:Memory {id: $id}) RETURN m.accessCount AS n",
                                          id=note.id, database_=services.database).records[0]["n"]
    assert count == 0
    # Before it was recorded, the memory was not there.
    assert recall(services, "when does the invoice job run", SCOPE, as_of=datetime(2000, 1, 1, tzinfo=timezone.utc)).items == []


TOPICS = ["the payments queue", "the search index", "the login page", "the nightly export", "the cache"]
STEPS = st.lists(st.tuples(st.sampled_from(["remember", "edit", "decide", "forget"]),
                           st.integers(0, len(TOPICS) - 1), st.integers(0, 9)), min_size=1, max_size=8)


def every_read(services: Services, as_of: datetime | None) -> dict[str, object]:
    """Every read an analyst makes, as of ``as_of``; the access-free parts of each answer."""
    recalled = recall(services, "what changed in the payments queue", SCOPE, priority="CRITICAL", as_of=as_of,
                      record_access=False)
    indexed = recall(services, "what changed in the payments queue", SCOPE, priority="CRITICAL", profile=INDEXED,
                     as_of=as_of, record_access=False)
    page = browse.memories_page(services, USER, browse.MemoryFilter(include_archived=True), 100, as_of=as_of)
    ids = [row["id"] for row in page.rows]
    chained = browse.chains(services, USER, None, 100, as_of=as_of)
    starts = sorted({c["error"]["id"] for c in chained} | {c["decision"]["id"] for c in chained if c["decision"]})
    return {
        "recall": [(item.id, item.content, item.score) for item in recalled.items],
        "ranking": [(c.id, c.score) for c in recalled.ranking],
        "indexed": [c.id for c in indexed.ranking],
        "memories": page.rows,
        "memory": browse.get_memories(services, USER, ids, as_of=as_of),
        "chains": chained,
        "trace": [browse.trace(services, USER, start, direction="BOTH", as_of=as_of) for start in starts],
        "tierUsage": browse.tier_usage(services, SCOPE, as_of=as_of),
    }


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
@example(steps=[("decide", 2, 0), ("decide", 2, 0)])  # the same words decided twice
@example(steps=[("remember", 0, 0), ("remember", 0, 0), ("forget", 0, 0), ("edit", 0, 0)])  # remembered twice: one
def test_as_of_now_answers_exactly_what_a_read_without_it_answers(clean_hashed: Services, steps: list) -> None:
    """Over random histories (memories written, edited, decisions closing others, memories forgotten)."""
    services = clean_hashed
    services.driver.execute_query("MATCH (n {userId: $u}) DETACH DELETE n", u=USER, database_=services.database)
    notes: list[str] = []
    decisions: list[str] = []
    for action, topic, number in steps:
        if action == "remember" or (action in ("edit", "forget") and not notes):
            stored = remember(services, SCOPE, MemoryInput(f"{TOPICS[topic]} changed {number} times", Tier.PROJECT)).id
            if stored not in notes:  # the same words again in the same scope are the memory already there
                notes.append(stored)
        elif action == "edit":
            update_memory(services, USER, notes[number % len(notes)], content=f"{TOPICS[topic]} was rewritten {number}x")
        elif action == "forget":
            forget.forget_memory(services, USER, notes.pop(number % len(notes)))
        else:
            # Each decision its own (the same words again would be the same decision, which cannot close itself).
            decided = knowledge.record_decision(services, SCOPE, f"Use plan {number}.{len(decisions)} for {TOPICS[topic]}",
                                                conflicts_with=decisions[-1:])
            decisions.append(decided.entity_id)
            if number % 2:
                knowledge.record_error(services, SCOPE, f"plan {number} broke {TOPICS[topic]}", fix=f"plan {number + 1}",
                                       caused_by=decided.entity_id)
    # Recency is measured from the moment read: the same moment both ways.
    at = datetime.now(timezone.utc)
    without = every_read(services, None)
    with_now = every_read(services, at)
    assert with_now["memories"] == without["memories"] and with_now["memory"] == without["memory"]
    assert with_now["chains"] == without["chains"] and with_now["trace"] == without["trace"]
    assert with_now["tierUsage"] == without["tierUsage"]
    assert [row[:2] for row in with_now["recall"]] == [row[:2] for row in without["recall"]]  # type: ignore[index]
    assert [row[0] for row in with_now["ranking"]] == [row[0] for row in without["ranking"]]  # type: ignore[index]
    assert with_now["indexed"] == without["indexed"]


def test_a_decision_shows_what_informed_it_as_it_was_and_an_erased_memory_only_by_its_date(clean_hashed: Services) -> None:
    services = clean_hashed
    kept = remember(services, SCOPE, MemoryInput("the checkout API times out after 30 seconds", Tier.PROJECT))
    erased = remember(services, SCOPE, MemoryInput("the checkout API runs on three pods", Tier.PROJECT))
    informing = recall(services, "how does the checkout API behave", SCOPE, priority="CRITICAL")
    assert {kept.id, erased.id} <= {item.id for item in informing.items} and informing.event_id
    decided = knowledge.record_decision(services, SCOPE, "Raise the checkout timeout", informed_by=informing.event_id)
    update_memory(services, USER, kept.id, content="the checkout API times out after 60 seconds")
    forget.forget_memory(services, USER, erased.id)

    context = browse.decision_context(services, USER, decided.entity_id)
    assert context is not None and context.recall_id == informing.event_id
    by_id = {item.id: item for item in context.items}
    assert [item.id for item in context.items] == [item.id for item in informing.items]
    assert by_id[kept.id].memory["content"] == "the checkout API times out after 30 seconds"  # type: ignore[index]
    assert by_id[erased.id].memory is None and by_id[erased.id].erased_at is not None
    assert "three pods" not in repr(context)
    # Another user's recall cannot inform this user's decision; a decision nothing informed has no context.
    other = recall(services, "checkout", Scope("someone-else"), priority="CRITICAL")
    with pytest.raises(NotFound):
        knowledge.record_decision(services, SCOPE, "Use their recall", informed_by=other.event_id)
    plain = knowledge.record_decision(services, SCOPE, "Keep the pods at three")
    assert browse.decision_context(services, USER, plain.entity_id) is None
