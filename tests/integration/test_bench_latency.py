"""``hippograph bench latency``'s exactness: recall's top 10 against an exact scan, by memory and by text,
through real recall on a real store."""

from __future__ import annotations

import pytest

from hippograph.bench import latency
from hippograph.bench.store import Tenant
from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.store import MemoryInput, bulk_import

pytestmark = pytest.mark.neo4j

TEXTS = [
    "I adopted a grey cat from the shelter last Friday.",
    "My brother is moving to Lisbon in the spring.",
    "The pottery class downtown starts next week.",
]
SESSIONS = 40


def test_copies_of_one_text_count_once_when_exactness_is_read_by_text(clean_db: Services) -> None:
    services = clean_db
    # 120 memories, over the scan limit, so recall asks the filtered index; every text 40 times, one copy a session.
    for n in range(SESSIONS):
        bulk_import(services, Scope("bench-exact", None, f"s{n}"), [MemoryInput(text, Tier.SESSION) for text in TEXTS])
    owner = Tenant("bench-exact", "small", len(TEXTS) * SESSIONS)

    measured = latency._exactness(services, [owner], ["Which pet came home from the shelter?"])

    assert measured["owned"] == [len(TEXTS) * SESSIONS]
    # The exact top 10 are ten of the cat's 40 copies (their vectors tie): any ten of them are the same text.
    assert measured["text_overlap@10"] == 1.0
    assert 0.0 <= measured["min_overlap@10"] <= measured["overlap@10"] <= 1.0
