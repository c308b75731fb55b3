"""Forgetting a session, a project or a user against the real Neo4j and model: nothing of it stays.

"Nothing" is checked four ways: recall, the full-text indexes and the vector index find none of
the forgotten words, and a scan of every property of every node and relationship left holds none.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from hippograph.memory import documents
from hippograph.memory.writing import knowledge
from hippograph.memory.lifecycle.consolidation import consolidate
from hippograph.memory.errors import NotFound
from hippograph.memory.writing.forget import forget_memory, forget_project, forget_session, forget_user
from hippograph.memory.recall.query import recall
from hippograph.memory.lifecycle.sessions import end_session, start_session
from hippograph.memory.writing.store import MemoryInput, remember
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.lifecycle.transcript import append_turn
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
S1 = Scope("alice", "shop", "s1")
S2 = Scope("alice", "shop", "s2")

# What is said in s1: each turn holds a word said nowhere else, so that any trace of it can be found.
FORGOTTEN_TURNS = [
    ("Ana", "Hi Ben, how are you today?"),
    ("Ben", "We decided to run the Quokkaverse billing service on PostgreSQL 16 from next Tuesday."),
    ("Ana", "The staging deploy failed with error zebrafinch-17 because the Redis password rotated."),
    ("Ben", "I fixed it by reloading the marmosetine secret from Vault at 14:30."),
    ("Ana", "Thanks, see you later!"),
]
FORGOTTEN_WORDS = ["quokkaverse", "zebrafinch", "marmosetine", "wallabyish", "narwhalic"]
KEPT_TURNS = [("Ben", "The invoice export runs nightly and writes the ledger to the archive bucket.")]

ALL_PROPERTIES = """
MATCH (n) RETURN 'node ' + labels(n)[0] AS place, n {.*, embedding: null} AS properties
UNION ALL
MATCH ()-[r]->() RETURN 'relationship ' + type(r) AS place, properties(r) AS properties
"""


def rows(services: Services, cypher: str, **params: Any) -> list[dict[str, Any]]:
    return [dict(r) for r in services.driver.execute_query(cypher, params, database_=services.database).records]


def traces(services: Services, words: list[str]) -> set[tuple[str, str]]:
    """(where, word) for every place a word is still found: a property of any node or relationship,
    a full-text index, the vector index, or recall in any of alice's scopes."""
    found = set()
    for row in rows(services, ALL_PROPERTIES):
        text = json.dumps(row["properties"], default=str).lower()
        found |= {(row["place"], word) for word in words if word in text}
    for word in words:
        for index in ("memory_text", "entity_name"):
            if rows(services, "CALL db.index.fulltext.queryNodes($index, $q) YIELD node RETURN node.id AS id", index=index, q=word):
                found.add((index, word))
        vector = services.embedder.embed_query(f"the {word} service").tolist()
        for hit in rows(services, "CALL db.index.vector.queryNodes('memory_embedding', 50, $v) YIELD node "
                                  "RETURN node.content AS content", v=vector):
            found |= {("vector", w) for w in words if w in (hit["content"] or "").lower()}
        for scope in (Scope("alice"), Scope("alice", "shop"), S1):
            result = recall(services, f"what about {word}?", scope, "critical", record_access=False)
            found |= {("recall", word) for item in result.ranking if word in item.content.lower()}
    return found


def said(services: Services, scope: Scope, lines: list[tuple[str, str]], start: datetime) -> list[int]:
    """Append the lines to the session's transcript; their positions."""
    return [append_turn(services, scope, who, text, at=start + timedelta(minutes=i)).position
            for i, (who, text) in enumerate(lines)]


def budgeted(services: Services, budget: int) -> Services:
    return dataclasses.replace(services, settings=dataclasses.replace(services.settings, transcript_budget=budget))


def tombstones(services: Services, user_id: str) -> list[Any]:
    services.audit.flush()
    events, _ = services.audit.query(user_id=user_id, operations=["forget_session", "forget_project", "forget_user"])
    return events


def test_facts_keep_their_session_and_turn_positions_after_the_turns_are_gone(clean_hashed: Services) -> None:
    services = budgeted(clean_hashed, 90)  # small enough that the transcript is summarised while it runs
    start_session(services, S1, now=T0)
    positions = said(services, S1, FORGOTTEN_TURNS, T0)
    remember(services, S1, MemoryInput("The wallabyish cache holds invoices for an hour.", Tier.SESSION, kind="fact"))
    during = rows(services, "MATCH (m:Memory {tier: 'PROJECT'}) RETURN count(m) AS n")[0]["n"]
    assert during, "summarising extracts facts while the session runs"
    end_session(services, "alice", "s1")
    assert rows(services, "MATCH (t:Turn) RETURN count(t) AS n") == [{"n": 0}]
    kept = rows(services, "MATCH (m:Memory {tier: 'PROJECT'}) RETURN m.content AS content, m.sourceSessions AS sessions, "
                          "m.sourceTurns AS turns, m.attributes AS attributes")
    facts = [m for m in kept if "promotedFrom" not in json.loads(m["attributes"])]
    promoted = [m for m in kept if "promotedFrom" in json.loads(m["attributes"])]
    assert len(facts) >= 3 and len(promoted) == 1
    for fact in facts:
        assert fact["sessions"] == ["s1"], fact
        assert fact["turns"] and set(fact["turns"]) <= {f"s1#{p}" for p in positions}, fact
    by_word = {word: fact["turns"] for fact in facts for word in FORGOTTEN_WORDS if word in fact["content"].lower()}
    assert by_word["quokkaverse"] == [f"s1#{positions[1]}"] and by_word["zebrafinch"] == [f"s1#{positions[2]}"]
    assert promoted[0]["sessions"] == ["s1"] and promoted[0]["turns"] == []


def test_forgetting_one_memory_takes_its_text_from_the_memory_said_after_it(clean_hashed: Services) -> None:
    # The memory after a forgotten one kept its text as what was said before it (memory_text indexes that).
    texts = ["Ana: the invoice export runs nightly", "Ben: the narwhalic queue drains at noon",
             "Ana: and the ledger goes to the archive bucket"]
    stored = [remember(clean_hashed, S1, MemoryInput(text, Tier.SESSION, kind="note"), now=T0 + timedelta(minutes=i))
              for i, text in enumerate(texts)]
    preceding = "MATCH (m:Memory {id: $id}) RETURN m.preceding AS preceding"
    assert rows(clean_hashed, preceding, id=stored[2].id) == [{"preceding": texts[1]}]
    forget_memory(clean_hashed, "alice", stored[1].id)
    assert traces(clean_hashed, ["narwhalic"]) == set()
    assert rows(clean_hashed, preceding, id=stored[2].id) == [{"preceding": texts[0]}]
    assert rows(clean_hashed, preceding, id=stored[0].id) == [{"preceding": None}]


def test_forgetting_a_session_leaves_nothing_of_it(clean_hashed: Services) -> None:
    services = budgeted(clean_hashed, 90)
    start_session(services, S1, now=T0)
    said(services, S1, FORGOTTEN_TURNS, T0)
    remember(services, S1, MemoryInput("Note: the wallabyish queue drains at midnight.", Tier.SESSION))
    remember(services, S1, MemoryInput("Answers about narwhalic charts should be short.", Tier.SESSION, kind="preference"))
    end_session(services, "alice", "s1", now=T0 + timedelta(hours=1))
    assert rows(services, "MATCH (m:Memory {tier: 'LONG_TERM'}) WHERE 's1' IN m.sourceSessions "
                          "RETURN count(m) AS n") == [{"n": 1}]  # the preference, promoted
    start_session(services, S2, now=T0 + timedelta(days=1))
    said(services, S2, KEPT_TURNS, T0 + timedelta(days=1))
    knowledge.set_preference(services, Scope("alice"), "answer_style", "terse")
    direct = remember(services, Scope("alice", "shop"), MemoryInput("Deploys happen on weekdays only.", Tier.PROJECT))
    # A summary of an s1 fact alone goes with it; one that also summarises a memory that stays, stays.
    s1_fact = rows(services, "MATCH (m:Memory {tier: 'PROJECT'}) WHERE 's1' IN m.sourceSessions RETURN m.id AS id")[0]["id"]
    only = remember(services, Scope("alice", "shop"), MemoryInput(
        "Summary: a wallabyish recap.", Tier.PROJECT, kind="summary", derived_from=[s1_fact]))
    remember(services, Scope("alice", "shop"), MemoryInput(
        "Summary: deployment rules.", Tier.PROJECT, kind="summary", derived_from=[s1_fact, direct.id]))
    bob = remember(services, Scope("bob", "shop", "s1"), MemoryInput("Bob's own s1 is about invoices.", Tier.SESSION))
    before = traces(services, FORGOTTEN_WORDS)  # what the check below would see if anything stayed
    assert {word for _, word in before} == set(FORGOTTEN_WORDS)
    assert {"node Memory", "node Entity", "memory_text", "vector", "recall"} <= {where for where, _ in before}

    forgotten = forget_session(services, "alice", "s1", by="admin (key k1)")
    assert forgotten.sessions == 1 and forgotten.projects == 0 and forgotten.project_id == "shop"
    assert forgotten.turns == 0  # the turns went when the session ended
    assert forgotten.memories == len(forgotten.memory_ids) >= 5 and only.id in forgotten.memory_ids
    assert traces(services, FORGOTTEN_WORDS) == set()
    left = {r["c"] for r in rows(services, "MATCH (m:Memory {userId: 'alice'}) RETURN m.content AS c")}
    assert {"Deploys happen on weekdays only.", "Summary: deployment rules."} <= left
    assert any("terse" in c for c in left)  # the preference set outside the session stays
    assert rows(services, "MATCH (s:Session {userId: 'alice'}) RETURN s.id AS id") == [{"id": "s2"}]
    assert rows(services, "MATCH (t:Turn {userId: 'alice'}) RETURN collect(DISTINCT t.sessionId) AS s") == [{"s": ["s2"]}]
    assert rows(services, "MATCH (m:Memory {id: $id}) RETURN count(m) AS n", id=bob.id) == [{"n": 1}]
    [tombstone] = tombstones(services, "alice")
    assert tombstone.operation == "forget_session" and tombstone.ids[0] == "s1"
    assert tombstone.detail == f"{forgotten.counts()}; by admin (key k1)"
    assert tombstone.detail.startswith(f"memories {forgotten.memories}, entities {forgotten.entities}, turns 0")
    with pytest.raises(NotFound):
        forget_session(services, "alice", "s1")


def test_forgetting_an_active_session_takes_its_turns(clean_hashed: Services) -> None:
    start_session(clean_hashed, S1, now=T0)
    said(clean_hashed, S1, FORGOTTEN_TURNS, T0)
    forgotten = forget_session(clean_hashed, "alice", "s1")
    assert (forgotten.turns, forgotten.sessions, forgotten.memories) == (len(FORGOTTEN_TURNS), 1, 0)
    assert traces(clean_hashed, FORGOTTEN_WORDS) == set()


def test_a_fact_said_in_two_sessions_goes_with_either_and_merges_unite_their_provenance(clean_hashed: Services) -> None:
    words = "We decided the wallabyish importer retries three times before it pages anyone."
    for scope, at in ((S1, T0), (S2, T0 + timedelta(days=1))):
        start_session(clean_hashed, scope, now=at)
        said(clean_hashed, scope, [("Ben", words)], at)
        end_session(clean_hashed, "alice", scope.session_id, now=at)
    facts = rows(clean_hashed, "MATCH (m:Memory {tier: 'PROJECT'}) RETURN m.sourceSessions AS s, m.sourceTurns AS t")
    assert facts == [{"s": ["s1", "s2"], "t": ["s1#1", "s2#1"]}]
    s3 = Scope("alice", "shop", "s3")
    start_session(clean_hashed, s3, now=T0 + timedelta(days=2))
    said(clean_hashed, s3, [("Ben", words.replace("anyone.", "anyone!"))], T0 + timedelta(days=2))
    end_session(clean_hashed, "alice", "s3", now=T0 + timedelta(days=2))
    assert len(consolidate(clean_hashed, "alice").merged) == 1
    facts = rows(clean_hashed, "MATCH (m:Memory {tier: 'PROJECT', archived: false}) RETURN m.sourceSessions AS s, m.sourceTurns AS t")
    assert facts == [{"s": ["s1", "s2", "s3"], "t": ["s1#1", "s2#1", "s3#1"]}]
    # The store cannot tell which saying the text is: forgetting any of them forgets it, and the copy
    # merged away, kept as its history, with it.
    assert forget_session(clean_hashed, "alice", "s2").memories == 2
    assert traces(clean_hashed, ["wallabyish"]) == set()


def test_forgetting_a_project_takes_its_sessions_documents_entities_and_generalisations(clean_hashed: Services) -> None:
    document = json.loads(Path("tests/fixtures/izanagi/project-memory.json").read_text(encoding="utf-8"))
    documents.import_document(clean_hashed, "project", document, "alice", project_id="proj-xyz789")
    shop = Scope("alice", "proj-xyz789")
    s1, s2 = Scope("alice", "proj-xyz789", "s1"), Scope("alice", "proj-xyz789", "s2")
    start_session(clean_hashed, s1, now=T0)
    said(clean_hashed, s1, FORGOTTEN_TURNS, T0)
    remember(clean_hashed, s1, MemoryInput("Users who prefer wallabyish reports get them weekly.", Tier.SESSION, kind="preference"))
    end_session(clean_hashed, "alice", "s1", now=T0)  # its preference is promoted to long-term memory
    start_session(clean_hashed, s2, now=T0)  # still active
    said(clean_hashed, s2, [("Ana", "The narwhalic dashboard loads in two seconds.")], T0)
    knowledge.record_decision(clean_hashed, shop, "Adopt marmosetine feature flags for every release")
    # The same rule in three projects is generalised into long-term memory, naming each of them.
    rule = "Always add a database index before running a large migration in {}."
    for project in ("proj-xyz789", "p2", "p3"):
        remember(clean_hashed, Scope("alice", project), MemoryInput(rule.format(project), Tier.PROJECT))
    [generalised] = consolidate(clean_hashed, "alice").generalised
    kept = remember(clean_hashed, Scope("alice", "p2"), MemoryInput("The p2 project ships on Fridays.", Tier.PROJECT))
    long_term = remember(clean_hashed, Scope("alice"), MemoryInput("Alice reads the changelog first.", Tier.LONG_TERM))
    texts = ["laravel", "httponly", "parameterized", "camelcase", "proj-xyz789."] + FORGOTTEN_WORDS

    forgotten = forget_project(clean_hashed, "alice", "proj-xyz789")
    assert forgotten.projects == 1 and forgotten.sessions == 2 and forgotten.turns == 1 and forgotten.memories >= 10
    assert generalised in forgotten.memory_ids
    assert traces(clean_hashed, texts) == set()
    assert rows(clean_hashed, "MATCH (n {userId: 'alice'}) WHERE n:Project OR n:Session OR n:Turn OR n:Task "
                          "RETURN count(n) AS n") == [{"n": 0}]
    assert rows(clean_hashed, "MATCH (e:Entity {userId: 'alice', scopeKey: 'proj-xyz789'}) RETURN count(e) AS n") == [{"n": 0}]
    left = {r["id"] for r in rows(clean_hashed, "MATCH (m:Memory {userId: 'alice'}) RETURN m.id AS id")}
    assert {kept.id, long_term.id} <= left and len(left) == 4  # and the rule of p2 and of p3
    [tombstone] = tombstones(clean_hashed, "alice")
    assert tombstone.operation == "forget_project" and tombstone.ids[0] == "proj-xyz789"
    assert tombstone.detail == forgotten.counts()
    with pytest.raises(NotFound):
        forget_project(clean_hashed, "alice", "proj-xyz789")


def test_another_users_session_or_project_is_not_found_and_stays(clean_hashed: Services) -> None:
    start_session(clean_hashed, S1, now=T0)
    note = remember(clean_hashed, S1, MemoryInput("The wallabyish build is green.", Tier.SESSION))
    with pytest.raises(NotFound):
        forget_session(clean_hashed, "bob", "s1")
    with pytest.raises(NotFound):
        forget_project(clean_hashed, "bob", "shop")
    assert rows(clean_hashed, "MATCH (m:Memory {id: $id}) RETURN count(m) AS n", id=note.id) == [{"n": 1}]
    assert rows(clean_hashed, "MATCH (u:User {id: 'bob'}) RETURN count(u) AS n") == [{"n": 0}]
    assert tombstones(clean_hashed, "bob") == []


def test_forgetting_a_user_leaves_one_tombstone_with_counts_and_no_content(clean_hashed: Services) -> None:
    from hippograph.memory import keys

    start_session(clean_hashed, S1, now=T0)
    said(clean_hashed, S1, FORGOTTEN_TURNS, T0)
    remember(clean_hashed, Scope("alice", "shop"), MemoryInput("The wallabyish API is versioned.", Tier.PROJECT))
    keys.create_key(clean_hashed.driver, clean_hashed.database, "alice")
    recall(clean_hashed, "wallabyish", Scope("alice", "shop"), "critical")
    forgotten = forget_user(clean_hashed, "alice", by="root (key k0)")
    assert (forgotten.memories, forgotten.turns, forgotten.sessions, forgotten.projects, forgotten.api_keys, forgotten.users) \
        == (1, len(FORGOTTEN_TURNS), 1, 1, 1, 1)
    assert traces(clean_hashed, FORGOTTEN_WORDS) == set()
    assert rows(clean_hashed, "MATCH (n) WHERE n.userId = 'alice' OR n.id = 'alice' RETURN labels(n) AS l") == [{"l": ["AuditEvent"]}]
    [tombstone] = tombstones(clean_hashed, "alice")
    assert tombstone.operation == "forget_user" and tombstone.ids == ("alice",)
    assert tombstone.detail == f"{forgotten.counts()}; by root (key k0)"
    assert forget_user(clean_hashed, "alice").nothing  # nobody left: nothing done, nothing logged
    assert len(tombstones(clean_hashed, "alice")) == 1
