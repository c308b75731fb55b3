"""The three Izanagi documents through the real graph: round trips, refusals, replacement, undo, the CLI."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import uuid
from contextlib import nullcontext
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hippograph import cli
from hippograph.memory import documents
from hippograph.memory.documents import DocumentError, export_document, import_document
from hippograph.memory.errors import CapacityExceeded, InvalidInput, NotFound
from hippograph.memory.lifecycle.sessions import end_session
from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope, capacity, keep_capacity, kept_capacities
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import remember

pytestmark = pytest.mark.neo4j

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "izanagi"
FILES = {"session": "session.json", "project": "project-memory.json", "long-term": "long-term-memory.json"}
USER = "user-default"  # the user the seed's long-term example belongs to

# Everything but the migration chain; audit events are counted apart (an undone import keeps its log).
COUNT_NODES = """
MATCH (n) WHERE NOT n:__Neo4jMigration AND NOT n:__Neo4jMigrationsLock AND ($audit OR NOT n:AuditEvent)
RETURN count(n) AS n
"""
COUNT_RELATIONSHIPS = """
MATCH (a)-[r]->(b)
WHERE NOT a:__Neo4jMigration AND ($audit OR (NOT a:AuditEvent AND NOT b:AuditEvent))
RETURN count(r) AS n
"""


@pytest.fixture
def store(clean_db: Services) -> Services:
    return clean_db


def seed(kind: str) -> dict[str, Any]:
    return json.loads((FIXTURES / FILES[kind]).read_text())


def ids_of(kind: str, document: dict[str, Any]) -> dict[str, str]:
    if kind == "project":
        return {"project_id": document["project_id"]}
    if kind == "session":
        return {"session_id": document["session_id"]}
    return {}


def ordered(value: Any) -> Any:
    """A value whose equality also compares key order."""
    if isinstance(value, dict):
        return [(key, ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [ordered(item) for item in value]
    return value


def round_trip(services: Services, kind: str, document: dict[str, Any], user: str = USER) -> dict[str, Any]:
    import_document(services, kind, document, user)
    return export_document(services, kind, user, **ids_of(kind, document))


def counts(services: Services, audit: bool = True) -> tuple[int, int]:
    def one(cypher: str) -> int:
        return services.driver.execute_query(cypher, audit=audit, database_=services.database).records[0]["n"]

    return one(COUNT_NODES), one(COUNT_RELATIONSHIPS)


def query(services: Services, cypher: str, **params: Any) -> list[dict[str, Any]]:
    return [r.data() for r in services.driver.execute_query(cypher, params, database_=services.database).records]


def with_settings(services: Services, **changes: Any) -> Services:
    return dataclasses.replace(services, settings=dataclasses.replace(services.settings, **changes))


# --- the seed's examples ------------------------------------------------------------


@pytest.mark.parametrize("kind", list(FILES))
def test_the_seed_examples_round_trip_exactly(store: Services, kind: str) -> None:
    document = seed(kind)
    exported = round_trip(store, kind, document)
    assert exported == document
    assert ordered(exported) == ordered(document)


def test_the_project_document_is_an_explorable_graph(store: Services) -> None:
    import_document(store, "project", seed("project"), USER)
    uses = query(store, "MATCH (:User {id: $u})-[:HAS_PROJECT]->(p:Project {id: 'proj-xyz789'})-[:USES]->(t:Technology) "
                        "RETURN p.type AS type, collect(t.name) AS techs", u=USER)
    assert uses[0]["type"] == "web_app"
    assert sorted(uses[0]["techs"]) == ["Laravel 11", "PostgreSQL 16", "React + Tailwind", "Redis"]
    chain = query(store, "MATCH (p:Project)-[:HAS_ENTRY {section: 'error_history'}]->(m:Memory:Error)-[:RECORDS]->"
                         "(e:Error)-[:SOLVED_BY]->(fix:Decision) RETURN e.name AS error, fix.name AS fix, m.tier AS tier")
    assert chain == [{"error": "SQL injection vector in UserController", "fix": "Use parameterized queries", "tier": "PROJECT"}]
    decision = query(store, "MATCH (p:Project)-[:HAS_ENTRY {section: 'architecture.decisions'}]->(m:Memory:Decision)"
                            "-[:RECORDS]->(d:Decision) RETURN m.attributes AS attributes, d.name AS name, "
                            "toString(m.createdAt) AS created")
    assert decision[0]["name"] == "Use JWT in httpOnly cookies"
    assert json.loads(decision[0]["attributes"])["id"] == "adr-001"
    assert decision[0]["created"].startswith("2026-07-15")
    pattern = query(store, "MATCH (p:Project)-[:HAS_ENTRY {section: 'architecture.pattern'}]->(m:Memory)-[:RECORDS]->(c:Concept) "
                           "RETURN c.name AS name")
    assert pattern == [{"name": "Layered (Controller → Service → Repository)"}]


def test_the_long_term_document_is_an_explorable_graph(store: Services) -> None:
    import_document(store, "long-term", seed("long-term"), USER)
    preferences = query(store, "MATCH (:User {id: $u})-[:HAS_ENTRY {section: 'preferences'}]->(m:Memory {tier: 'LONG_TERM'})"
                               "-[:RECORDS]->(p:UserPreference) RETURN p.name AS name ORDER BY name", u=USER)
    assert [p["name"] for p in preferences] == [
        "communication_style: concise", "teaching_level: intermediate", "teaching_style: examples_first",
    ]
    patterns = query(store, "MATCH (:User)-[:HAS_ENTRY {section: 'recurring_patterns'}]->(m:Memory:Pattern)-[:RECORDS]->(p:Pattern) "
                            "RETURN p.name AS name, m.attributes AS attributes ORDER BY name")
    assert [(p["name"], json.loads(p["attributes"])["count"]) for p in patterns] == [("forget_security", 2), ("token_waste", 5)]
    lessons = query(store, "MATCH (:User)-[:HAS_ENTRY]->(m:Memory)-[:MENTIONS]->(c:Concept) "
                           "WHERE m.content STARTS WITH 'Struggling' RETURN c.name AS name")
    assert lessons == [{"name": "Event Sourcing"}]


def test_the_session_document_is_an_explorable_graph_and_leaves_with_the_session(store: Services) -> None:
    import_document(store, "session", seed("session"), USER, project_id="proj-xyz789")
    tasks = query(store, "MATCH (s:Session {id: 'sess-abc123'})-[:HAS_TASK]->(t:Task)-[e:HAS_ENTRY]->(m:Memory:Decision) "
                         "RETURN t.id AS task, t.classification AS classification, s.projectId AS project, "
                         "m.tier AS tier, m.content AS content ORDER BY e.position")
    assert [(t["task"], t["classification"], t["project"], t["tier"]) for t in tasks] == [
        ("task-001", "new_feature", "proj-xyz789", "SESSION")] * 2
    assert [t["content"] for t in tasks] == ["Use JWT over sessions", "Use PostgreSQL"]
    context = query(store, "MATCH (s:Session {id: 'sess-abc123'}) RETURN s.activeContext AS context")
    assert json.loads(context[0]["context"]) == seed("session")["active_context"]

    end_session(store, USER, "sess-abc123")
    assert query(store, "MATCH (t:Task) RETURN count(t) AS n") == [{"n": 0}]
    assert query(store, "MATCH (m:Memory {tier: 'SESSION'}) RETURN count(m) AS n") == [{"n": 0}]
    with pytest.raises(InvalidInput, match="has ended"):
        import_document(store, "session", seed("session"), USER, project_id="proj-xyz789")


# --- generated documents -------------------------------------------------------------

# Lower-case words from a vocabulary with no secret-like or speaker words: generated texts never
# collide by case, never get redacted, and never read as a transcript.
WORDS = [
    "alpha", "bravo", "cache", "delta", "layer", "queue", "index", "schema", "graph", "route", "render", "batch",
    "stream", "shard", "replica", "widget", "façade", "naïve", "über", "→", "redis", "kafka", "postgres", "react",
    "retry", "timeout", "backoff", "module", "service", "adapter", "port", "domain", "event", "ledger", "audit",
]
PHRASE = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
MOMENT = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31)).flatmap(
    lambda moment: st.sampled_from([
        moment.date().isoformat(), moment.replace(microsecond=0).isoformat() + "Z",
        moment.replace(tzinfo=timezone.utc).isoformat(),
    ])
)
COUNT = st.integers(min_value=0, max_value=50)


@st.composite
def in_some_order(draw: st.DrawFn, values: dict[str, Any]) -> dict[str, Any]:
    return {key: values[key] for key in draw(st.permutations(list(values)))}


@st.composite
def project_documents(draw: st.DrawFn) -> dict[str, Any]:
    decisions = draw(st.lists(PHRASE, max_size=3, unique=True))
    errors = draw(st.lists(PHRASE, max_size=3, unique=True))
    architecture = {
        "pattern": draw(PHRASE),
        "decisions": [
            draw(in_some_order({"id": f"adr-{i:03}", "decision": text, "reason": draw(PHRASE), "date": draw(MOMENT)}))
            for i, text in enumerate(decisions)
        ],
    }
    return draw(in_some_order({
        "project_id": f"proj-{uuid.uuid4().hex[:8]}",
        "type": draw(st.sampled_from(["web_app", "cli", "library", "data pipeline"])),
        "tech_stack": draw(st.dictionaries(st.sampled_from(["backend", "frontend", "database", "cache", "queue_v2"]), PHRASE, max_size=4)),
        "architecture": draw(in_some_order(architecture)),
        "conventions": draw(st.dictionaries(st.sampled_from(["naming", "testing", "layout", "commits"]), PHRASE, max_size=3)),
        "error_history": [
            draw(in_some_order({"error": text, "fix": draw(PHRASE), "count": draw(COUNT), "last_seen": draw(MOMENT)}))
            for text in errors
        ],
        "last_updated": draw(MOMENT),
    }))


@st.composite
def long_term_documents(draw: st.DrawFn, user: str) -> dict[str, Any]:
    patterns = draw(st.dictionaries(
        st.sampled_from(["token_waste", "forget_security", "skip_tests", "over_engineering"]),
        st.fixed_dictionaries({"count": COUNT, "last_skill": PHRASE, "resolved": st.booleans()}).flatmap(in_some_order),
        max_size=3,
    ))
    evolution = [
        draw(in_some_order({
            "skill": draw(PHRASE), "version": f"1.{i}.0", "changes": draw(st.lists(PHRASE, max_size=2)), "date": draw(MOMENT),
        }))
        for i in range(draw(st.integers(0, 2)))
    ]
    progress = {
        "completed_lessons": draw(st.lists(PHRASE, max_size=3)),
        "current_lesson": draw(PHRASE),
        "struggling_topics": draw(st.lists(PHRASE, max_size=2)),
    }
    return draw(in_some_order({
        "user_id": user,
        "preferences": draw(st.dictionaries(
            st.sampled_from(["communication_style", "teaching_level", "teaching_style", "tone.v2"]), PHRASE, max_size=3,
        )),
        "recurring_patterns": patterns,
        "skill_evolution": evolution,
        "learning_progress": draw(in_some_order(progress)),
        "last_updated": draw(MOMENT),
    }))


@st.composite
def session_documents(draw: st.DrawFn) -> dict[str, Any]:
    # Decisions, errors and patterns start differently, so a text is never both (that would be refused).
    def texts(prefix: str) -> st.SearchStrategy[list[str]]:
        return st.lists(PHRASE.map(lambda p: f"{prefix} {p}"), max_size=3)

    tasks = [
        draw(in_some_order({
            "task_id": f"task-{i:03}",
            "classification": draw(st.sampled_from(["new_feature", "bug_fix", "refactor"])),
            "decisions": draw(texts("use")), "errors": draw(texts("failing")), "patterns": draw(texts("again")),
        }))
        for i in range(draw(st.integers(0, 3)))
    ]
    context = {"current_skill": draw(PHRASE), "token_used": draw(st.integers(0, 100_000)),
               "compression_level": draw(st.sampled_from(["none", "light", "heavy"]))}
    extra = draw(st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False), PHRASE))
    if draw(st.booleans()):
        context["note"] = extra
    return draw(in_some_order({
        "session_id": f"sess-{uuid.uuid4().hex[:8]}",
        "started_at": draw(MOMENT),
        "tasks": tasks,
        "active_context": draw(in_some_order(context)),
    }))


GENERATED = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@GENERATED
@given(document=project_documents())
def test_generated_project_documents_round_trip(store: Services, document: dict[str, Any]) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"  # a fresh user per example: no wipe between examples
    assert ordered(round_trip(store, "project", document, user)) == ordered(document)


@GENERATED
@given(data=st.data())
def test_generated_long_term_documents_round_trip(store: Services, data: st.DataObject) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    document = data.draw(long_term_documents(user))
    assert ordered(round_trip(store, "long-term", document, user)) == ordered(document)


@GENERATED
@given(document=session_documents())
def test_generated_session_documents_round_trip(store: Services, document: dict[str, Any]) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    assert ordered(round_trip(store, "session", document, user)) == ordered(document)


# --- refusals: nothing written ----------------------------------------------------------


@pytest.mark.parametrize(
    "kind, change, path",
    [
        ("project", lambda d: d["architecture"]["decisions"][0].update(date=20260715), "$.architecture.decisions[0].date"),
        ("project", lambda d: d["error_history"][0].pop("fix"), "$.error_history[0].fix"),
        ("long-term", lambda d: d["recurring_patterns"]["token_waste"].update(count="5"), "$.recurring_patterns.token_waste.count"),
        ("long-term", lambda d: d.update(user_id="someone-else"), "$.user_id"),
        ("session", lambda d: d["tasks"][0].update(decisions="Use JWT"), "$.tasks[0].decisions"),
        ("session", lambda d: d.update(started_at="soon"), "$.started_at"),
    ],
)
def test_a_malformed_document_is_refused_with_its_path_and_writes_nothing(
    store: Services, kind: str, change: Any, path: str
) -> None:
    import_document(store, "project", seed("project"), USER)  # something to stay unchanged
    before = counts(store)
    document = seed(kind)
    change(document)
    with pytest.raises(DocumentError) as caught:
        import_document(store, kind, document, USER)
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: ")
    assert counts(store) == before


def test_entries_that_would_be_one_memory_with_different_details_are_refused(store: Services) -> None:
    document = seed("project")
    twin = {**document["architecture"]["decisions"][0], "id": "adr-002"}
    document["architecture"]["decisions"].append(twin)
    with pytest.raises(DocumentError, match=r"^\$\.architecture\.decisions\[1\]: has the same text as \$\.architecture\.decisions\[0\]"):
        import_document(store, "project", document, USER)
    assert counts(store) == (0, 0)


def test_identical_entries_share_one_memory_and_still_round_trip(store: Services) -> None:
    document = seed("session")
    document["tasks"].append({"task_id": "task-002", "classification": "bug_fix",
                              "decisions": ["Use PostgreSQL", "Use PostgreSQL"], "errors": [], "patterns": []})
    assert ordered(round_trip(store, "session", document)) == ordered(document)
    shared = query(store, "MATCH (t:Task)-[:HAS_ENTRY]->(m:Memory {content: 'Use PostgreSQL'}) RETURN count(DISTINCT m) AS n, count(*) AS edges")
    assert shared == [{"n": 1, "edges": 3}]


def test_a_document_too_big_for_its_tier_is_refused_before_writing(store: Services) -> None:
    small = with_settings(store, project_capacity=100)
    with pytest.raises(CapacityExceeded, match="passes its 70% compression trigger") as refused:
        import_document(small, "project", seed("project"), USER)
    # The one setting to raise, named: the store keeps it for the server and the command alike.
    assert "raise the tier's capacity (`hippograph capacity project TOKENS`: the store keeps it" in str(refused.value)
    assert counts(store) == (0, 0)


def test_a_capacity_the_store_keeps_is_the_imports_and_the_next_writes(store: Services) -> None:
    """One capacity for every process: raised in the store for an import, it is the server's too, so its
    next write does not compress what was imported (each read HIPPOGRAPH_PROJECT_CAPACITY apart before)."""
    small = with_settings(store, project_capacity=100)  # what the environment says, here and in the server
    with store.driver.session(database=store.database) as session:
        session.execute_write(lambda tx: keep_capacity(tx, Tier.PROJECT, 1_000_000))
    document = seed("project")
    import_document(small, "project", document, USER)
    project = Scope(USER, document["project_id"], None)
    imported = query(store, "MATCH (m:Memory {tier: 'PROJECT'}) RETURN count(m) AS n")[0]["n"]
    written = remember(small, project, MemoryInput(content="The deploy runs on Fridays.", tier=Tier.PROJECT))
    assert written.compression is None
    assert query(store, "MATCH (m:Memory {tier: 'PROJECT'}) WHERE NOT m.archived RETURN count(m) AS n")[0]["n"] \
        == imported + 1
    with store.driver.session(database=store.database) as session:
        session.execute_write(lambda tx: keep_capacity(tx, Tier.PROJECT, None))
        assert capacity(session.execute_read(lambda tx: kept_capacities(small.settings, tx)), Tier.PROJECT) == 100


def test_ids_given_beside_the_document_must_match_it(store: Services) -> None:
    with pytest.raises(DocumentError, match=r"^\$\.project_id: is 'proj-xyz789' but the import is for project 'other'"):
        import_document(store, "project", seed("project"), USER, project_id="other")
    with pytest.raises(DocumentError, match=r"^\$\.session_id: "):
        import_document(store, "session", seed("session"), USER, session_id="sess-other")
    with pytest.raises(InvalidInput, match="belongs to a user"):
        import_document(store, "long-term", seed("long-term"), USER, project_id="proj-xyz789")
    assert counts(store) == (0, 0)


# --- secrets ---------------------------------------------------------------------------

SECRET = "hunter2-Xq9!vZ"
TOKEN = "ghp_" + "a1B2c3D4e5" * 4


def stored_text(services: Services) -> str:
    """Every property of every node and relationship (embeddings aside), as one text."""
    rows = query(services, "MATCH (n) RETURN [k IN keys(n) WHERE k <> 'embedding' | n[k]] AS values "
                           "UNION ALL MATCH ()-[r]->() RETURN [k IN keys(r) | r[k]] AS values")
    return "\n".join(str(value) for row in rows for value in row["values"])


def test_a_secret_is_redacted_never_stored_and_the_export_shows_it(store: Services) -> None:
    document = seed("project")
    document["conventions"]["db_password"] = SECRET
    document["error_history"][0]["fix"] = f"Rotate {TOKEN} and use parameterized queries"
    result = import_document(store, "project", document, USER)
    assert result.redacted == ["api_key", "password"]
    exported = export_document(store, "project", USER, project_id="proj-xyz789")
    assert exported != document
    assert exported["conventions"]["db_password"] == "[REDACTED:password]"
    assert exported["error_history"][0]["fix"] == "Rotate [REDACTED:api_key] and use parameterized queries"
    text = stored_text(store)
    assert SECRET not in text and TOKEN not in text
    assert "[REDACTED:password]" in text


def test_under_the_reject_policy_a_secret_refuses_the_document_at_its_path(store: Services) -> None:
    strict = with_settings(store, secret_policy="reject")
    document = seed("long-term")
    document["preferences"]["api_key"] = TOKEN
    with pytest.raises(DocumentError) as caught:
        import_document(strict, "long-term", document, USER)
    assert caught.value.path == "$.preferences.api_key"
    assert TOKEN not in str(caught.value)
    assert counts(store) == (0, 0)


# A bare password is a word to a scan of prose; as an id it is refused, as the GraphQL id fields refuse it.
PASSWORD = "hunter" + "2"


@pytest.mark.parametrize("policy", ["redact", "reject"])
@pytest.mark.parametrize(
    ("kind", "change", "path"),
    [
        ("session", lambda d: d["tasks"][0].update(task_id=PASSWORD), "$.tasks[0].task_id"),
        ("project", lambda d: d["architecture"]["decisions"][0].update(id=PASSWORD), "$.architecture.decisions[0].id"),
        ("long-term", lambda d: d["preferences"].update({PASSWORD: "dark mode"}), f"$.preferences.{PASSWORD}"),
    ],
)
def test_a_password_as_an_id_of_a_document_is_refused_at_its_path_and_writes_nothing(
    store: Services, policy: str, kind: str, change: Any, path: str
) -> None:
    document = seed(kind)
    change(document)
    with pytest.raises(DocumentError) as caught:
        import_document(with_settings(store, secret_policy=policy), kind, document, USER)
    assert caught.value.path == path
    assert caught.value.problem.startswith("the id looks like a secret (password)")
    assert counts(store) == (0, 0)
    assert PASSWORD not in stored_text(store)


# --- replacing an earlier import --------------------------------------------------------


def test_importing_again_duplicates_nothing(store: Services) -> None:
    for kind in FILES:
        import_document(store, kind, seed(kind), USER)
    once = counts(store, audit=False)
    for kind in FILES:
        again = import_document(store, kind, seed(kind), USER)
        assert again.created == [] and again.removed == []
    assert counts(store, audit=False) == once
    for kind in FILES:
        assert export_document(store, kind, USER, **ids_of(kind, seed(kind))) == seed(kind)


def test_importing_a_changed_document_replaces_the_earlier_import(store: Services) -> None:
    import_document(store, "project", seed("project"), USER)
    changed = seed("project")
    del changed["tech_stack"]["cache"]
    changed["tech_stack"] = dict(reversed(list(changed["tech_stack"].items())))
    changed["architecture"]["decisions"][0]["date"] = "2026-07-20"
    changed["error_history"] = []
    result = import_document(store, "project", changed, USER)
    assert len(result.removed) == 2  # the cache technology and the error
    assert ordered(export_document(store, "project", USER, project_id="proj-xyz789")) == ordered(changed)
    gone = query(store, "MATCH (e:Entity) WHERE e.name IN ['Redis', 'SQL injection vector in UserController', "
                        "'Use parameterized queries'] RETURN e.name AS name")
    assert gone == []
    assert query(store, "MATCH (:Project)-[:USES]->(t) RETURN count(t) AS n") == [{"n": 3}]


def test_a_session_imported_again_gets_the_documents_tasks_only(store: Services) -> None:
    import_document(store, "session", seed("session"), USER)
    changed = seed("session")
    changed["tasks"] = [{"task_id": "task-009", "classification": "refactor", "decisions": ["Use PostgreSQL"],
                         "errors": ["Migrations fail on CI"], "patterns": []}]
    result = import_document(store, "session", changed, USER)
    assert len(result.reused) == 1 and len(result.removed) == 1
    assert export_document(store, "session", USER, session_id="sess-abc123") == changed
    assert query(store, "MATCH (t:Task) RETURN collect(t.id) AS ids") == [{"ids": ["task-009"]}]


# --- a failure half-way leaves nothing behind ---------------------------------------------


def failing(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the database went away")


def test_a_failure_half_way_through_a_first_import_leaves_nothing(store: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents.project, "record_error", failing)  # after the tech stack and decisions are written
    with pytest.raises(RuntimeError, match="went away"):
        import_document(store, "project", seed("project"), USER)
    assert counts(store, audit=False) == (0, 0)


def test_a_failed_re_import_keeps_the_earlier_one_and_reopens_what_it_closed(
    store: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    import_document(store, "long-term", seed("long-term"), USER)
    before = counts(store, audit=False)
    changed = seed("long-term")
    changed["preferences"]["communication_style"] = "detailed"  # closes "concise" when written
    monkeypatch.setattr(documents.long_term, "record_pattern", failing)
    with pytest.raises(RuntimeError):
        import_document(store, "long-term", changed, USER)
    assert counts(store, audit=False) == before
    assert export_document(store, "long-term", USER) == seed("long-term")
    active = query(store, "MATCH (m:Memory)-[:RECORDS]->(p:UserPreference {name: 'communication_style: concise'}) "
                          "RETURN p.validUntil IS NULL AND m.validUntil IS NULL AS active")
    assert active == [{"active": True}]


def test_a_failed_session_import_removes_the_session_it_started(store: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents.engine, "_place", failing)  # the final transaction fails
    with pytest.raises(RuntimeError):
        import_document(store, "session", seed("session"), USER, project_id="proj-new")
    assert counts(store, audit=False) == (0, 0)


# --- export: whose, and logged ---------------------------------------------------------------


def test_another_user_cannot_export_the_document(store: Services) -> None:
    for kind in FILES:
        import_document(store, kind, seed(kind), USER)
    with pytest.raises(NotFound, match="no project document for project proj-xyz789"):
        export_document(store, "project", "mallory", project_id="proj-xyz789")
    with pytest.raises(NotFound):
        export_document(store, "session", "mallory", session_id="sess-abc123")
    with pytest.raises(NotFound):
        export_document(store, "long-term", "mallory")


def test_an_export_is_logged_as_a_read_of_its_memories(store: Services) -> None:
    import_document(store, "project", seed("project"), USER)
    export_document(store, "project", USER, project_id="proj-xyz789")
    assert store.audit.flush()
    memories = query(store, "MATCH (:Project)-[:HAS_ENTRY]->(m:Memory) RETURN collect(m.id) AS ids")[0]["ids"]
    events, _ = store.audit.query(user_id=USER, operations=["export"])
    assert len(events) == 1
    assert sorted(events[0].ids) == sorted(memories)
    imports, _ = store.audit.query(user_id=USER, operations=["import"])
    assert imports, "the import is logged too"


def test_an_archived_pattern_drops_out_of_the_export(store: Services) -> None:
    import_document(store, "long-term", seed("long-term"), USER)
    store.driver.execute_query("MATCH (m:Memory {content: 'forget_security'}) SET m.archived = true", database_=store.database)
    exported = export_document(store, "long-term", USER)
    assert list(exported["recurring_patterns"]) == ["token_waste"]


# --- the command line -------------------------------------------------------------------------


@pytest.fixture
def cli_services(store: Services, monkeypatch: pytest.MonkeyPatch) -> Services:
    # The CLI opens services from the environment; hand it the test's (same Neo4j, model already loaded).
    monkeypatch.setattr("hippograph.operations.services.open_services", lambda settings, verify=True: nullcontext(store))
    return store


@pytest.mark.parametrize("kind", list(FILES))
def test_cli_import_then_export(cli_services: Services, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    document = seed(kind)
    assert cli.main(["import", kind, str(FIXTURES / FILES[kind]), "--user", USER]) == 0
    captured = capsys.readouterr()
    assert f"imported {kind} document" in captured.out
    # Progress off a terminal: a plain line every LINE_SECONDS, and one at the end.
    lines = captured.err.splitlines()
    assert all(line.startswith(f"import {kind}: ") for line in lines), captured.err
    entries = re.fullmatch(r"import \S+: (\d+)/(\d+) memories \([\d.]+/s, 00:00 left\)", lines[-1])
    assert entries and entries[1] == entries[2] != "0", captured.err
    flags = {"project": ["--project", "proj-xyz789"], "session": ["--session", "sess-abc123"], "long-term": []}[kind]
    assert cli.main(["export", kind, "--user", USER, *flags]) == 0
    out = capsys.readouterr().out
    assert ordered(json.loads(out)) == ordered(document)


def test_cli_refuses_a_malformed_file_in_one_line(
    cli_services: Services, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    document = seed("project")
    document["architecture"]["decisions"][0]["date"] = None
    path = tmp_path / "project-memory.json"
    path.write_text(json.dumps(document))
    assert cli.main(["import", "project", str(path), "--user", USER]) == 1
    err = capsys.readouterr().err
    assert err == "hippograph: error: $.architecture.decisions[0].date: expected a string\n"
    path.write_text("{not json")
    assert cli.main(["import", "project", str(path), "--user", USER]) == 1
    assert capsys.readouterr().err.startswith("hippograph: error: $: not valid JSON")
    assert counts(cli_services) == (0, 0)


def test_cli_export_of_another_users_project_is_not_found(cli_services: Services, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["import", "project", str(FIXTURES / "project-memory.json"), "--user", USER]) == 0
    capsys.readouterr()
    assert cli.main(["export", "project", "--user", "mallory", "--project", "proj-xyz789"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "hippograph: error: no project document for project proj-xyz789\n"
    assert cli.main(["export", "project", "--user", USER]) == 1
    assert "needs a project id" in capsys.readouterr().err


def test_cli_reads_a_document_from_stdin(
    cli_services: Services, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO((FIXTURES / "session.json").read_text()))
    assert cli.main(["import", "session", "-", "--user", USER]) == 0
    assert export_document(cli_services, "session", USER, session_id="sess-abc123") == seed("session")


def test_the_fixtures_are_not_modified_by_an_import(store: Services) -> None:
    document = seed("project")
    snapshot = copy.deepcopy(document)
    import_document(store, "project", document, USER)
    assert document == snapshot
