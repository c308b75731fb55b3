"""The scope rules' Cypher, run: for every tier, every scope a caller can name and memories placed
inside and outside it, Neo4j answers what the Python rule (``hippograph.graph.scope``) says."""

from __future__ import annotations

import itertools

import pytest

from hippograph.graph import scope
from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

# Where a memory may sit: its project and session, each the caller's own or another.
PLACES = [{"projectId": p, "sessionId": s} for p, s in itertools.product(("p", "q"), ("s", "t", None))]
CALLERS = [{"projectId": p, "sessionId": s} for p, s in itertools.product(("p", None), ("s", None))]


def python_sees(tier: Tier, caller: dict[str, str | None], memory: dict[str, str | None]) -> bool:
    seen = scope.seen_by(tier, [name for name, value in caller.items() if value is not None])
    return seen if isinstance(seen, bool) else memory[seen] == caller[seen]


def test_what_a_scope_sees_is_what_the_rule_says(services: Services) -> None:
    rows = [{"tier": tier.value, **place} for tier in scope.PLACED_BY for place in PLACES]
    for caller in CALLERS:
        records = services.driver.execute_query(
            f"UNWIND $rows AS m RETURN m.tier AS tier, m.projectId AS p, m.sessionId AS s, {scope.SEEN} AS seen",
            rows=rows, **caller, database_=services.database,
        ).records
        assert len(records) == len(rows)
        for r in records:
            memory = {"projectId": r["p"], "sessionId": r["s"]}
            # As a WHERE reads it: null (an id the memory lacks) keeps nothing, as False does.
            assert (r["seen"] is True) == python_sees(Tier(r["tier"]), caller, memory), (caller, dict(r))


def test_a_tier_scope_holds_the_memories_placed_in_it(services: Services) -> None:
    for tier, place in itertools.product(scope.PLACED_BY, PLACES):
        key = scope.tier_ids(tier, {"projectId": "p", "sessionId": "s"})
        rows = services.driver.execute_query(
            f"WITH $memory AS m RETURN {scope.IN_TIER_SCOPE} AS inside",
            memory=place, tier=tier.value, **key, database_=services.database,
        ).records
        wanted = scope.tier_key(tier)
        assert (rows[0]["inside"] is True) == (wanted is None or place[wanted] == key[wanted]), (tier, place)
