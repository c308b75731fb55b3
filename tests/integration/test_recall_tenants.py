"""A caller's recall depends on the caller's memories alone: what other users store moves nothing.

Lucene's BM25 statistics span the whole index, so a keyword score read from it tells a
caller whether other tenants' memories hold a word, and roughly how many do. Recall
computes its keyword statistics over the caller's own memories, so the same question
gets the same items, order, scores and components however the rest of the store fills.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from datetime import datetime, timezone

import pytest

from hippograph.graph.vocabulary import EntityType
from hippograph.memory.writing.forget import forget_user
from hippograph.memory.recall.query import recall
from hippograph.memory.writing.store import MemoryInput, remember
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
QUESTIONS = ("when did the pelican colony migrate", "Pelican harbour survey", "kafka retention for pelican events")

OWN = [
    "The pelican colony migrated south in early March.",
    "We counted forty pelicans at the harbour survey.",
    "Kafka retention for the survey events is seven days.",
    "The harbour office opens at nine.",
    "Migration counts go into the spreadsheet every Friday.",
]


def fill(services: Services, user_id: str, texts: list[str]) -> None:
    for text in texts:
        remember(services, Scope(user_id, "birds"), MemoryInput(
            text, Tier.PROJECT, created_at=NOW, mentions=[(EntityType.CONCEPT, "pelican")],
        ), now=NOW)


def answers(services: Services, user_id: str) -> str:
    """Every question's ranking, items and totals, as text: equal text, equal recall."""
    results = []
    for question in QUESTIONS:
        for profile in ("hybrid", "izanagi", "hanzo"):
            result = recall(services, question, Scope(user_id, "birds"), "critical", profile, now=NOW,
                            record_access=False)
            results.append([dataclasses.asdict(c) for c in result.ranking])
            results.append([dataclasses.asdict(item) for item in result.items])
    return json.dumps(results, default=str, sort_keys=True)


def test_recall_is_the_same_whatever_other_users_store(clean_hashed: Services) -> None:
    caller = f"pel-{uuid.uuid4().hex[:8]}"
    fill(clean_hashed, caller, OWN)
    alone = answers(clean_hashed, caller)
    assert "pelican" in alone

    # Other tenants fill the index with the questions' words, one of them with an id that holds the caller's.
    others = [f"other-{uuid.uuid4().hex[:8]}", f"{caller}-shadow"]
    for other in others:
        fill(clean_hashed, other, [f"pelican pelican harbour survey {i}: the pelican colony migrated, kafka retention"
                               for i in range(16)])
    assert answers(clean_hashed, caller) == alone

    # Forgotten again, they leave deleted documents behind in Lucene's segments: still nothing moves.
    for other in others:
        forget_user(clean_hashed, other)
    assert answers(clean_hashed, caller) == alone
