"""The write path against the real Neo4j and the real model: rules, capacity, compression."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from hippograph.memory.writing import scrubbing
from hippograph.memory.errors import CapacityExceeded, InvalidInput, RawTurnRefused
from hippograph.memory.writing.store import MemoryInput, bulk_import, remember
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope, ScopeError, trigger
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

ALICE = Scope("alice", "proj-a", "sess-a")
T0 = datetime(2026, 7, 1, tzinfo=timezone.utc)


def count(services: Services, cypher: str, **params) -> int:
    return services.driver.execute_query(cypher, params, database_=services.database).records[0][0]


def usage(services: Services, scope: Scope, tier: Tier) -> int:
    return count(
        services,
        "MATCH (m:Memory {userId: $u, tier: $t}) WHERE m.archived = false AND ($t = 'LONG_TERM' OR m.projectId = $p) "
        "AND ($t <> 'SESSION' OR m.sessionId = $s) RETURN coalesce(sum(m.tokens), 0)",
        u=scope.user_id, t=tier.value, p=scope.project_id, s=scope.session_id,
    )


def with_capacity(services: Services, **capacities: int) -> Services:
    return dataclasses.replace(services, settings=dataclasses.replace(services.settings, **capacities))


def test_remember_stores_the_memory_tuple_with_embedding_tokens_and_mentions(clean_db: Services) -> None:
    stored = remember(clean_db, ALICE, MemoryInput("We chose PostgreSQL 16 with Redis for caching.", Tier.PROJECT, kind="fact"))
    clean_db.writer.settle("alice")  # its vector comes after the answer (HIPPOGRAPH_WRITE_VECTORS=after)
    record = clean_db.driver.execute_query(
        "MATCH (u:User {id: 'alice'})-[:REMEMBERS]->(m:Memory {id: $id}) "
        "OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity) "
        "RETURN m, size(m.embedding) AS dims, collect(e.name) AS names",
        id=stored.id, database_=clean_db.database,
    ).records[0]
    memory = record["m"]
    assert record["dims"] == 384
    assert memory["tier"] == "PROJECT" and memory["projectId"] == "proj-a" and memory["sessionId"] is None
    assert memory["tokens"] == clean_db.tokens.count("We chose PostgreSQL 16 with Redis for caching.") == stored.tokens
    assert memory["relevance"] == 1.0 and memory["accessCount"] == 0 and memory["archived"] is False
    assert sorted(record["names"]) == ["PostgreSQL", "Redis"]


def test_the_same_entity_is_one_node_however_it_is_spelled(clean_db: Services) -> None:
    remember(clean_db, ALICE, MemoryInput("PostgreSQL is the main database.", Tier.PROJECT))
    remember(clean_db, ALICE, MemoryInput("Backups of postgresql run nightly.", Tier.PROJECT))
    remember(clean_db, Scope("bob", "proj-a"), MemoryInput("Bob also uses PostgreSQL.", Tier.PROJECT))
    names = clean_db.driver.execute_query(
        "MATCH (e:Entity:Technology {normName: 'postgresql'}) RETURN e.userId AS user, count{(e)<-[:MENTIONS]-()} AS mentions ORDER BY user",
        database_=clean_db.database,
    ).records
    assert [(r["user"], r["mentions"]) for r in names] == [("alice", 2), ("bob", 1)]


def mentioned(services: Services, memory_id: str) -> list[str]:
    return sorted(record["name"] for record in services.driver.execute_query(
        "MATCH (:Memory {id: $id})-[:MENTIONS]->(e:Entity) RETURN e.name AS name", id=memory_id,
        database_=services.database,
    ).records)


def test_a_capital_opening_a_sentence_links_to_a_known_name_and_makes_none(clean_db: Services) -> None:
    # Written before anyone named Oliver: the opening capitals make no entity.
    first = remember(clean_db, ALICE, MemoryInput("Glad you came! Oliver got sick.", Tier.PROJECT))
    assert mentioned(clean_db, first.id) == []
    named = remember(clean_db, ALICE, MemoryInput("I walked my dog Oliver.", Tier.PROJECT))
    later = remember(clean_db, ALICE, MemoryInput("Oliver is better now. Sounds good.", Tier.PROJECT))
    assert mentioned(clean_db, named.id) == mentioned(clean_db, later.id) == ["Oliver"]
    # In one import, a name one memory says links another that opens a sentence with it.
    batch = bulk_import(clean_db, ALICE, [MemoryInput("Maria called.", Tier.PROJECT), MemoryInput("I met Maria.", Tier.PROJECT)])
    assert [mentioned(clean_db, ids[0]) for ids in batch] == [["Maria"], ["Maria"]]
    assert count(clean_db, "MATCH (e:Entity {userId: 'alice'}) WHERE e.name IN ['Glad', 'Sounds'] RETURN count(e)") == 0
    # A turn's speaker names who said it: the label makes the entity.
    said = bulk_import(clean_db, ALICE, [MemoryInput("Nora: Glad you asked.", Tier.SESSION, kind="turn",
                                                     attributes={"speaker": "Nora"})])
    assert mentioned(clean_db, said[0][0]) == ["Nora"]


SECRETS = {
    "api_key": "my key is sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678",
    "aws": "AWS access key AKIAIOSFODNN7EXAMPLE for the deploy user",
    "password": "the db password=Tr0ub4dor&3xyz for prod",
    "private_key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY-----",
    "connection_string": "connect with postgres://admin:hunter2secret@db.internal:5432/app",
    "token": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}
SECRET_VALUES = ["Abc123Def456Ghi789Jkl012Mno345Pqr678", "AKIAIOSFODNN7EXAMPLE", "Tr0ub4dor&3xyz",
                 "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", "hunter2secret",
                 "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"]


def anywhere_in_the_database(services: Services, needle: str) -> int:
    return count(
        services,
        "MATCH (n) UNWIND keys(n) AS k WITH n[k] AS v WHERE v IS :: STRING AND v CONTAINS $needle RETURN count(*)",
        needle=needle,
    )


def test_secrets_of_every_kind_never_reach_the_database(clean_db: Services) -> None:
    for text in SECRETS.values():
        stored = remember(clean_db, ALICE, MemoryInput(text, Tier.PROJECT))
        assert stored.redacted, text
    for value in SECRET_VALUES:
        assert anywhere_in_the_database(clean_db, value) == 0, value
    assert count(clean_db, "MATCH (m:Memory) WHERE m.content CONTAINS '[REDACTED:' RETURN count(m)") == len(SECRETS)


def test_reject_policy_refuses_the_write_and_stores_nothing(clean_db: Services) -> None:
    strict = dataclasses.replace(clean_db, settings=dataclasses.replace(clean_db.settings, secret_policy="reject"))
    with pytest.raises(scrubbing.SecretRejected) as refused:
        remember(strict, ALICE, MemoryInput(SECRETS["connection_string"], Tier.PROJECT))
    assert "hunter2secret" not in str(refused.value)
    assert count(clean_db, "MATCH (n) WHERE NOT n:__Neo4jMigration AND NOT n:__Neo4jMigrationsLock RETURN count(n)") == 0


@pytest.mark.parametrize("tier", [Tier.PROJECT, Tier.LONG_TERM])
def test_raw_turns_are_refused_in_the_persistent_tiers(clean_db: Services, tier: Tier) -> None:
    with pytest.raises(RawTurnRefused, match=f"not stored in the {tier.value} tier"):
        remember(clean_db, ALICE, MemoryInput("I fixed the build", tier, kind="turn"))
    with pytest.raises(RawTurnRefused):
        remember(clean_db, ALICE, MemoryInput("User: can you fix the build?\nAssistant: sure, done.", tier))
    assert count(clean_db, "MATCH (m:Memory) RETURN count(m)") == 0
    stored = remember(clean_db, ALICE, MemoryInput("User: can you fix the build?\nAssistant: sure.", Tier.SESSION, kind="turn"))
    assert stored.created


def test_bad_input_is_refused_with_a_reason(clean_db: Services) -> None:
    with pytest.raises(InvalidInput, match="non-empty content"):
        remember(clean_db, ALICE, MemoryInput("   ", Tier.PROJECT))
    with pytest.raises(InvalidInput, match="unknown memory kind"):
        remember(clean_db, ALICE, MemoryInput("x", Tier.PROJECT, kind="gossip"))
    with pytest.raises(InvalidInput, match="relevance"):
        remember(clean_db, ALICE, MemoryInput("x", Tier.PROJECT, relevance=1.5))
    with pytest.raises(ScopeError, match="needs a project id"):
        remember(clean_db, Scope("alice"), MemoryInput("x", Tier.PROJECT))
    with pytest.raises(ScopeError, match="is not valid"):
        Scope("alice' OR 1=1 //")
    assert count(clean_db, "MATCH (m:Memory) RETURN count(m)") == 0


def test_an_echo_of_a_stored_memory_is_not_stored_again(clean_db: Services) -> None:
    first = remember(clean_db, ALICE, MemoryInput("The API uses cursor pagination.", Tier.PROJECT))
    again = remember(clean_db, ALICE, MemoryInput("  the API uses cursor   pagination. ", Tier.PROJECT))
    assert not again.created and again.duplicate_of == first.id
    assert count(clean_db, "MATCH (m:Memory) RETURN count(m)") == 1


def filler(i: int) -> str:
    return f"Note {i}: the nightly job number {i} moves reports from storage bucket {i} to the archive."


@pytest.mark.parametrize(("tier", "trigger"), [(Tier.SESSION, 0.8), (Tier.PROJECT, 0.7), (Tier.LONG_TERM, 0.6)])
def test_trigger_fires_exactly_past_its_threshold(clean_db: Services, tier: Tier, trigger: float) -> None:
    probe = clean_db.tokens.count(filler(0))
    # A capacity where n memories reach the trigger exactly: the n-th write does not compress, the next does.
    n = 5
    cap = int(n * probe / trigger)
    while n * probe > trigger * cap:
        cap += 1
    services = with_capacity(clean_db, session_capacity=cap, project_capacity=cap, long_term_capacity=cap)
    results = [remember(services, ALICE, MemoryInput(filler(i), tier, created_at=T0 + timedelta(minutes=i))) for i in range(n)]
    assert all(r.tokens == probe for r in results)
    assert all(r.compression is None for r in results)
    assert usage(clean_db, ALICE, tier) == n * probe <= trigger * cap
    nxt = remember(services, ALICE, MemoryInput(filler(n), tier, created_at=T0 + timedelta(minutes=n)))
    assert nxt.compression is not None
    assert usage(clean_db, ALICE, tier) <= trigger * cap


@pytest.mark.parametrize("tier", list(Tier))
def test_capacity_is_never_exceeded_under_a_loop_of_writes(clean_db: Services, tier: Tier) -> None:
    services = with_capacity(clean_db, session_capacity=300, project_capacity=300, long_term_capacity=300)
    for i in range(40):
        stored = remember(services, ALICE, MemoryInput(filler(i), tier, kind="pattern" if i % 3 == 0 else "note",
                                                       attributes={"count": i % 5}, created_at=T0 + timedelta(minutes=i)))
        assert stored.created
        used = usage(clean_db, ALICE, tier)
        assert used <= trigger(tier) * 300 <= 0.8 * 300, (i, used)


def test_a_write_that_cannot_fit_is_refused_and_nothing_is_written(clean_db: Services) -> None:
    services = with_capacity(clean_db, project_capacity=60)
    with pytest.raises(CapacityExceeded, match="cannot fit the PROJECT tier"):
        remember(services, ALICE, MemoryInput(" ".join(["word"] * 100), Tier.PROJECT))
    assert count(clean_db, "MATCH (n) WHERE NOT n:__Neo4jMigration AND NOT n:__Neo4jMigrationsLock RETURN count(n)") == 0


def test_bulk_import_stores_everything_once_with_one_audit_line_per_batch(clean_db: Services) -> None:
    items = [MemoryInput(filler(i), Tier.SESSION, created_at=T0 + timedelta(seconds=i)) for i in range(30)]
    big = with_capacity(clean_db, session_capacity=100_000)
    ids = bulk_import(big, ALICE, items)
    assert all(len(stored) == 1 for stored in ids) and len(set(ids)) == 30
    assert count(clean_db, "MATCH (m:Memory {userId: 'alice', tier: 'SESSION'}) WHERE m.embedding IS NOT NULL RETURN count(m)") == 30
    assert bulk_import(big, ALICE, items) == ids  # a re-import stores nothing twice
    assert count(clean_db, "MATCH (m:Memory) RETURN count(m)") == 30
    more = [MemoryInput(filler(100 + i), Tier.SESSION) for i in range(30)]
    with pytest.raises(CapacityExceeded, match="passes its 80% compression trigger"):
        bulk_import(clean_db, ALICE, more)
    assert count(clean_db, "MATCH (m:Memory) RETURN count(m)") == 30
    lines = clean_db.driver.execute_query(
        "MATCH (e:AuditEvent {userId: 'alice', operation: 'import'}) RETURN size(e.ids) AS n ORDER BY e.at",
        database_=clean_db.database,
    ).records
    assert [r["n"] for r in lines] == [30, 0]


def test_a_conversation_turn_of_any_length_is_stored_as_its_parts_and_its_middle_is_found(clean_db: Services) -> None:
    from hippograph.memory.recall.query import recall
    from hippograph.memory.writing.admission import MAX_CONTENT_CHARS
    from hippograph.memory.writing.turns import PART_CHARS

    # A pasted document: 45,000 characters, one paragraph about the lighthouse in the middle of it, and a
    # base64 blob (one capitalised run of 219 characters) that entity extraction must not take for a name.
    blob = "PHN2ZyB4bWxucz0i" + "aHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmci" * 6
    def clauses(section: int) -> str:  # a paragraph of about 1,800 characters
        return " ".join(f"Clause {section}.{i} of the tenancy agreement covers routine upkeep." for i in range(28))

    middle = ("The old lighthouse keeper repainted the lantern room every spring. He chose cobalt blue for its walls. "
              "The lantern room looks out over the harbour, and its paint had to stand the salt wind all year. "
              "Each spring he scraped the old coat off the iron frames by hand before the blue went on. "
              "Visitors climbed the hundred steps to see the blue lantern room at sunset.")
    document = "\n\n".join([clauses(s) for s in range(12)] + [middle, blob] + [clauses(s) for s in range(12, 24)])
    assert len(document) > 2 * MAX_CONTENT_CHARS
    turn = MemoryInput(f"User: {document}", Tier.SESSION, kind="turn", created_at=T0,
                       attributes={"dia_id": "D1:1", "speaker": "User"})
    short = MemoryInput("Assistant: Noted.", Tier.SESSION, kind="turn", created_at=T0 + timedelta(seconds=1))
    big = with_capacity(clean_db, session_capacity=1_000_000)
    parts, (reply,) = bulk_import(big, ALICE, [turn, short])
    assert len(parts) > len(document) // PART_CHARS
    rows = clean_db.driver.execute_query(
        "MATCH (m:Memory {userId: 'alice', sessionId: 'sess-a'}) RETURN m.id AS id, m.content AS content, "
        "m.attributes AS attributes ORDER BY m.createdAt", database_=clean_db.database).records
    assert [r["id"] for r in rows] == [*parts, reply]
    assert all(len(r["content"]) <= PART_CHARS and r["content"].startswith("User: ") for r in rows[:-1])
    assert [r["attributes"] for r in rows[:-1]] == [
        f'{{"dia_id": "D1:1", "part": {i}, "parts": {len(parts)}, "speaker": "User"}}' for i in range(len(parts))]
    found = recall(big, "what colour was the lantern room painted?", ALICE, "critical", record_access=False)
    lighthouse = next(part for part, row in zip(parts, rows) if "lighthouse" in row["content"])
    assert found.ranking[0].id == found.items[0].id == lighthouse
    # A remembered memory keeps its limit, with its clear error.
    with pytest.raises(InvalidInput, match="at most 20000 characters"):
        remember(big, ALICE, MemoryInput(f"User: {document}", Tier.SESSION, kind="turn"))


def test_the_speaker_is_stored_as_lower_case_words_and_the_vector_as_the_passage_mean(clean_db: Services) -> None:
    text = "Dr. Lee: The migration ran overnight. It took six hours."
    session = Scope("alice", "proj-a", "s1")
    stored = remember(clean_db, session, MemoryInput(text, Tier.SESSION, kind="turn", attributes={"speaker": "Dr. Lee"}))
    plain = remember(clean_db, session, MemoryInput("no speaker here", Tier.SESSION))
    clean_db.writer.settle("alice")  # the vectors come after the answers (HIPPOGRAPH_WRITE_VECTORS=after)
    rows = {
        r["id"]: r for r in clean_db.driver.execute_query(
            "MATCH (m:Memory {userId: 'alice'}) RETURN m.id AS id, m.speaker AS speaker, m.embedding AS embedding",
            database_=clean_db.database,
        ).records
    }
    assert rows[stored.id]["speaker"] == "dr lee"
    assert rows[plain.id]["speaker"] is None
    expected = clean_db.embedder.embed_documents([text])[0]
    assert np.allclose(np.array(rows[stored.id]["embedding"]), expected, atol=1e-5)


def test_the_text_said_before_a_memory_is_the_last_of_its_session_and_of_a_shared_instant_the_highest_id(
    clean_db: Services,
) -> None:
    session, start = Scope("alice", "proj-a", "s1"), datetime(2026, 5, 1, tzinfo=timezone.utc)
    first = remember(clean_db, session, MemoryInput("We open the incident channel", Tier.SESSION, created_at=start))
    # An import that stamps a batch with one instant: three memories at the same time.
    batch = [stored for (stored,) in bulk_import(clean_db, session, [
        MemoryInput(f"Step {i}: page the on-call for region {i}", Tier.SESSION, created_at=start + timedelta(minutes=5))
        for i in range(3)])]
    last = remember(clean_db, session, MemoryInput("We close the incident channel", Tier.SESSION,
                                                   created_at=start + timedelta(minutes=9)))
    preceding = {r["id"]: (r["content"], r["preceding"]) for r in clean_db.driver.execute_query(
        "MATCH (m:Memory {userId: 'alice', sessionId: 's1'}) RETURN m.id AS id, m.content AS content, m.preceding AS preceding",
        database_=clean_db.database).records}
    assert preceding[first.id][1] is None
    assert all(preceding[i][1] == "We open the incident channel" for i in batch)
    assert preceding[last.id][1] == preceding[max(batch)][0]
