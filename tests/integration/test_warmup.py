"""The warm-up a server runs before it says ready, against the real Neo4j and model: every recall
statement text the profiles, scopes, query styles and asOf make is run once, and nothing stays."""

from __future__ import annotations

import pytest

from hippograph.memory import warmup
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j


def test_the_warm_up_plans_each_statement_of_every_style_and_as_of_and_leaves_nothing(clean_db: Services) -> None:
    warmth = warmup.warm_up(clean_db)
    # A statement weighs keywords and relation otherwise than a question does, and asOf is a parameter
    # of its own type: each such statement text and parameter types is planned once, so more than one
    # statement per profile and scope.
    assert warmth.statements > len(warmup.PROFILES) * len(warmup.SCOPES)
    assert warmth.encoded == warmup.GROUP and warmth.rehearsed > 0
    left, _, _ = clean_db.driver.execute_query("MATCH (n) WHERE n.userId = $id OR n.id = $id RETURN count(n) AS n",
                                               id=warmup.USER, database_=clean_db.database)
    assert left[0]["n"] == 0
