"""The knowledge graph, forgetting and sessions against the real Neo4j."""

from __future__ import annotations

import pytest

from hippograph.memory.writing import knowledge
from hippograph.graph.vocabulary import EdgeType
from hippograph.memory.errors import InvalidInput, NotFound
from hippograph.memory.writing.forget import forget_entity, forget_memory, forget_user
from hippograph.memory.lifecycle.sessions import end_session, start_session
from hippograph.memory.writing.store import MemoryInput, remember
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

ALICE = Scope("alice", "proj-a")
BOB = Scope("bob", "proj-b")


def rows(services: Services, cypher: str, **params) -> list[dict]:
    return [dict(r) for r in services.driver.execute_query(cypher, params, database_=services.database).records]


def test_a_conflicting_decision_closes_the_old_one_and_nothing_else(clean_hashed: Services) -> None:
    sessions = knowledge.record_decision(clean_hashed, ALICE, "Use server-side sessions", reason="simplest")
    postgres = knowledge.record_decision(clean_hashed, ALICE, "Use PostgreSQL 16")
    jwt = knowledge.record_decision(clean_hashed, ALICE, "Use JWT in httpOnly cookies", reason="XSS protection",
                                    conflicts_with=[sessions.entity_id])
    assert jwt.closed == [sessions.entity_id]
    state = {r["name"]: r["closed"] for r in rows(
        clean_hashed, "MATCH (m:Memory:Decision)-[:RECORDS]->(e:Entity:Decision) "
                  "RETURN e.name AS name, e.validUntil IS NOT NULL AND m.validUntil IS NOT NULL AS closed")}
    assert state == {"Use server-side sessions": True, "Use PostgreSQL 16": False, "Use JWT in httpOnly cookies": False}
    edge = rows(clean_hashed, "MATCH (a:Decision)-[:CONFLICTS_WITH]->(b:Decision) RETURN a.id AS a, b.id AS b")
    assert edge == [{"a": jwt.entity_id, "b": sessions.entity_id}]
    assert postgres.closed == []


def test_decision_error_fix_chain_is_traceable(clean_hashed: Services) -> None:
    jwt = knowledge.record_decision(clean_hashed, ALICE, "Use JWT in localStorage")
    error = knowledge.record_error(clean_hashed, ALICE, "XSS can steal the token", fix="Move tokens to httpOnly cookies",
                                   caused_by=jwt.entity_id)
    chain = rows(clean_hashed,
                 "MATCH (d:Decision {id: $id})-[:CAUSED]->(e:Error)-[:SOLVED_BY]->(fix) RETURN e.name AS error, fix.name AS fix",
                 id=jwt.entity_id)
    assert chain == [{"error": "XSS can steal the token", "fix": "Move tokens to httpOnly cookies"}]
    assert error.related["fix"]


def test_another_users_nodes_can_be_neither_linked_nor_seen(clean_hashed: Services) -> None:
    mine = knowledge.record_decision(clean_hashed, ALICE, "Use Redis for caching")
    theirs = knowledge.record_decision(clean_hashed, BOB, "Use Memcached")
    with pytest.raises(NotFound):
        knowledge.link(clean_hashed, "bob", theirs.entity_id, mine.entity_id, EdgeType.RELATED_TO)
    with pytest.raises(NotFound):
        knowledge.link(clean_hashed, "alice", theirs.entity_id, mine.entity_id, EdgeType.RELATED_TO)
    with pytest.raises(NotFound):
        knowledge.record_decision(clean_hashed, BOB, "Use Valkey", conflicts_with=[mine.entity_id])
    assert rows(clean_hashed, "MATCH (a {userId: 'alice'})-[r]-(b {userId: 'bob'}) RETURN count(r) AS n") == [{"n": 0}]
    # The failed decision left nothing behind and did not close alice's.
    assert rows(clean_hashed, "MATCH (e:Entity {name: 'Use Valkey'}) RETURN count(e) AS n") == [{"n": 0}]
    assert rows(clean_hashed, "MATCH (e:Entity {id: $id}) RETURN e.validUntil AS v", id=mine.entity_id) == [{"v": None}]


def test_link_and_unlink_within_one_user(clean_hashed: Services) -> None:
    a = knowledge.record_decision(clean_hashed, ALICE, "Adopt CQRS")
    b = knowledge.record_decision(clean_hashed, ALICE, "Separate read models")
    assert knowledge.link(clean_hashed, "alice", a.entity_id, b.entity_id, EdgeType.LED_TO)["type"] == "LED_TO"
    assert knowledge.unlink(clean_hashed, "alice", a.entity_id, b.entity_id, EdgeType.LED_TO) == 1
    with pytest.raises(NotFound):
        knowledge.unlink(clean_hashed, "alice", a.entity_id, b.entity_id, EdgeType.LED_TO)
    with pytest.raises(InvalidInput):
        knowledge.link(clean_hashed, "alice", a.entity_id, a.entity_id, EdgeType.RELATED_TO)


def test_a_new_preference_value_replaces_the_old_one(clean_hashed: Services) -> None:
    first = knowledge.set_preference(clean_hashed, ALICE, "communication_style", "verbose")
    second = knowledge.set_preference(clean_hashed, ALICE, "communication_style", "concise")
    other = knowledge.set_preference(clean_hashed, ALICE, "teaching_level", "intermediate")
    assert second.closed == [first.entity_id]
    assert other.closed == []
    with pytest.raises(InvalidInput):
        knowledge.set_preference(clean_hashed, ALICE, "bad key!", "x")


def in_indexes(services: Services, text_query: str, vector_text: str) -> set[str]:
    found = {r["id"] for r in rows(services, "CALL db.index.fulltext.queryNodes('memory_text', $q) YIELD node RETURN node.id AS id", q=text_query)}
    vector = services.embedder.embed_query(vector_text).tolist()
    found |= {r["id"] for r in rows(services, "CALL db.index.vector.queryNodes('memory_embedding', 50, $v) YIELD node RETURN node.id AS id", v=vector)}
    return found


def test_forgetting_a_memory_leaves_no_trace(clean_hashed: Services) -> None:
    doomed = remember(clean_hashed, ALICE, MemoryInput("Zanzibar cluster runs on Kubernetes with Quokka autoscaling.", Tier.PROJECT))
    kept = remember(clean_hashed, ALICE, MemoryInput("Quokka autoscaling also drives the batch pool.", Tier.PROJECT))
    summary = remember(clean_hashed, ALICE, MemoryInput("Summary: Zanzibar is on Kubernetes.", Tier.PROJECT, kind="summary", derived_from=[doomed.id]))
    shared = remember(clean_hashed, ALICE, MemoryInput("Summary of both clusters.", Tier.PROJECT, kind="summary", derived_from=[doomed.id, kept.id]))
    assert doomed.id in in_indexes(clean_hashed, "zanzibar", "Zanzibar cluster Kubernetes")

    gone = forget_memory(clean_hashed, "alice", doomed.id)
    assert set(gone.memories) == {doomed.id, summary.id}
    assert doomed.id not in in_indexes(clean_hashed, "zanzibar", "Zanzibar cluster Kubernetes")
    assert rows(clean_hashed, "MATCH (e:Entity) WHERE e.normName = 'zanzibar' RETURN count(e) AS n") == [{"n": 0}]
    assert rows(clean_hashed, "CALL db.index.fulltext.queryNodes('entity_name', 'zanzibar') YIELD node RETURN count(node) AS n") == [{"n": 0}]
    # Quokka is still mentioned by the kept memory; the shared summary stays, its provenance consistent.
    assert rows(clean_hashed, "MATCH (e:Entity {normName: 'quokka'}) RETURN count(e) AS n") == [{"n": 1}]
    assert rows(clean_hashed, "MATCH (s:Memory {id: $id})-[:DERIVED_FROM]->(m) RETURN collect(m.id) AS ids", id=shared.id) == [{"ids": [kept.id]}]
    with pytest.raises(NotFound):
        forget_memory(clean_hashed, "alice", doomed.id)


def test_nobody_can_forget_another_users_memory(clean_hashed: Services) -> None:
    mine = remember(clean_hashed, ALICE, MemoryInput("Alice's deploy key rotation is monthly.", Tier.PROJECT))
    with pytest.raises(NotFound):
        forget_memory(clean_hashed, "bob", mine.id)
    assert rows(clean_hashed, "MATCH (m:Memory {id: $id}) RETURN count(m) AS n", id=mine.id) == [{"n": 1}]


def test_forgetting_an_entity_removes_what_records_it(clean_hashed: Services) -> None:
    decision = knowledge.record_decision(clean_hashed, ALICE, "Use Vault for secrets storage")
    mention = remember(clean_hashed, ALICE, MemoryInput("We audit Vault access weekly.", Tier.PROJECT))
    vault_tech = rows(clean_hashed, "MATCH (e:Technology {normName: 'vault'}) RETURN e.id AS id")[0]["id"]
    forgotten = forget_entity(clean_hashed, "alice", decision.entity_id)
    assert decision.memory.id in forgotten.memories
    assert rows(clean_hashed, "MATCH (m:Memory {id: $id}) RETURN count(m) AS n", id=decision.memory.id) == [{"n": 0}]
    assert rows(clean_hashed, "MATCH (m:Memory {id: $id}) RETURN count(m) AS n", id=mention.id) == [{"n": 1}]
    forget_entity(clean_hashed, "alice", vault_tech)
    assert rows(clean_hashed, "MATCH (m:Memory {id: $id})-[:MENTIONS]->(e:Technology) RETURN count(e) AS n", id=mention.id) == [{"n": 0}]


def test_deleting_a_user_removes_all_their_data(clean_hashed: Services) -> None:
    start_session(clean_hashed, Scope("alice", "proj-a", "s1"))
    remember(clean_hashed, Scope("alice", "proj-a", "s1"), MemoryInput("working on the login page", Tier.SESSION))
    knowledge.record_decision(clean_hashed, ALICE, "Use Tailwind")
    knowledge.set_preference(clean_hashed, ALICE, "teaching_style", "examples_first")
    keep = remember(clean_hashed, BOB, MemoryInput("Bob's project uses Django.", Tier.PROJECT))
    forgotten = forget_user(clean_hashed, "alice")
    assert forgotten.memories >= 3 and forgotten.sessions == 1 and forgotten.users == 1
    left = rows(clean_hashed, "MATCH (n) WHERE n.userId = 'alice' AND NOT n:AuditEvent RETURN count(n) AS n")
    assert left == [{"n": 0}]
    assert rows(clean_hashed, "MATCH (u:User {id: 'alice'}) RETURN count(u) AS n") == [{"n": 0}]
    assert rows(clean_hashed, "MATCH (m:Memory {id: $id}) RETURN count(m) AS n", id=keep.id) == [{"n": 1}]


def test_ending_a_session_promotes_what_qualifies_and_evicts_the_rest(clean_hashed: Services) -> None:
    scope = Scope("alice", "proj-a", "s1")
    start_session(clean_hashed, scope)
    note = remember(clean_hashed, scope, MemoryInput("looked at the flaky login test", Tier.SESSION))
    busy = remember(clean_hashed, scope, MemoryInput("the staging URL is staging.example.internal", Tier.SESSION))
    three = remember(clean_hashed, scope, MemoryInput("the retry limit is five attempts", Tier.SESSION))
    fact = remember(clean_hashed, scope, MemoryInput("Login uses OAuth with PKCE", Tier.SESSION, kind="fact"))
    clean_hashed.driver.execute_query("MATCH (m:Memory {id: $id}) SET m.accessCount = 4", id=busy.id, database_=clean_hashed.database)
    clean_hashed.driver.execute_query("MATCH (m:Memory {id: $id}) SET m.accessCount = 3", id=three.id, database_=clean_hashed.database)
    clean_hashed.driver.execute_query(
        "CREATE (:Turn {id: 't1', userId: 'alice', sessionId: 's1', role: 'user', content: 'hi'})", database_=clean_hashed.database
    )
    ended = end_session(clean_hashed, "alice", "s1")
    assert set(ended.promoted) == {busy.id, fact.id}  # 4 accesses and a fact; 3 accesses is not "more than 3"
    assert set(ended.evicted) == {note.id, busy.id, three.id, fact.id}
    assert ended.turns_deleted == 1
    promoted = rows(clean_hashed, "MATCH (m:Memory {tier: 'PROJECT', projectId: 'proj-a'}) RETURN m.content AS c, m.attributes AS a ORDER BY c")
    assert [p["c"] for p in promoted] == ["Login uses OAuth with PKCE", "the staging URL is staging.example.internal"]
    assert all('"session": "s1"' in p["a"] and "promotedFrom" in p["a"] for p in promoted)
    assert rows(clean_hashed, "MATCH (m:Memory {tier: 'SESSION'}) RETURN count(m) AS n") == [{"n": 0}]
    with pytest.raises(InvalidInput, match="already ended"):
        end_session(clean_hashed, "alice", "s1")
    with pytest.raises(NotFound):
        end_session(clean_hashed, "bob", "s1")


def test_every_operation_appears_in_the_audit_log(clean_hashed: Services) -> None:
    scope = Scope("alice", "proj-a", "s9")
    start_session(clean_hashed, scope)
    note = remember(clean_hashed, scope, MemoryInput("checking the audit trail", Tier.SESSION))
    a = knowledge.record_decision(clean_hashed, ALICE, "Adopt trunk-based development")
    b = knowledge.record_decision(clean_hashed, ALICE, "Ship behind feature flags")
    knowledge.link(clean_hashed, "alice", a.entity_id, b.entity_id, EdgeType.LED_TO)
    knowledge.unlink(clean_hashed, "alice", a.entity_id, b.entity_id, EdgeType.LED_TO)
    forget_memory(clean_hashed, "alice", b.memory.id)
    end_session(clean_hashed, "alice", "s9")
    clean_hashed.audit.flush()
    events, _ = clean_hashed.audit.query(user_id="alice", first=100)
    seen = {(e.operation, i) for e in events for i in e.ids}
    for operation, ident in [("start_session", "s9"), ("remember", note.id), ("remember", a.memory.id),
                             ("link", a.entity_id), ("unlink", b.entity_id), ("forget", b.memory.id),
                             ("end_session", "s9")]:
        assert (operation, ident) in seen, operation
    assert all(e.user_id == "alice" for e in events)
