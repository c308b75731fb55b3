"""Recall against the real Neo4j and the real model: profiles, scope, Lucene safety, relation depth.

Expectations are computed by hand from the fixtures: recency is exact (ages are
whole half-lives), keyword is 1 for a memory holding every keyword some memory holds (equal-length
texts tie), and for hanzo the memories' vectors are built to have chosen cosines with
the query's embedding.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from hippograph.graph.memories import create_memories
from hippograph.graph.recall import RelationBranch
from hippograph.memory.recall.analysis import Style
from hippograph.memory.recall.profiles import (
    PROFILES, Budget, Fusion, Gates, Priority, RecallProfile, Source, Weights,
)
from hippograph.memory.recall.query import Mode, recall
from hippograph.memory.writing import updates
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
GENEROUS = {p: Budget(50, 100_000) for p in Priority}


def write(
    services: Services,
    specs: Sequence[dict],
    vectors: dict[str, np.ndarray] | None = None,
) -> dict[str, str]:
    """Create memories from specs (key, content, tier, user, project, session, age, …); key → id."""
    texts = [spec["content"] for spec in specs]
    embedded = services.embedder.embed(texts)
    rows, ids = [], {}
    for spec, vector in zip(specs, embedded):
        ids[spec["key"]] = memory_id = str(uuid.uuid4())
        if vectors and spec["key"] in vectors:
            vector = vectors[spec["key"]]
        tier = spec.get("tier", "PROJECT")
        rows.append({
            "id": memory_id, "content": spec["content"], "summary": spec.get("summary"), "tier": tier,
            "kind": "note", "labels": ["Memory"], "userId": spec.get("user", "u1"),
            "projectId": spec.get("project", "p1" if tier != "LONG_TERM" else None),
            "sessionId": spec.get("session", "s1" if tier == "SESSION" else None),
            "createdAt": (NOW - timedelta(days=spec.get("age", 0))).isoformat(), "relevance": 1.0,
            "tokens": services.tokens.count(spec["content"]), "summaryTokens": None, "attributes": None,
            "contentHash": memory_id, "embedding": [float(x) for x in vector], "speaker": spec.get("speaker"),
        })
    with services.driver.session(database=services.database) as session:
        session.execute_write(create_memories, rows)
    return ids


def run(services: Services, query: str, **params) -> None:
    services.driver.execute_query(query, params, database_=services.database)


def with_cosine(query: np.ndarray, cosine: float, seed: int) -> np.ndarray:
    """A unit vector whose cosine with the unit vector ``query`` is exactly ``cosine``."""
    noise = np.random.default_rng(seed).standard_normal(query.shape[0])
    orthogonal = noise - noise.dot(query) * query
    orthogonal /= np.linalg.norm(orthogonal)
    return (cosine * query + np.sqrt(1 - cosine**2) * orthogonal).astype(np.float32)


def mention(services: Services, memory_id: str, entity: str, user: str = "u1") -> None:
    run(services, """
        MATCH (m:Memory {id: $memoryId})
        MERGE (e:Entity {userId: $user, scopeKey: '~user', type: 'Technology', normName: toLower($name)})
          ON CREATE SET e.id = randomUUID(), e.name = $name
        MERGE (m)-[:MENTIONS]->(e)
        """, memoryId=memory_id, name=entity, user=user)


# --- izanagi ------------------------------------------------------------------------------------------


@pytest.fixture
def izanagi_store(clean_db: Services) -> dict[str, str]:
    ids = write(clean_db, [
        {"key": "session", "content": "kafka consumer lag alert fired", "tier": "SESSION", "age": 0},
        {"key": "project", "content": "kafka consumer lag alert tuned", "tier": "PROJECT", "age": 30},
        {"key": "longterm", "content": "kafka consumer lag alert muted", "tier": "LONG_TERM", "age": 60},
        {"key": "related", "content": "the event bus cluster was resized", "tier": "PROJECT", "age": 0},
        {"key": "unrelated", "content": "lunch was pizza again", "tier": "SESSION", "age": 0},
        {"key": "stranger", "content": "kafka consumer lag alert fired", "tier": "SESSION", "age": 0, "user": "u2"},
    ])
    mention(clean_db, ids["related"], "Kafka")
    return ids


def test_izanagi_scores_modes_and_tier_order_by_hand(izanagi_store: dict[str, str], clean_db: Services) -> None:
    ids = izanagi_store
    wide = PROFILES["izanagi"].with_(budgets=GENEROUS)
    result = recall(clean_db, "kafka", Scope("u1"), "critical", wide, now=NOW, record_access=False)
    got = [(i.id, i.mode, round(i.score, 4)) for i in result.items]
    # session:  0.4·1 + 0.3·1      = 0.70 full      project: 0.4·1 + 0.3·0.5  = 0.55 full
    # related:  0.3·1 + 0.3·1      = 0.60 full      longterm: 0.4·1 + 0.3·0.25 = 0.475 summary
    # unrelated: 0.3·1 = 0.30, not above 0.3: skipped. Tiers in order: session, project, long term.
    assert got == [
        (ids["session"], Mode.FULL, 0.7),
        (ids["related"], Mode.FULL, 0.6),
        (ids["project"], Mode.FULL, 0.55),
        (ids["longterm"], Mode.SUMMARY, 0.475),
    ]
    related = result.items[1].components
    assert (related.vector, related.keyword, related.relation, related.recency) == (None, 0.0, 1.0, 1.0)
    assert result.items[2].components.recency == pytest.approx(0.5)


def test_izanagi_budget_by_priority(izanagi_store: dict[str, str], clean_db: Services) -> None:
    ids = izanagi_store
    critical = recall(clean_db, "kafka", Scope("u1"), "critical", "izanagi", now=NOW, record_access=False)
    assert [i.id for i in critical.items] == [ids["session"], ids["related"], ids["project"]]
    high = recall(clean_db, "kafka", Scope("u1"), "high", "izanagi", now=NOW, record_access=False)
    assert [i.id for i in high.items] == [ids["session"], ids["related"]]
    medium = recall(clean_db, "kafka", Scope("u1"), "medium", "izanagi", now=NOW, record_access=False)
    assert [i.id for i in medium.items] == [ids["session"]]
    low = recall(clean_db, "kafka", Scope("u1"), "low", "izanagi", now=NOW, record_access=False)
    assert low.items == [] and low.totals.tokens == 0
    for result, budget in ((critical, Budget(3, 300)), (high, Budget(2, 200)), (medium, Budget(1, 100))):
        assert result.totals.budget == budget
        assert result.totals.items == len(result.items) <= budget.items
        assert result.totals.tokens == sum(i.tokens for i in result.items) <= budget.tokens


# --- hanzo --------------------------------------------------------------------------------------------


def test_hanzo_per_tier_top_k_and_thresholds(clean_db: Services) -> None:
    query = "how do we roll back a failed deployment"
    q = clean_db.embedder.embed_query(query)
    cosines = {f"s{i:02d}": 0.40 + 0.01 * i for i in range(22)}  # session 0.40 … 0.61
    cosines |= {"s_low": 0.29, "p_in": 0.555, "p_out": 0.49, "l_in": 0.65, "l_out": 0.59}
    tiers = {k: "SESSION" if k.startswith("s") else "PROJECT" if k.startswith("p") else "LONG_TERM" for k in cosines}
    specs = [{"key": k, "content": f"memory {k}", "tier": tiers[k]} for k in cosines]
    ids = write(clean_db, specs, {k: with_cosine(q, c, i) for i, (k, c) in enumerate(cosines.items())})
    wide = PROFILES["hanzo"].with_(budgets=GENEROUS)
    result = recall(clean_db, query, Scope("u1", "p1", "s1"), "critical", wide, now=NOW, record_access=False)

    # Session: top 20 above 0.3 (0.61 … 0.42); project: above 0.5; long term: above 0.6. Ranked by cosine.
    expected = sorted(
        [k for k in cosines if k.startswith("s") and k != "s_low" and cosines[k] >= 0.415] + ["p_in", "l_in"],
        key=lambda k: -cosines[k],
    )
    assert [c.id for c in result.ranking] == [ids[k] for k in expected]
    for candidate, key in zip(result.ranking, expected):
        assert candidate.components.vector == pytest.approx(cosines[key], abs=1e-4)
    assert all(item.mode is Mode.FULL for item in result.items)

    critical = recall(clean_db, query, Scope("u1", "p1", "s1"), "critical", "hanzo", now=NOW, record_access=False)
    assert [i.id for i in critical.items] == [ids[k] for k in expected[:3]]


# --- hybrid -------------------------------------------------------------------------------------------


def test_hybrid_rows_carry_all_four_components_and_their_weighted_sum(izanagi_store: dict[str, str], clean_db: Services) -> None:
    hybrid = PROFILES["hybrid"]
    result = recall(clean_db, "kafka consumer lag", Scope("u1"), "critical", hybrid.with_(summary_above=-1.0, full_above=-1.0),
                    now=NOW, record_access=False)
    assert izanagi_store["session"] in {c.id for c in result.ranking[:3]}
    # A few keywords: weighed as the keywords style is, and the result says with which weights.
    w = hybrid.fusion(Style.KEYWORDS).weights
    assert {k: result.weights[k] for k in ("vector", "keyword", "recency", "relation")} == w.as_params()
    for c in result.ranking:
        parts = c.components
        assert all(0.0 <= v <= 1.0 for v in (parts.vector, parts.keyword, parts.recency, parts.relation))
        expected = w.vector * parts.vector + w.keyword * parts.keyword + w.recency * parts.recency + w.relation * parts.relation
        assert c.score == pytest.approx(expected, abs=1e-9)
    scores = [c.score for c in result.ranking]
    assert scores == sorted(scores, reverse=True)


def test_nothing_under_the_floor_is_returned(izanagi_store: dict[str, str], clean_db: Services) -> None:
    for profile in ("izanagi", "hybrid"):
        result = recall(clean_db, "kafka", Scope("u1"), "critical", profile, now=NOW, record_access=False)
        floor = PROFILES[profile].gates.summary_above
        assert all(c.score > floor for c in result.ranking)
        assert all(i.score > floor for i in result.items)


# --- Lucene and Cypher in the query ------------------------------------------------------------------

HOSTILE = [
    '+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /',
    "' OR 1=1 //",
    "MATCH (n) DETACH DELETE n",
    "alpha OR *:*",
    "content:* OR userId:u2",
    "alpha\" OR \"",
    "*",
    "\\",
    "}) RETURN 1 //",
]

KEYWORD_ONLY = RecallProfile(
    name="keywords", weights=Weights(keyword=1.0), sources=frozenset({Source.KEYWORD}),
    relation=RelationBranch(anchor_k=0), gates=Gates(full_above=-1.0, summary_above=-1.0, budgets=GENEROUS),
)


@pytest.mark.parametrize("query", HOSTILE)
def test_query_syntax_neither_errors_nor_widens_the_search(clean_db: Services, query: str) -> None:
    ids = write(clean_db, [
        {"key": "alpha", "content": "alpha release notes"},
        {"key": "other", "content": "completely different text"},
        {"key": "match", "content": "the match was cancelled, rain"},
        {"key": "stranger", "content": "alpha release notes", "user": "u2"},
    ])
    stored = clean_db.driver.execute_query("MATCH (m:Memory) RETURN count(m) AS n", database_=clean_db.database).records[0]["n"]
    for profile in (KEYWORD_ONLY, "izanagi", "hybrid", "hanzo"):
        result = recall(clean_db, query, Scope("u1"), "critical", profile, now=NOW, record_access=False)
        assert ids["stranger"] not in {c.id for c in result.ranking}
    keyword_hits = {c.id for c in recall(clean_db, query, Scope("u1"), "critical", KEYWORD_ONLY, now=NOW, record_access=False).ranking}
    # Only memories holding one of the query's literal words can be keyword hits.
    allowed = set()
    lowered = query.lower()
    if "alpha" in lowered:
        allowed.add(ids["alpha"])
    if "match" in lowered:
        allowed.add(ids["match"])
    assert keyword_hits <= allowed
    after = clean_db.driver.execute_query("MATCH (m:Memory) RETURN count(m) AS n", database_=clean_db.database).records[0]["n"]
    assert after == stored


# --- scope --------------------------------------------------------------------------------------------


@pytest.fixture
def scoped_store(clean_db: Services) -> dict[str, str]:
    text = "the deploy pipeline uses blue green releases"
    return write(clean_db, [
        {"key": "lt", "content": text, "tier": "LONG_TERM"},
        {"key": "p1", "content": text, "tier": "PROJECT", "project": "p1"},
        {"key": "p2", "content": text, "tier": "PROJECT", "project": "p2"},
        {"key": "s1", "content": text, "tier": "SESSION", "project": "p1", "session": "s1"},
        {"key": "s1b", "content": text, "tier": "SESSION", "project": "p1", "session": "s1b"},
        {"key": "s2", "content": text, "tier": "SESSION", "project": "p2", "session": "s2"},
        {"key": "archived", "content": text, "tier": "PROJECT", "project": "p1"},
        {"key": "closed", "content": text, "tier": "PROJECT", "project": "p1"},
        {"key": "u2", "content": text, "tier": "LONG_TERM", "user": "u2"},
        {"key": "u2p", "content": text, "tier": "PROJECT", "user": "u2", "project": "p1"},
    ])


def everything(services: Services, scope: Scope, query: str = "deploy pipeline releases", **kwargs) -> set[str]:
    found = set()
    for profile in ("hybrid", "izanagi", "hanzo"):
        wide = PROFILES[profile].with_(budgets=GENEROUS)
        found |= {c.id for c in recall(services, query, scope, "critical", wide, now=NOW, record_access=False, **kwargs).ranking}
    return found


def test_scope_decides_what_recall_sees(scoped_store: dict[str, str], clean_db: Services) -> None:
    ids = scoped_store
    run(clean_db, "MATCH (m:Memory {id: $id}) SET m.archived = true", id=ids["archived"])
    run(clean_db, "MATCH (m:Memory {id: $id}) SET m.validUntil = datetime()", id=ids["closed"])
    named = {v: k for k, v in ids.items()}

    def keys(found: set[str]) -> set[str]:
        return {named[i] for i in found}

    assert keys(everything(clean_db, Scope("u1"))) == {"lt", "p1", "p2", "s1", "s1b", "s2"}
    assert keys(everything(clean_db, Scope("u1", "p1"))) == {"lt", "p1", "s1", "s1b"}
    assert keys(everything(clean_db, Scope("u1", "p1", "s1"))) == {"lt", "p1", "s1"}
    assert keys(everything(clean_db, Scope("u1", None, "s1"))) == {"lt", "s1"}
    assert keys(everything(clean_db, Scope("u1", "p1"), tiers=[Tier.PROJECT])) == {"p1"}
    assert keys(everything(clean_db, Scope("u2"))) == {"u2", "u2p"}


@pytest.mark.parametrize("query", ["deploy pipeline releases", "u1", "the deploy pipeline uses blue green releases", *HOSTILE])
def test_another_users_memories_never_come_back(scoped_store: dict[str, str], clean_db: Services, query: str) -> None:
    found = everything(clean_db, Scope("u1"), query)
    assert not found & {scoped_store["u2"], scoped_store["u2p"]}


# --- relation depth ------------------------------------------------------------------------------------


def test_relation_depth_respects_the_configured_bound(clean_db: Services) -> None:
    ids = write(clean_db, [{"key": "far", "content": "the nightly batch finished late"}])
    run(clean_db, """
        MATCH (m:Memory {id: $id})
        CREATE (m)-[:MENTIONS]->(a:Entity {id: randomUUID(), userId: 'u1', name: 'Nightly Batch', normName: 'nightly batch', type: 'Pattern', scopeKey: '~user'})
        CREATE (a)-[:RELATED_TO {userId: 'u1'}]->(b:Entity {id: randomUUID(), userId: 'u1', name: 'Scheduler', normName: 'scheduler', type: 'Technology', scopeKey: '~user'})
        CREATE (b)-[:CAUSED {userId: 'u1'}]->(c:Entity {id: randomUUID(), userId: 'u1', name: 'Zanzibar', normName: 'zanzibar', type: 'Error', scopeKey: '~user'})
        """, id=ids["far"])

    def relation(max_hops: int) -> float:
        profile = PROFILES["izanagi"].with_(max_hops=max_hops, summary_above=-1.0, full_above=-1.0, budgets=GENEROUS)
        ranked = recall(clean_db, "zanzibar", Scope("u1"), "critical", profile, now=NOW, record_access=False).ranking
        return next((c.components.relation for c in ranked if c.id == ids["far"]), 0.0)

    # memory -MENTIONS-> Nightly Batch -RELATED_TO-> Scheduler -CAUSED-> Zanzibar: three hops.
    assert relation(1) == 0.0
    assert relation(2) == 0.0
    assert relation(3) == pytest.approx(1 / 3)
    assert relation(4) == pytest.approx(1 - 2 / 4)


def test_relation_depth_ignores_other_users_entities(clean_db: Services) -> None:
    ids = write(clean_db, [{"key": "mine", "content": "we tuned the garbage collector"}])
    mention(clean_db, ids["mine"], "Zanzibar", user="u2")  # a foreign entity cannot anchor u1's recall
    profile = PROFILES["izanagi"].with_(summary_above=-1.0, full_above=-1.0)
    ranked = recall(clean_db, "zanzibar", Scope("u1"), "critical", profile, now=NOW, record_access=False).ranking
    assert all(c.components.relation == 0.0 for c in ranked)


def test_neighbouring_memories_in_a_session_timeline(clean_db: Services) -> None:
    question = "Ana: which database did you pick for the ledger service?"
    answer = "Bo: we went with the one that has serializable transactions"
    ids = write(clean_db, [
        {"key": "before", "content": "Bo: morning, coffee first", "tier": "SESSION", "age": 0.003},
        {"key": "question", "content": question, "tier": "SESSION", "age": 0.002},
        {"key": "answer", "content": answer, "tier": "SESSION", "age": 0.001},
        {"key": "elsewhere", "content": "Bo: we went with the blue theme", "tier": "SESSION", "session": "s9", "age": 0.001},
    ])
    profile = PROFILES["hybrid"].with_(summary_above=-1.0, full_above=-1.0, budgets=GENEROUS)
    ranked = recall(clean_db, "which database for the ledger service", Scope("u1"), "critical", profile, now=NOW,
                    record_access=False).ranking
    by_id = {c.id: c for c in ranked}
    assert by_id[ids["question"]].sources and "keyword" in by_id[ids["question"]].sources
    # The answer follows the strongest match: full neighbour share; the turn before it: preceding share.
    assert by_id[ids["answer"]].neighbour == pytest.approx(1.0)
    assert by_id[ids["before"]].neighbour == pytest.approx(profile.neighbours.preceding_share)
    assert ids["elsewhere"] not in by_id or by_id[ids["elsewhere"]].neighbour == 0.0


def test_a_statement_s_strong_match_carries_the_memory_after_it(clean_db: Services) -> None:
    # A cue and the turn after it, which shares nothing with the trigger said weeks later; a stray
    # memory elsewhere. The statement's vector finds the cue; the cue carries the turn after it.
    cue = "Ana: after learning to say no to extra work, I've felt a lot less stressed"
    ids = write(clean_db, [
        {"key": "cue", "content": cue, "tier": "SESSION", "age": 30.002},
        {"key": "after", "content": "Ana: it took me years, and my sister kept nagging me about it", "tier": "SESSION",
         "age": 30.001},
        {"key": "stray", "content": "Bo: the ledger service moved to a new region", "tier": "SESSION", "session": "s9",
         "age": 1},
    ])
    trigger = "I ended up volunteering for that project, and now I'm totally overwhelmed."
    profile = PROFILES["hybrid"].with_(summary_above=-1.0, full_above=-1.0, budgets=GENEROUS)
    result = recall(clean_db, trigger, Scope("u1"), "critical", profile, now=NOW, record_access=False)
    carry = profile.fusion(Style.STATEMENT).carry
    assert carry > 0 and result.weights["carry"] == carry
    by_id = {c.id: c for c in result.ranking}
    cue_row, after = by_id[ids["cue"]], by_id[ids["after"]]
    # The cue is the strongest match (its neighbour share is what it lends): the turn after it scores
    # carry times the cue's cosine, above its own, and stays under the cue.
    assert after.components.carried == pytest.approx(carry * cue_row.cosine, abs=1e-6)
    assert after.score == pytest.approx(after.components.carried) and after.components.vector < after.score
    assert [c.id for c in result.ranking][:2] == [ids["cue"], ids["after"]]
    # Asked as a question, nothing is carried: the score is the weighted sum.
    asked = recall(clean_db, "Why does Ana feel less stressed?", Scope("u1"), "critical", profile, now=NOW,
                   record_access=False)
    assert asked.weights["carry"] == 0 and all(c.components.carried == 0 for c in asked.ranking)


def test_a_session_memory_is_found_by_what_was_said_right_before_it(clean_db: Services) -> None:
    answer = "Bo: wonderful, we ate pastries every morning"
    ids = write(clean_db, [
        {"key": "question", "content": "Ana: how was the trip to Lisbon?", "tier": "SESSION", "age": 0.002},
        {"key": "answer", "content": answer, "tier": "SESSION", "age": 0.001},
        {"key": "elsewhere", "content": answer, "tier": "SESSION", "session": "s9", "age": 0.001},
    ])
    own_text = RecallProfile(name="keyword", weights=Weights(keyword=1.0), sources=frozenset({Source.KEYWORD}),
                             gates=Gates(full_above=-1.0, summary_above=-1.0, budgets=GENEROUS))
    with_preceding = own_text.with_(preceding=True)

    def found(query: str, profile: RecallProfile = with_preceding) -> dict[str, float]:
        ranked = recall(clean_db, query, Scope("u1"), "critical", profile, now=NOW, record_access=False).ranking
        return {key: c.components.keyword for key, memory_id in ids.items() for c in ranked if c.id == memory_id}

    # The answer holds no word of the query; the turn before it does. The same words in another session do not.
    assert found("the Lisbon trip") == {"question": pytest.approx(1.0), "answer": pytest.approx(1.0)}
    assert found("the Lisbon trip", own_text) == {"question": pytest.approx(1.0)}
    assert PROFILES["hybrid"].keyword.preceding
    # Edited, the question's new words reach the answer, and its old ones leave it.
    updates.update_memory(clean_db, "u1", ids["question"], content="Ana: how was the trip to Porto?")
    assert found("Lisbon") == {}
    assert set(found("Porto")) == {"question", "answer"}


def test_keyword_is_the_share_of_the_found_keywords_a_memory_holds(clean_db: Services) -> None:
    """A memory's keyword is its BM25 over the idfs of the query's keywords that some memory holds: the
    best match holding one of three found keywords scores a third, not 1; a keyword nothing holds counts for
    nothing."""
    ids = write(clean_db, [
        {"key": "one", "content": "walnut orchard"},
        {"key": "two", "content": "quince marmalade"},
        {"key": "three", "content": "persimmon harvest"},
        {"key": "none", "content": "unrelated filler text"},
    ])
    profile = RecallProfile(name="keyword", weights=Weights(keyword=1.0), sources=frozenset({Source.KEYWORD}),
                            relation=RelationBranch(anchor_k=0),
                            gates=Gates(full_above=-1.0, summary_above=-1.0, budgets=GENEROUS))

    def found(query: str) -> dict[str, float]:
        ranked = recall(clean_db, query, Scope("u1"), "critical", profile, now=NOW, record_access=False).ranking
        return {key: c.components.keyword for key, memory_id in ids.items() for c in ranked if c.id == memory_id}

    # Each keyword is held by one memory of four: equal idfs.
    assert found("walnut quince persimmon zeppelin") == {
        "one": pytest.approx(1 / 3), "two": pytest.approx(1 / 3), "three": pytest.approx(1 / 3)}
    assert found("walnut orchard quince") == {"one": pytest.approx(2 / 3), "two": pytest.approx(1 / 3)}
    assert found("walnut zeppelin") == {"one": pytest.approx(1.0)}


def test_a_memory_said_by_someone_the_query_names_is_nearest(clean_db: Services) -> None:
    ids = write(clean_db, [
        {"key": "caroline", "content": "Caroline: I researched adoption agencies", "speaker": "caroline", "tier": "SESSION"},
        {"key": "melanie", "content": "Melanie: I researched pottery classes", "speaker": "melanie", "tier": "SESSION"},
        {"key": "mention", "content": "we talked about Kafka", "tier": "SESSION"},
    ])
    mention(clean_db, ids["mention"], "Kafka")
    profile = PROFILES["hybrid"].with_(summary_above=-1.0, full_above=-1.0, budgets=GENEROUS, seed_k=0)
    ranked = recall(clean_db, "What did Caroline research about Kafka?", Scope("u1"), "critical", profile, now=NOW,
                    record_access=False).ranking
    by_id = {c.id: c for c in ranked}
    assert by_id[ids["caroline"]].entity_relation == pytest.approx(1.0)
    assert by_id[ids["melanie"]].entity_relation == pytest.approx(0.0)
    # One hop to an entity the query names: mention_share of a full score.
    assert by_id[ids["mention"]].entity_relation == pytest.approx(profile.relation.mention_share)
    assert by_id[ids["caroline"]].score > by_id[ids["melanie"]].score

    plain = profile.with_(speaker_match=False, mention_share=1.0)
    ranked = recall(clean_db, "What did Caroline research about Kafka?", Scope("u1"), "critical", plain, now=NOW,
                    record_access=False).ranking
    by_id = {c.id: c for c in ranked}
    assert by_id[ids["caroline"]].entity_relation == 0.0
    assert by_id[ids["mention"]].entity_relation == pytest.approx(1.0)


@pytest.mark.parametrize("owner, other", [("team", "team-2"), ("the", "the-other"), ("x", "x-x")])
def test_keyword_search_keeps_to_the_caller_whatever_the_ids(clean_db: Services, owner: str, other: str) -> None:
    """The owner clause is a phrase of the id's tokens: an id containing the caller's must still not leak,
    and an id the analyser reduces to nothing must still find its own memories."""
    ids = write(clean_db, [
        {"key": "mine", "content": "the ledger uses serializable transactions", "user": owner},
        *({"key": f"theirs{i}", "content": "the ledger uses serializable transactions daily", "user": other} for i in range(5)),
    ])
    profile = RecallProfile(
        name="keyword-only", weights=Weights(keyword=1.0), sources=frozenset({Source.KEYWORD}),
        relation=RelationBranch(anchor_k=0), gates=Gates(full_above=-1.0, summary_above=-1.0, budgets=GENEROUS),
    )
    ranked = recall(clean_db, "ledger serializable", Scope(owner), "critical", profile, now=NOW, record_access=False).ranking
    assert [c.id for c in ranked] == [ids["mine"]]
    assert ranked[0].components.keyword == pytest.approx(1.0)


def test_the_query_vector_also_asks_without_the_names_of_the_callers_speakers(clean_db: Services) -> None:
    """"When did Caroline…" also asked as "When did …": only names that speak in the caller's own
    memories are taken out (Melanie speaks in another user's), and a query that is only a name stays."""
    ids = write(clean_db, [
        {"key": "hers", "content": "Caroline: I went hiking with my sister", "speaker": "caroline", "tier": "SESSION"},
        {"key": "to her", "content": "Melanie: Caroline, how was your week?", "speaker": "melanie", "tier": "SESSION",
         "user": "u2"},
        {"key": "other", "content": "Kim: the hiking boots arrived", "speaker": "kim", "tier": "SESSION"},
    ])
    vectors = {r["id"]: np.array(r["embedding"]) for r in clean_db.driver.execute_query(
        "MATCH (m:Memory) RETURN m.id AS id, m.embedding AS embedding", database_=clean_db.database).records}
    profile = PROFILES["hybrid"].with_(summary_above=-1.0, full_above=-1.0, budgets=GENEROUS)
    embed = clean_db.embedder.embed_query

    def cosines(query: str, recall_profile: RecallProfile) -> dict[str, float]:
        ranked = recall(clean_db, query, Scope("u1"), "critical", recall_profile, now=NOW, record_access=False).ranking
        return {c.id: c.cosine for c in ranked if c.cosine is not None}

    def expected(vector: np.ndarray) -> dict[str, float]:
        unit = vector / np.linalg.norm(vector)
        return {ids[key]: float(vectors[ids[key]] @ unit / np.linalg.norm(vectors[ids[key]])) for key in ("hers", "other")}

    query = "When did Caroline and Melanie go hiking?"
    blended = expected(embed(query) / np.linalg.norm(embed(query))
                       + embed("When did and Melanie go hiking?") / np.linalg.norm(embed("When did and Melanie go hiking?")))
    assert cosines(query, profile) == pytest.approx(blended, abs=1e-4)
    assert cosines(query, profile.with_(unnamed_query=False)) == pytest.approx(expected(embed(query)), abs=1e-4)
    assert cosines("Caroline?", profile) == pytest.approx(expected(embed("Caroline?")), abs=1e-4)


def test_a_query_that_asks_when_boosts_the_memories_that_say_when(clean_db: Services) -> None:
    """Asked when, a memory with a time expression scores (1 + time_boost) times its weighted sum and
    reports time 1; asked anything else, or by a memory without one, time is 0 and nothing is boosted."""
    ids = write(clean_db, [
        {"key": "dated", "content": "The office went to Lisbon last May"},
        {"key": "undated", "content": "We moved the office to Lisbon"},
    ])
    boost = 0.5
    profile = PROFILES["hybrid"].with_(summary_above=-1.0, full_above=-1.0, budgets=GENEROUS, time_boost=boost)
    weights = profile.weights

    def ranked(query: str, recall_profile: RecallProfile) -> dict[str, tuple[float, float, float]]:
        """key → (score, weighted sum of the four signals, time)."""
        result = recall(clean_db, query, Scope("u1", "p1"), "critical", recall_profile, now=NOW, record_access=False)
        keys = {memory_id: key for key, memory_id in ids.items()}
        return {keys[c.id]: (c.score, weights.vector * (c.components.vector or 0.0) + weights.keyword * c.components.keyword
                             + weights.recency * c.components.recency + weights.relation * c.components.relation,
                             c.components.time) for c in result.ranking}

    asked = ranked("When did we move the office to Lisbon?", profile)
    assert asked["dated"][2] == 1.0 and asked["undated"][2] == 0.0
    assert asked["dated"][0] == pytest.approx(asked["dated"][1] * (1 + boost))
    assert asked["undated"][0] == pytest.approx(asked["undated"][1])
    # Unboosted, the time component is still measured; only the score leaves it out.
    plain = ranked("When did we move the office to Lisbon?", profile.with_(time_boost=0.0))
    assert plain["dated"][2] == 1.0 and plain["dated"][0] == pytest.approx(plain["dated"][1])
    assert asked["dated"][0] > plain["dated"][0]
    # The boost may lift a memory over one whose weighted sum is higher: asked for one row only, the
    # statement still matches the pattern for every memory a boost could bring into it.
    assert asked["undated"][1] > asked["dated"][1] and asked["dated"][0] > asked["undated"][0]
    assert set(ranked("When did we move the office to Lisbon?", profile.with_(candidates=1))) == {"dated"}
    # A question that does not ask when boosts nothing.
    where = ranked("Where did we move the office?", profile)
    assert {key: values[2] for key, values in where.items()} == {"dated": 0.0, "undated": 0.0}
    assert all(values[0] == pytest.approx(values[1]) for values in where.values())


def test_a_query_that_names_a_period_boosts_the_memories_written_in_it(clean_db: Services) -> None:
    """Naming a day, month or year, a memory written then scores (1 + period_boost) times its weighted sum
    and reports period 1; one written at another time, or asked without a period, is not boosted."""
    ids = write(clean_db, [
        {"key": "then", "content": "Lisbon it is", "age": 19},  # 2025-02-10 12:00
        {"key": "before", "content": "We chose Lisbon for the new office", "age": 50},  # 2025-01-10
    ])
    profile = PROFILES["hybrid"].with_(summary_above=-1.0, full_above=-1.0, budgets=GENEROUS, time_boost=0.0,
                                       period_boost=5.0)
    weights = profile.weights

    def ranked(query: str, recall_profile: RecallProfile = profile) -> dict[str, tuple[float, float, float]]:
        """key → (score, weighted sum of the four signals, period)."""
        result = recall(clean_db, query, Scope("u1", "p1"), "critical", recall_profile, now=NOW, record_access=False)
        keys = {memory_id: key for key, memory_id in ids.items()}
        return {keys[c.id]: (c.score, weights.vector * (c.components.vector or 0.0) + weights.keyword * c.components.keyword
                             + weights.recency * c.components.recency + weights.relation * c.components.relation,
                             c.components.period) for c in result.ranking}

    for query in ("Which city did we choose for the office on February 10, 2025?",
                  "Which city did we choose for the office on 11 Feb 2025?",  # the day after still reaches it
                  "Which city did we choose for the office in February 2025?",
                  "Which city did we choose for the office in February?"):  # asked in March 2025
        asked = ranked(query)
        assert asked["then"][2] == 1.0 and asked["before"][2] == 0.0, query
        assert asked["then"][0] == pytest.approx(asked["then"][1] * 6.0)
        assert asked["before"][0] == pytest.approx(asked["before"][1])
        # The boost lifts a memory over one whose weighted sum is higher: asked for one row only, the
        # statement still reads the period of every memory a boost could bring into it.
        assert asked["before"][1] > asked["then"][1] and asked["then"][0] > asked["before"][0]
        assert set(ranked(query, profile.with_(candidates=1))) == {"then"}
    # A year holds both; another day, or no period at all, holds neither.
    assert {key: v[2] for key, v in ranked("What did we choose for the office in 2025?").items()} == {"then": 1.0, "before": 1.0}
    for query in ("Which city did we choose for the office on February 14, 2025?",
                  "Which city did we choose for the office?"):
        assert {key: v[2] for key, v in ranked(query).items()} == {"then": 0.0, "before": 0.0}
        assert all(v[0] == pytest.approx(v[1]) for v in ranked(query).values())
    # Unboosted, the period is still measured; only the score leaves it out.
    plain = ranked("Which city did we choose for the office in February 2025?", profile.with_(period_boost=0.0))
    assert plain["then"][2] == 1.0 and plain["then"][0] == pytest.approx(plain["then"][1])


@pytest.mark.parametrize("text", [
    "I went to a support group yesterday", "Back in 2019 we lived in Oslo", "See you on Friday!",
    "it was three weeks ago", "Caroline: we met LAST SUMMER", "the deadline\nis next week",
    "I love the mayor", "we met at the Sundaymarket", "nothing of the sort", "",
])
def test_neo4j_reads_a_memory_that_says_when_as_python_does(clean_db: Services, text: str) -> None:
    """SAYS_WHEN is matched by Cypher's =~ (Java's regex); its examples read the same in Python."""
    import re

    from hippograph.memory.recall.when import SAYS_WHEN

    record = clean_db.driver.execute_query("RETURN $text =~ $pattern AS says", text=text, pattern=SAYS_WHEN,
                                           database_=clean_db.database).records[0]
    assert record["says"] is (re.fullmatch(SAYS_WHEN, text) is not None)


# --- query styles ----------------------------------------------------------------------------

def test_each_style_of_query_is_weighed_by_its_own_fusion(clean_db: Services) -> None:
    """A statement weighed by vector alone scores its cosine and searches no keyword or entity; a question
    of the same words is weighed by the profile's own weights, keywords and all."""
    ids = write(clean_db, [
        {"key": "said", "content": "We moved the database migration to Friday"},
        {"key": "worded", "content": "migration Friday database notes"},
    ])
    mention(clean_db, ids["worded"], "Friday")
    statement_weights = Weights(vector=1.0)
    profile = PROFILES["hybrid"].with_(summary_above=-1.0, full_above=-1.0, budgets=GENEROUS,
                                       styles={Style.STATEMENT: Fusion(statement_weights)})

    weighed: dict[str, dict[str, float]] = {}

    def ranked(query: str) -> dict[str, object]:
        result = recall(clean_db, query, Scope("u1", "p1"), "critical", profile, now=NOW, record_access=False)
        weighed[query] = result.weights
        keys = {memory_id: key for key, memory_id in ids.items()}
        return {keys[c.id]: c for c in result.ranking}

    told = ranked("I think we moved the database migration to Friday")
    assert set(told) == {"said", "worded"}
    for c in told.values():
        assert c.score == pytest.approx(c.components.vector)
        assert c.components.keyword == 0.0 and "keyword" not in c.sources and c.entity_relation == 0.0
    asked = ranked("Did we move the database migration to Friday?")
    question = profile.fusion(Style.QUESTION)
    assert question.weights == profile.weights
    assert asked["worded"].components.keyword > 0.0 and asked["worded"].entity_relation > 0.0
    for c in asked.values():
        parts = c.components
        assert c.score == pytest.approx(question.weights.vector * parts.vector + question.weights.keyword * parts.keyword
                                        + question.weights.relation * parts.relation, abs=1e-9)
    # The result's weights are the ones that weighed the query: its score splits into them.
    assert weighed["I think we moved the database migration to Friday"] == {
        **statement_weights.as_params(), "time_boost": 0.0, "period_boost": 0.0, "carry": 0.0}
    assert weighed["Did we move the database migration to Friday?"] == {
        **question.weights.as_params(), "time_boost": question.time.time_boost, "period_boost": question.time.period_boost,
        "carry": question.carry}
