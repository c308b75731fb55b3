"""The one writer against the real Neo4j: request ids, the fields a refusal names, and a write whose
request's deadline passed before it began. No rule here is about the model, so a test double stands for it
(``tests/encoders.py``)."""

from __future__ import annotations

import contextvars
import dataclasses
import uuid
from typing import Any

import pytest

from hippograph.graph.vocabulary import Tier
from hippograph.memory.errors import CapacityExceeded, DeadlinePassed, InvalidInput
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing import knowledge
from hippograph.memory.writing.admission import MAX_CONTENT_CHARS, MemoryInput
from hippograph.memory.writing.forget import forget_memory
from hippograph.memory.writing.outcomes import Deadline, set_deadline
from hippograph.memory.writing.store import bulk_import, remember
from hippograph.memory.writing.updates import update_memory

pytestmark = pytest.mark.neo4j

ALICE = Scope("alice", "shop")


def rows(services: Services, cypher: str, **params: Any) -> list[dict[str, Any]]:
    return [dict(r) for r in services.driver.execute_query(cypher, params, database_=services.database).records]


def anywhere(services: Services, needle: str) -> int:
    """How many string properties of any node or relationship hold ``needle``."""
    return rows(services, "MATCH (n) UNWIND keys(n) AS k WITH n[k] AS v WHERE v IS :: STRING AND v CONTAINS $needle "
                "RETURN count(*) AS n", needle=needle)[0]["n"] + rows(
        services, "MATCH ()-[r]->() UNWIND keys(r) AS k WITH r[k] AS v WHERE v IS :: STRING AND v CONTAINS $needle "
        "RETURN count(*) AS n", needle=needle)[0]["n"]


def request_id() -> str:
    return f"req-{uuid.uuid4()}"


def test_a_retry_with_the_same_request_id_answers_with_the_first_outcome(clean_hashed: Services) -> None:
    rid = request_id()
    item = MemoryInput("The checkout service retries payments twice", Tier.PROJECT)
    first = remember(clean_hashed, ALICE, item, request_id=rid)
    again = remember(clean_hashed, ALICE, item, request_id=rid)
    assert first.created and (again.id, again.created, again.duplicate_of) == (first.id, False, first.id)
    assert again.memory is not None and again.memory["content"] == item.content
    assert rows(clean_hashed, "MATCH (m:Memory) RETURN m.id AS id, m.requestId AS rid") == [{"id": first.id, "rid": rid}]
    logged = rows(clean_hashed, "MATCH (e:AuditEvent {operation: 'remember'}) RETURN e.detail AS detail ORDER BY e.at")
    assert [r["detail"] for r in logged] == ["tier=PROJECT", "retry: already stored"]


def test_a_retry_is_recognised_by_its_request_id_even_when_its_memory_was_compressed_away_from_echoes(
    clean_hashed: Services,
) -> None:
    # The content hash finds live memories only; a request id finds the memory its request wrote.
    rid = request_id()
    first = remember(clean_hashed, ALICE, MemoryInput("Deploys are frozen in December", Tier.PROJECT), request_id=rid)
    clean_hashed.driver.execute_query("MATCH (m:Memory {id: $id}) SET m.archived = true", id=first.id,
                                  database_=clean_hashed.database)
    again = remember(clean_hashed, ALICE, MemoryInput("Deploys are frozen in December", Tier.PROJECT), request_id=rid)
    assert (again.id, again.created) == (first.id, False)
    echo = remember(clean_hashed, ALICE, MemoryInput("Deploys are frozen in December", Tier.PROJECT))
    assert echo.created and echo.id != first.id


def test_a_request_id_used_again_for_other_content_is_refused_and_nothing_is_stored(clean_hashed: Services) -> None:
    rid = request_id()
    remember(clean_hashed, ALICE, MemoryInput("Invoices are sent on the first", Tier.PROJECT), request_id=rid)
    with pytest.raises(InvalidInput, match="already answered a write of other content") as refused:
        remember(clean_hashed, ALICE, MemoryInput("Invoices are sent on the fifth", Tier.PROJECT), request_id=rid)
    assert refused.value.field == "requestId"
    assert rows(clean_hashed, "MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 1}]


def test_two_tenants_never_collide_on_a_request_id(clean_hashed: Services) -> None:
    rid = request_id()
    mine = remember(clean_hashed, ALICE, MemoryInput("Alice ships on Mondays", Tier.PROJECT), request_id=rid)
    theirs = remember(clean_hashed, Scope("bob", "shop"), MemoryInput("Bob ships on Fridays", Tier.PROJECT), request_id=rid)
    assert mine.created and theirs.created and mine.id != theirs.id
    assert rows(clean_hashed, "MATCH (m:Memory {requestId: $rid}) RETURN m.userId AS user ORDER BY user", rid=rid) == [
        {"user": "alice"}, {"user": "bob"}]


def test_forgetting_a_memory_leaves_no_trace_of_its_request_id(clean_hashed: Services) -> None:
    rid = request_id()
    stored = remember(clean_hashed, ALICE, MemoryInput("The staging cluster runs in Frankfurt", Tier.PROJECT), request_id=rid)
    remember(clean_hashed, ALICE, MemoryInput("The staging cluster runs in Frankfurt", Tier.PROJECT), request_id=rid)
    assert anywhere(clean_hashed, rid) == 1
    forget_memory(clean_hashed, "alice", stored.id)
    assert anywhere(clean_hashed, rid) == 0
    again = remember(clean_hashed, ALICE, MemoryInput("The staging cluster runs in Frankfurt", Tier.PROJECT), request_id=rid)
    assert again.created and again.id != stored.id


@pytest.mark.parametrize("rid", ["sk-proj-" + "Abc123Def456Ghi789Jkl012Mno345Pqr678", "Sw0rdf1sh" + "3fa9c21b", "a b", ""])
def test_a_request_id_is_an_id_and_one_holding_a_secret_is_refused(clean_hashed: Services, rid: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        remember(clean_hashed, ALICE, MemoryInput("Refunds take five days", Tier.PROJECT), request_id=rid)
    assert "request id" in str(refused.value) and (not rid or rid not in str(refused.value) or " " in rid)
    assert rows(clean_hashed, "MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 0}]


def test_a_retried_decision_is_the_first_one_and_closes_nothing_again(clean_hashed: Services) -> None:
    old = knowledge.record_decision(clean_hashed, ALICE, "Use MySQL")
    rid = request_id()
    first = knowledge.record_decision(clean_hashed, ALICE, "Use PostgreSQL", conflicts_with=[old.entity_id], request_id=rid)
    again = knowledge.record_decision(clean_hashed, ALICE, "Use PostgreSQL", conflicts_with=[old.entity_id], request_id=rid)
    assert first.closed == [old.entity_id] and first.memory.created
    assert (again.memory.id, again.entity_id, again.memory.created) == (first.memory.id, first.entity_id, False)
    assert rows(clean_hashed, "MATCH (m:Memory:Decision) RETURN count(m) AS n") == [{"n": 2}]


def test_a_retried_edit_answers_with_the_memory_as_the_first_edit_left_it(clean_hashed: Services) -> None:
    stored = remember(clean_hashed, ALICE, MemoryInput("The cache holds sessions for an hour", Tier.PROJECT))
    rid = request_id()
    first = update_memory(clean_hashed, "alice", stored.id, content="The cache holds sessions for a day", request_id=rid)
    update_memory(clean_hashed, "alice", stored.id, relevance=0.5)  # another edit, without an id, keeps the first's
    again = update_memory(clean_hashed, "alice", stored.id, content="The cache holds sessions for a day", request_id=rid)
    assert first.memory["content"] == again.memory["content"] == "The cache holds sessions for a day"
    assert again.memory["relevance"] == 0.5  # the retry changed nothing
    logged = rows(clean_hashed, "MATCH (e:AuditEvent {operation: 'update'}) RETURN e.detail AS detail ORDER BY e.at")
    assert [r["detail"] for r in logged] == ["fields=content", "fields=relevance", "retry: already applied"]
    with pytest.raises(InvalidInput, match="already answered a write of other content"):
        remember(clean_hashed, ALICE, MemoryInput("The cache holds nothing", Tier.PROJECT), request_id=rid)
    other = remember(clean_hashed, ALICE, MemoryInput("Logs are kept for a week", Tier.PROJECT))
    with pytest.raises(InvalidInput, match="already answered another write"):
        update_memory(clean_hashed, "alice", other.id, relevance=0.1, request_id=rid)


def test_a_refusal_names_the_field_at_fault(clean_hashed: Services) -> None:
    too_long = "x" * (MAX_CONTENT_CHARS + 1)
    cases = [
        (lambda: remember(clean_hashed, ALICE, MemoryInput(too_long, Tier.PROJECT)), "content"),
        (lambda: remember(clean_hashed, ALICE, MemoryInput("   ", Tier.PROJECT)), "content"),
        (lambda: remember(clean_hashed, ALICE, MemoryInput("fine", Tier.PROJECT, summary=too_long)), "summary"),
        (lambda: remember(clean_hashed, ALICE, MemoryInput("fine", Tier.PROJECT, relevance=2.0)), "relevance"),
    ]
    stored = remember(clean_hashed, ALICE, MemoryInput("The queue drains at night", Tier.PROJECT))
    cases += [
        (lambda: update_memory(clean_hashed, "alice", stored.id, summary=too_long), "summary"),
        (lambda: update_memory(clean_hashed, "alice", stored.id, content=too_long), "content"),
    ]
    for call, field in cases:
        with pytest.raises(InvalidInput, match=f"{field}|non-empty content") as refused:
            call()
        assert refused.value.field == field
    assert rows(clean_hashed, "MATCH (m:Memory) RETURN m.content AS content") == [{"content": "The queue drains at night"}]


def test_an_edit_that_would_pass_the_trigger_is_refused_with_the_writers_one_message(clean_hashed: Services) -> None:
    tight = dataclasses.replace(clean_hashed, settings=dataclasses.replace(clean_hashed.settings, project_capacity=60))
    stored = remember(tight, ALICE, MemoryInput("A short note", Tier.PROJECT))
    with pytest.raises(CapacityExceeded, match="passes its 70% compression trigger .* an edit never rewrites"):
        update_memory(tight, "alice", stored.id, content=" ".join(["word"] * 50))
    assert rows(clean_hashed, "MATCH (m:Memory) RETURN m.content AS content") == [{"content": "A short note"}]


def test_a_write_whose_deadline_passed_before_it_began_is_not_stored(clean_hashed: Services) -> None:
    deadline = Deadline()
    deadline.expire()
    request = contextvars.copy_context()  # as the API binds a deadline to a request
    request.run(set_deadline, deadline)
    for write in (
        lambda: remember(clean_hashed, ALICE, MemoryInput("Too late to be stored", Tier.PROJECT)),
        lambda: bulk_import(clean_hashed, ALICE, [MemoryInput("Too late to be imported", Tier.PROJECT)]),
        lambda: knowledge.record_error(clean_hashed, ALICE, "Too late to be recorded"),
        lambda: knowledge.set_preference(clean_hashed, ALICE, "editor", "vim"),
    ):
        with pytest.raises(DeadlinePassed):
            request.run(write)
    assert rows(clean_hashed, "MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 0}]
