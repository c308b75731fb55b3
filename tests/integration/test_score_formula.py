"""The score formula has one source, the recall statement (``hippograph.graph.recall.SCORING``); the
copies that re-score its components are held to it here, on rows the statement ranked:

* the fit's offline re-ranking (``hippograph_bench.fit.Table.scores``), whose fitted numbers assume it
  ranks as recall does;
* the Python client's ``RecallWeights.score``.

(The explorer's shares, which add up to each score, are checked in tests/e2e/test_browser_explore.py, and
the client against a served answer in tests/e2e/test_client.py.)
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from hippograph.client.types import RecallWeights, ScoreComponents
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.analysis import Style, analyse
from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.recall.query import recall
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import remember
from hippograph_bench.fit import SIGNALS, Point, Rows, Table

pytestmark = pytest.mark.neo4j

NOW = datetime(2023, 6, 1, tzinfo=timezone.utc)
SCOPE = Scope("u-formula", "p-formula", "s-formula")
TURNS = [
    "Ana: we moved the billing database to PostgreSQL 16 on 12 March 2023.",
    "Ben: that migration took the whole weekend and the on-call rota.",
    "Ana: the search cluster was rebuilt in April after the disk filled up.",
    "Ben: I keep thinking about the pottery class Ana started last year.",
    "Ana: she glazed her first bowl in March; it cracked in the kiln.",
    "Ben: the nightly ETL job now runs in Frankfurt.",
]
# One query of each style hybrid weighs its own way, and questions: when, in a named period, plain.
QUERIES = {
    "When did Ana move the billing database to PostgreSQL?": Style.QUESTION,
    "What happened to the search cluster in April 2023?": Style.QUESTION,
    "billing database postgresql": Style.KEYWORDS,
    "I am still thinking about that pottery class": Style.STATEMENT,
}


@pytest.fixture(scope="module")
def ranked(services: Services) -> list[tuple[dict, list]]:
    services.driver.execute_query("MATCH (m:Memory {userId: $u}) DETACH DELETE m", u=SCOPE.user_id,
                                  database_=services.database)
    for i, text in enumerate(TURNS):
        at = datetime(2023, 3, 12, tzinfo=timezone.utc) + timedelta(days=12 * i)
        remember(services, SCOPE, MemoryInput(text, Tier.SESSION, created_at=at), now=at)
    wide = PROFILES["hybrid"].with_(summary_above=-1.0, full_above=-1.0)
    found = []
    for query, style in QUERIES.items():
        assert analyse(query, NOW).style is style, query
        result = recall(services, query, SCOPE, "critical", wide, now=NOW, record_access=False)
        assert result.ranking, query
        found.append((result.weights, result.ranking))
    return found


def test_what_each_query_exercises_is_there(ranked: list[tuple[dict, list]]) -> None:
    # Otherwise the checks below would hold only for the plain weighted sum.
    parts = [c.components for _, ranking in ranked for c in ranking]
    assert any(p.time > 0 for p in parts) and any(p.period > 0 for p in parts)
    assert any(w["carry"] > 0 for w, _ in ranked) and any(p.carried > 0 for p in parts)


def test_the_fit_re_ranks_by_the_statement_s_score(ranked: list[tuple[dict, list]]) -> None:
    for weights, ranking in ranked:
        features = np.array([[c.components.vector or 0.0, c.components.keyword, c.components.relation,
                              c.components.time, c.components.period] for c in ranking])
        parts = np.array([[c.entity_relation, c.neighbour, c.strength] for c in ranking])
        table = Table([Rows("fold", set(), [c.id for c in ranking], features, parts=parts)])
        point = Point(tuple(weights[signal] for signal in SIGNALS), weights["time_boost"], weights["period_boost"],
                      weights["carry"])
        assert weights["recency"] == 0.0  # the fit weighs no recency: hybrid weighs none
        scores = table.scores(point)[0]
        assert scores == pytest.approx([c.score for c in ranking], abs=1e-9)


def test_the_python_client_scores_as_the_statement(ranked: list[tuple[dict, list]]) -> None:
    for weights, ranking in ranked:
        client = RecallWeights(**{name: weights[name] for name in (
            "vector", "keyword", "recency", "relation", "time_boost", "period_boost", "carry")})
        for c in ranking:
            parts = c.components
            said = ScoreComponents(parts.vector, parts.keyword, parts.recency, parts.relation, parts.time,
                                   parts.period, parts.carried)
            assert client.score(said) == pytest.approx(c.score, abs=1e-9)
