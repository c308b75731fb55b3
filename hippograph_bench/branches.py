"""What each part of the recall statement costs, measured by switching branches off.

For one tenant and question, the statement is run (in a read transaction, timed as recall's query
part is: session, statement, rows) as the hybrid profile has it and with one branch off at a time —
keywords (``keyword.k`` 0), the relation traversal (``relation.anchor_k`` 0), the session neighbours
(``neighbours.seed_k`` 0) — and with the vector branch alone (all three off); and the vector index
search recall's vector branch makes, alone (``two_index.vector_search``, ``index_k`` asked for). A
branch's cost is the whole statement's time less the time without it, question by question; the
vector search is the bare search's time; what the vector branch alone costs beyond the bare search
is the rest of the statement's fixed work (the owner's count, collecting, scoring and returning the
vector hits: "scoring"). Run one after the other on the same question, so each variant reads pages
the first has brought in; the sums need not add up to the whole, since a branch left off also
changes what the others do (a neighbour is seeded by keyword hits too).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from typing import Any

from hippograph.graph import recall as recall_cypher
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.analysis import analyse
from hippograph.memory.recall.profiles import RecallProfile
from hippograph.memory.recall.query import build_query
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph_bench import metrics
from hippograph_bench.two_index import vector_search

PARTS = ("statement", "vector_search", "scoring", "keyword", "relation", "neighbours")


def variants(profile: RecallProfile) -> dict[str, RecallProfile]:
    """The profile whole, with each branch off, and with the vector branch alone."""
    no_keyword = dataclasses.replace(profile, keyword=dataclasses.replace(profile.keyword, k=0))
    no_relation = dataclasses.replace(profile, relation=dataclasses.replace(profile.relation, anchor_k=0))
    no_neighbours = dataclasses.replace(profile, neighbours=dataclasses.replace(profile.neighbours, seed_k=0))
    alone = dataclasses.replace(no_keyword, relation=no_relation.relation, neighbours=no_neighbours.neighbours)
    return {
        "all": profile,
        "no_keyword": no_keyword,
        "no_relation": no_relation,
        "no_neighbours": no_neighbours,
        "vector_alone": alone,
    }


def times(services: Services, profile: RecallProfile, user_id: str, text: str, now: datetime) -> dict[str, float]:
    """One question's time (ms) for each part (``PARTS``) of the statement."""
    vector = services.embedder.embed_query(text)
    embedding = vector.tolist()
    analysis = analyse(text, now)
    ms: dict[str, float] = {}
    for name, variant in variants(profile).items():
        request = build_query(variant, Scope(user_id), analysis, embedding, now, list(Tier))
        ms[name] = _timed(services, partial(recall_cypher.recall_candidates, query=request))
    tiers = [tier.value for tier in Tier]
    k = max(profile.vector.k, profile.vector.index_k)
    ms["vector_search"] = _timed(
        services, partial(vector_search, user_id=user_id, embedding=embedding, tiers=tiers, k=k)
    )
    return {
        "statement": ms["all"],
        "vector_search": ms["vector_search"],
        "scoring": ms["vector_alone"] - ms["vector_search"],
        "keyword": ms["all"] - ms["no_keyword"],
        "relation": ms["all"] - ms["no_relation"],
        "neighbours": ms["all"] - ms["no_neighbours"],
    }


def _timed(services: Services, work: Callable[[Any], Any]) -> float:
    started = time.perf_counter()
    with services.driver.session(database=services.database, default_access_mode="READ") as session:
        session.execute_read(work)
    return (time.perf_counter() - started) * 1000


def median(samples: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each part's p50 over the questions (of the per-question differences, for the branches)."""
    return {part: round(metrics.percentile([s[part] for s in samples], 50), 2) for part in PARTS}
