"""The Browser guide's queries, run on a real graph the product wrote: each answers what its title says."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

import pytest

from hippograph.graph import analyst_queries as q
from hippograph.memory.lifecycle.sessions import end_session, start_session
from hippograph.memory.lifecycle.transcript import append_turn
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing import knowledge

pytestmark = pytest.mark.neo4j

CAPACITIES = {"session": 1024, "project": 4096, "longTerm": 8192}


def run(services: Services, query: q.AnalystQuery, **params: Any) -> list[dict[str, Any]]:
    defaults = {"user": "alice", "project": "web", "memory": "", "entity": "", "capacities": CAPACITIES,
                "asOf": datetime.now(timezone.utc)}
    records, _, _ = services.driver.execute_query(query.cypher, {**defaults, **params}, database_=services.database)
    return [dict(r) for r in records]


def test_each_query_answers_its_question(clean_db: Services) -> None:
    scope = Scope("alice", "web")
    old = knowledge.record_decision(clean_db, scope, "Cache sessions in Redis")
    new = knowledge.record_decision(clean_db, scope, "Cache sessions in Memcached", conflicts_with=[old.entity_id])
    error = knowledge.record_error(clean_db, scope, "Redis evicts sessions under load",
                                   fix="Set maxmemory-policy noeviction", caused_by=new.entity_id)
    knowledge.record_decision(clean_db, Scope("bob", "web"), "Bob's own decision")

    chains = run(clean_db, q.CHAINS)
    assert len(chains) == 1
    path = chains[0]["path"]
    assert [n["name"] for n in path.nodes] == ["Cache sessions in Memcached", "Redis evicts sessions under load"]
    assert chains[0]["fixed"].end_node["name"] == "Set maxmemory-policy noeviction"

    closed = run(clean_db, q.CLOSED_DECISIONS)
    assert [(r["decision"], r["closedBy"]) for r in closed] == [("Cache sessions in Redis", ["Cache sessions in Memcached"])]
    assert closed[0]["closed"] is not None

    mentions = run(clean_db, q.MENTIONED_IN, entity="  REDIS evicts sessions under load ")
    assert {r["m"]["id"] for r in mentions} == {error.memory.id}

    clean_db.audit.flush()
    trail = run(clean_db, q.AUDIT_TRAIL, memory=error.memory.id)
    assert trail and all(r["at"] is not None for r in trail)

    fill = run(clean_db, q.TIER_FILL)
    project = next(r for r in fill if r["tier"] == "PROJECT" and r["scope"] == "web")
    assert project["capacity"] == 4096 and project["memories"] == 3 and 0 < project["percentFull"] < 100
    assert all(r["scope"] != "bob" for r in fill)


def test_provenance_reaches_the_turns_a_fact_came_from(clean_db: Services) -> None:
    scope = Scope("alice", "web", "s1")
    start_session(clean_db, scope)
    append_turn(clean_db, scope, "Ben", "We decided to ship the billing service on PostgreSQL 16 next Tuesday.", ref="D1:1")
    facts = end_session(clean_db, "alice", "s1").facts
    assert facts
    derived = run(clean_db, q.PROVENANCE, memory=facts[0])
    assert len(derived) == 1 and derived[0]["sessions"] == ["s1"] and derived[0]["turns"]


def test_the_chains_as_of_a_date_say_what_changed_since(clean_db: Services) -> None:
    scope = Scope("alice", "web")
    decision = knowledge.record_decision(clean_db, scope, "Retry webhooks forever")
    error = knowledge.record_error(clean_db, scope, "Webhook storm after an outage", caused_by=decision.entity_id)
    time.sleep(0.01)
    then = datetime.now(timezone.utc)
    time.sleep(0.01)
    knowledge.record_decision(clean_db, scope, "Retry webhooks five times", conflicts_with=[decision.entity_id])
    knowledge.record_error(clean_db, scope, "Lost webhooks after five retries", fix="Dead-letter queue")
    with clean_db.driver.session(database=clean_db.database) as session:
        session.run("MATCH (e:Entity {id: $id}) MERGE (fix:Entity:Decision {id: 'fx', userId: 'alice', name: 'Backoff', "
                    "normName: 'backoff', type: 'DECISION', scopeKey: 'web'}) "
                    "MERGE (e)-[r:SOLVED_BY {userId: 'alice'}]->(fix) SET r.createdAt = datetime()",
                    id=error.entity_id).consume()

    rows = {r["error"]: r for r in run(clean_db, q.CHAINS_AS_OF, asOf=then)}
    storm = rows["Webhook storm after an outage"]
    assert storm["knownThen"] and storm["decisionThen"] == "Retry webhooks forever"
    assert storm["decisionStateThen"] == "open" and storm["fixThen"] is None
    assert storm["changedSince"] == ["fixed by Backoff", "decision closed"]
    assert rows["Lost webhooks after five retries"]["knownThen"] is False
    assert rows["Lost webhooks after five retries"]["changedSince"][0] == "error recorded"
