"""Session lifecycle against the real Neo4j and model: transcripts, consolidation, context."""

from __future__ import annotations

import dataclasses
import json
import threading
from datetime import datetime, timedelta, timezone

import pytest

from hippograph.memory.lifecycle.window_budget import ORDER, Section, base_budgets
from hippograph.memory import browse
from hippograph.memory.lifecycle.consolidation import consolidate
from hippograph.memory.writing.forget import forget_memory
from hippograph.memory.lifecycle.context_window import assemble_context
from hippograph.memory.lifecycle.sessions import start_session
from hippograph.memory.writing.store import MemoryInput, remember
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.config import TRANSCRIPT_TRIGGER
from hippograph.memory.lifecycle.transcript import append_turn, read_transcript
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
SESSION = Scope("alice", "proj-a", "s1")

LINES = [
    ("Ana", "Hi Ben, how are you today?"),
    ("Ben", "Good thanks! We decided to ship the billing service on PostgreSQL 16 next Tuesday."),
    ("Ana", "The staging deploy failed with error E1234 because the Redis password rotated."),
    ("Ben", "I fixed it by reloading the secret from Vault at 14:30."),
    ("Ana", "Great. Caroline wants the invoice export in CSV by March 12."),
    ("Ben", "Ok, I will write the CSV exporter with 3 columns: date, amount, customer."),
    ("Ana", "Also the mobile app crashed on Android 14 when opening invoices."),
    ("Ben", "Thanks, see you later!"),
]


def rows(services: Services, cypher: str, **params) -> list[dict]:
    return [dict(r) for r in services.driver.execute_query(cypher, params, database_=services.database).records]


def budgeted(services: Services, budget: int) -> Services:
    return dataclasses.replace(services, settings=dataclasses.replace(services.settings, transcript_budget=budget))


def test_the_75_percent_trigger_fires_exactly_at_its_threshold(clean_db: Services) -> None:
    start_session(clean_db, SESSION, now=T0)
    tokens = [clean_db.tokens.count(text) for _, text in LINES]
    # A budget where the first four turns sit exactly at 75 %: no summary; the fifth passes it.
    budget = sum(tokens[:4]) * 4 // 3
    while sum(tokens[:4]) > TRANSCRIPT_TRIGGER * budget:
        budget += 1
    services = budgeted(clean_db, budget)
    for i, (who, text) in enumerate(LINES[:4]):
        appended = append_turn(services, SESSION, who, text, at=T0 + timedelta(minutes=i))
        assert appended.rounds == []
    assert sum(e.tokens for e in read_transcript(services, SESSION)) == sum(tokens[:4])
    fifth = append_turn(services, SESSION, *LINES[4], at=T0 + timedelta(minutes=4))
    assert fifth.rounds, "passing 75 % must summarise"
    assert fifth.transcript_tokens <= TRANSCRIPT_TRIGGER * budget
    first_turn = read_transcript(services, SESSION)[0]
    assert first_turn.is_summary
    assert len(fifth.rounds[0].covered) == 5 // 3  # the oldest third of five entries


def test_summarisation_loops_until_under_the_threshold_and_reads_continuously(clean_db: Services) -> None:
    start_session(clean_db, SESSION, now=T0)
    services = budgeted(clean_db, 120)
    for i, (who, text) in enumerate(LINES * 2):
        appended = append_turn(services, SESSION, who, text, at=T0 + timedelta(minutes=i))
        assert appended.transcript_tokens <= TRANSCRIPT_TRIGGER * 120
    transcript = read_transcript(services, SESSION)
    assert transcript[0].is_summary and not any(e.is_summary for e in transcript[1:])
    assert transcript[-1].content == LINES[-1][1]  # the newest turn is always kept verbatim
    positions = [e.position for e in transcript]
    assert positions == sorted(positions)


def test_extracted_facts_point_at_real_turns(clean_db: Services) -> None:
    start_session(clean_db, SESSION, now=T0)
    services = budgeted(clean_db, 100)
    for i, (who, text) in enumerate(LINES):
        append_turn(services, SESSION, who, text, at=T0 + timedelta(minutes=i))
    facts = rows(clean_db,
                 "MATCH (f:Memory {userId: 'alice', tier: 'PROJECT', projectId: 'proj-a'}) "
                 "OPTIONAL MATCH (f)-[:DERIVED_FROM]->(t:Turn) RETURN f.content AS content, f.attributes AS a, collect(t) AS turns")
    assert facts, "summarisation extracts facts into project memory"
    for fact in facts:
        assert fact["turns"], fact["content"]
        for turn in fact["turns"]:
            assert turn["userId"] == "alice" and turn["sessionId"] == "s1"
            assert turn["content"].split()[0] in fact["content"] or turn["role"] in fact["content"]
        assert json.loads(fact["a"])["sourceTurns"] == [t["id"] for t in fact["turns"]]
    joined = " ".join(f["content"] for f in facts)
    assert "how are you" not in joined.lower() and "see you" not in joined.lower()


def test_a_recalled_memory_handed_back_is_not_stored_again(clean_db: Services) -> None:
    scope = Scope("alice", "proj-a")
    first = remember(clean_db, scope, MemoryInput("Invoices are exported as CSV with 3 columns.", Tier.PROJECT))
    echo = remember(clean_db, scope, MemoryInput("Invoices are exported as CSV with 3 columns.", Tier.PROJECT))
    assert echo.duplicate_of == first.id
    assert rows(clean_db, "MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 1}]


def test_deduplication_merges_near_copies_and_keeps_the_union_of_edges(clean_db: Services) -> None:
    scope = Scope("alice", "proj-a")
    a = remember(clean_db, scope, MemoryInput("The billing service runs on PostgreSQL 16.", Tier.PROJECT), now=T0)
    b = remember(clean_db, scope, MemoryInput("The billing service runs on PostgreSQL 16!", Tier.PROJECT), now=T0 + timedelta(hours=1))
    other = remember(clean_db, scope, MemoryInput("Invoices are exported as CSV files.", Tier.PROJECT), now=T0)
    derived = remember(clean_db, scope, MemoryInput("Summary of billing.", Tier.PROJECT, kind="summary", derived_from=[b.id]))
    clean_db.driver.execute_query(
        "MATCH (a:Memory {id: $a}), (b:Memory {id: $b}) SET a.accessCount = 2, b.accessCount = 3 "
        "CREATE (t:Turn {id: 'turn-b', userId: 'alice', sessionId: 's0'}) CREATE (b)-[:DERIVED_FROM]->(t)",
        a=a.id, b=b.id, database_=clean_db.database,
    )
    report = consolidate(clean_db, "alice")
    assert report.merged == [(a.id, b.id)]
    survivor = rows(clean_db, "MATCH (m:Memory {id: $id}) RETURN m.accessCount AS n, m.mergedFrom AS merged, "
                              "[(m)-[:DERIVED_FROM]->(t) | t.id] AS sources, [(d)-[:DERIVED_FROM]->(m) | d.id] AS derived", id=a.id)
    assert survivor == [{"n": 5, "merged": [b.id], "sources": ["turn-b"], "derived": [derived.id]}]
    # The copy merged away stays as history: archived, superseded by the survivor.
    assert rows(clean_db, "MATCH (m:Memory {id: $id}) RETURN m.archived AS archived, "
                          "[(m)-[:SUPERSEDED_BY]->(s) | s.id] AS by", id=b.id) == [{"archived": True, "by": [a.id]}]
    assert rows(clean_db, "MATCH (m:Memory {id: $id}) RETURN count(m) AS n", id=other.id) == [{"n": 1}]
    assert consolidate(clean_db, "alice").merged == []  # no double merge
    # Forgetting the survivor takes the history it carries, and the summary only they supported.
    assert set(forget_memory(clean_db, "alice", a.id).memories) == {a.id, b.id, derived.id}
    assert rows(clean_db, "MATCH (m:Memory) RETURN m.id AS id") == [{"id": other.id}]


def test_promotion_happens_at_the_fourth_access_not_the_third(clean_db: Services) -> None:
    start_session(clean_db, Scope("alice", "proj-a", "s1"))
    three = remember(clean_db, Scope("alice", "proj-a", "s1"), MemoryInput("the retry limit is five", Tier.SESSION))
    four = remember(clean_db, Scope("alice", "proj-a", "s1"), MemoryInput("the staging host is blue-7", Tier.SESSION))
    clean_db.driver.execute_query("MATCH (m:Memory {id: $id}) SET m.accessCount = 3", id=three.id, database_=clean_db.database)
    clean_db.driver.execute_query("MATCH (m:Memory {id: $id}) SET m.accessCount = 4", id=four.id, database_=clean_db.database)
    before = datetime.now(timezone.utc)
    report = consolidate(clean_db, "alice")
    assert list(report.promoted) == [four.id]
    promoted = rows(clean_db, "MATCH (m:Memory {id: $id}) RETURN m.tier AS tier, m.projectId AS p, m.accessCount AS n",
                    id=report.promoted[four.id])
    assert promoted == [{"tier": "PROJECT", "p": "proj-a", "n": 4}]
    assert rows(clean_db, "MATCH (m:Memory {id: $id}) RETURN m.tier AS tier", id=three.id) == [{"tier": "SESSION"}]
    # The session memory promoted stays as history: read as of before the promotion, it is there.
    page = browse.memories_page(clean_db, "alice", browse.MemoryFilter(project_id="proj-a"), 10, as_of=before)
    assert {(row["id"], row["archived"]) for row in page.rows} >= {(four.id, False)}
    assert four.id not in {row["id"] for row in browse.memories_page(
        clean_db, "alice", browse.MemoryFilter(project_id="proj-a"), 10).rows}


def test_decay_applies_once_per_period(clean_db: Services) -> None:
    scope = Scope("alice", "proj-a")
    old = remember(clean_db, scope, MemoryInput("An old convention about tabs.", Tier.PROJECT), now=T0)
    fresh = remember(clean_db, scope, MemoryInput("A fresh convention about spaces.", Tier.PROJECT), now=T0 + timedelta(days=80))
    later = T0 + timedelta(days=91)
    assert consolidate(clean_db, "alice", now=later).decayed == [old.id]
    assert consolidate(clean_db, "alice", now=later + timedelta(days=1)).decayed == []
    relevance = {r["id"]: r["rho"] for r in rows(clean_db, "MATCH (m:Memory) RETURN m.id AS id, m.relevance AS rho")}
    assert relevance[old.id] == pytest.approx(0.9) and relevance[fresh.id] == 1.0
    # A whole period later both have gone 90 days untouched: each decays once more.
    again = consolidate(clean_db, "alice", now=later + timedelta(days=90))
    assert sorted(again.decayed) == sorted([old.id, fresh.id])
    relevance = {r["id"]: r["rho"] for r in rows(clean_db, "MATCH (m:Memory) RETURN m.id AS id, m.relevance AS rho")}
    assert relevance[old.id] == pytest.approx(0.81)


def test_generalisation_needs_several_projects(clean_db: Services) -> None:
    text = "Always add a database index before running a large migration in {}."
    for project in ("p1", "p2"):
        remember(clean_db, Scope("alice", project), MemoryInput(text.format(project), Tier.PROJECT))
    assert consolidate(clean_db, "alice").generalised == []
    remember(clean_db, Scope("alice", "p3"), MemoryInput(text.format("p3"), Tier.PROJECT))
    report = consolidate(clean_db, "alice")
    assert len(report.generalised) == 1
    rule = rows(clean_db, "MATCH (r:Memory {id: $id}) RETURN r.tier AS tier, r.kind AS kind, "
                          "[(r)-[:RELATED_TO]->(m) | m.projectId] AS projects", id=report.generalised[0])
    assert rule[0]["tier"] == "LONG_TERM" and rule[0]["kind"] == "rule"
    assert sorted(rule[0]["projects"]) == ["p1", "p2", "p3"]
    assert consolidate(clean_db, "alice").generalised == []  # the same cluster is not generalised twice


def test_consolidation_running_concurrently_with_writes_loses_nothing(clean_db: Services) -> None:
    scope = Scope("alice", "proj-a")
    big = dataclasses.replace(clean_db, settings=dataclasses.replace(clean_db.settings, project_capacity=1_000_000))
    for i in range(10):
        remember(big, scope, MemoryInput(f"Duplicate fact number {i % 2}: the cache TTL is 60 seconds.", Tier.PROJECT))
    written: list[str] = []
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for i in range(20):
                written.append(remember(big, scope, MemoryInput(f"Unique note {i}: build {i} passed on runner r{i}.", Tier.PROJECT)).id)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=writer)]
    threads[0].start()
    reports = [consolidate(big, "alice") for _ in range(3)]
    threads[0].join()
    assert not errors
    assert len(written) == 20
    present = {r["id"] for r in rows(clean_db, "MATCH (m:Memory) RETURN m.id AS id")}
    assert set(written) <= present
    merged_away = [drop for r in reports for _, drop in r.merged]
    assert len(merged_away) == len(set(merged_away))


@pytest.mark.parametrize("window", [8_192, 32_000, 128_000, 1_000_000])
def test_context_assembly_never_exceeds_a_budget(clean_db: Services, window: int) -> None:
    scope = Scope("alice", "proj-a", "s1")
    start_session(clean_db, scope, now=T0)
    remember(clean_db, Scope("alice"), MemoryInput("User preference — answers should be concise.", Tier.LONG_TERM, kind="preference"))
    remember(clean_db, Scope("alice", "proj-a"), MemoryInput("Decision: the API returns cursor-paginated lists.", Tier.PROJECT, kind="decision"))
    for i, (who, text) in enumerate(LINES):
        append_turn(clean_db, scope, who, text, at=T0 + timedelta(minutes=i))
    context = assemble_context(clean_db, scope, "what did we decide about billing?", window,
                               system_prompt="You are a helpful assistant. " * 50, tool_definitions="{}")
    assert [s.section for s in context.sections] == list(ORDER)
    assert context.tokens <= window
    for section in context.sections:
        assert section.tokens <= section.budget, section.section
    base = base_budgets(window)
    assert sum(s.budget for s in context.sections) <= window
    assert context.section(Section.GENERATION_HEADROOM).tokens == 0
    assert context.section(Section.CURRENT_QUERY).text == "what did we decide about billing?"
    assert "concise" in context.section(Section.GLOBAL_MEMORY).text
    assert "cursor-paginated" in context.section(Section.PROJECT_MEMORY).text
    history = context.section(Section.CONVERSATION_HISTORY).text
    assert history.endswith(LINES[-1][1])
    assert context.section(Section.SYSTEM_PROMPT).tokens <= base[Section.SYSTEM_PROMPT]


def test_consolidate_command_prints_a_report(clean_db: Services, capsys: pytest.CaptureFixture[str]) -> None:
    from hippograph.cli import main

    scope = Scope("alice", "proj-a")
    remember(clean_db, scope, MemoryInput("The cache TTL is sixty seconds.", Tier.PROJECT))
    remember(clean_db, scope, MemoryInput("The cache TTL is sixty seconds!", Tier.PROJECT))
    assert main(["consolidate", "--user", "alice"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    # What it does from its first second, then its progress, a plain line off a terminal.
    assert captured.err.startswith("consolidate: connecting to Neo4j and loading the embedding model")
    assert captured.err.splitlines()[-1].startswith("consolidate: 1/1 users (")
    assert len(report["merged"]) == 1 and report["promoted"] == {} and report["decayed"] == 0
    assert main(["consolidate", "--user", "bad user!"]) == 1
    assert "user id 'bad user!' is not valid" in capsys.readouterr().err


def test_the_periodic_task_consolidates_until_cancelled(clean_db: Services) -> None:
    import asyncio

    from hippograph.api.periodic import consolidate_periodically

    scope = Scope("alice", "proj-a")
    remember(clean_db, scope, MemoryInput("The cache TTL is sixty seconds.", Tier.PROJECT))
    remember(clean_db, scope, MemoryInput("The cache TTL is sixty seconds.", Tier.PROJECT))

    async def run_briefly() -> None:
        task = asyncio.create_task(consolidate_periodically(clean_db, 0.2))
        for _ in range(100):
            await asyncio.sleep(0.1)
            if rows(clean_db, "MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 1}]:
                break
        task.cancel()

    asyncio.run(run_briefly())
    assert rows(clean_db, "MATCH (m:Memory) RETURN count(m) AS n") == [{"n": 1}]


def test_ending_a_session_keeps_the_facts_of_its_last_turns(clean_db: Services) -> None:
    from hippograph.memory.lifecycle.sessions import end_session

    start_session(clean_db, SESSION, now=T0)
    for i, (who, text) in enumerate(LINES):
        append_turn(clean_db, SESSION, who, text, at=T0 + timedelta(minutes=i), ref=f"D1:{i + 1}")
    assert not any(e.is_summary for e in read_transcript(clean_db, SESSION))  # nothing summarised yet
    ended = end_session(clean_db, "alice", "s1")
    assert ended.facts and ended.turns_deleted == len(LINES)
    facts = rows(clean_db, "MATCH (m:Memory {tier: 'PROJECT', projectId: 'proj-a'}) RETURN m.content AS c, m.attributes AS a")
    refs = {ref for f in facts for ref in json.loads(f["a"])["sourceRefs"]}
    assert "D1:2" in refs and "D1:3" in refs  # the decision and the error turns
    assert "D1:1" not in refs and "D1:8" not in refs  # greetings and goodbyes hold no fact
    assert any("E1234" in f["c"] for f in facts)
    assert rows(clean_db, "MATCH (t:Turn) RETURN count(t) AS n") == [{"n": 0}]


def test_a_fact_keeps_what_was_said_before_its_turn_and_recall_finds_it_by_those_words(clean_db: Services) -> None:
    from hippograph.memory.lifecycle.sessions import end_session
    from hippograph.memory.recall.query import recall

    scope = Scope("alice", "proj-a", "s1")
    start_session(clean_db, scope, now=T0)
    append_turn(clean_db, scope, "Ana", "Which vault did the quokkaish backups move to last spring?", at=T0)
    append_turn(clean_db, scope, "Ben", "We moved them to the Glacier vault in Frankfurt after the audit.",
                at=T0 + timedelta(seconds=5))
    # A session memory written at a later place refreshes the session memories' preceding texts, not the facts'.
    remember(clean_db, scope, MemoryInput("Ana asked about the audit schedule.", Tier.SESSION), now=T0 + timedelta(seconds=9))
    end_session(clean_db, "alice", "s1", now=T0 + timedelta(seconds=10))
    facts = rows(clean_db, "MATCH (m:Memory {tier: 'PROJECT'}) WHERE m.content CONTAINS 'Glacier' "
                           "RETURN m.id AS id, m.preceding AS preceding")
    assert [f["preceding"] for f in facts] == ["Ana: Which vault did the quokkaish backups move to last spring?"]
    # The answer holds none of the question's rare word; its preceding text does, so the keyword signal finds it.
    found = recall(clean_db, "quokkaish", Scope("alice", "proj-a"), profile="hybrid")
    [answer] = [c for c in found.ranking if c.id == facts[0]["id"]]
    assert answer.components.keyword > 0 and "keyword" in answer.sources


def test_facts_keep_their_session_and_turn_time_and_merges_unite_their_refs(clean_db: Services) -> None:
    from hippograph.memory.lifecycle.sessions import end_session

    said = "We decided to ship the billing service on PostgreSQL 16 next Tuesday after the load test."
    for session, ref, at in (("s1", "D1:1", T0), ("s2", "D2:4", T0 + timedelta(days=2))):
        scope = Scope("alice", "proj-a", session)
        start_session(clean_db, scope, now=at)
        append_turn(clean_db, scope, "Ben", said, at=at, ref=ref)
        end_session(clean_db, "alice", session, now=at)
    # The same words in two sessions are one fact, derived from both turns.
    facts = rows(clean_db, "MATCH (m:Memory {tier: 'PROJECT'}) RETURN m.sessionId AS session, m.createdAt AS at, "
                           "m.attributes AS a")
    assert len(facts) == 1
    assert facts[0]["session"] == "s1" and facts[0]["at"].to_native() == T0
    assert json.loads(facts[0]["a"])["sourceRefs"] == ["D1:1", "D2:4"]
    # Near-copies merged by consolidation keep the provenance of both.
    scope = Scope("alice", "proj-a", "s3")
    start_session(clean_db, scope, now=T0 + timedelta(days=3))
    append_turn(clean_db, scope, "Ben", said.replace("test.", "test!"), at=T0 + timedelta(days=3), ref="D3:2")
    end_session(clean_db, "alice", "s3", now=T0 + timedelta(days=3))
    assert len(consolidate(clean_db, "alice").merged) == 1
    facts = rows(clean_db, "MATCH (m:Memory {tier: 'PROJECT', archived: false}) RETURN m.attributes AS a")
    assert len(facts) == 1 and json.loads(facts[0]["a"])["sourceRefs"] == ["D1:1", "D2:4", "D3:2"]
