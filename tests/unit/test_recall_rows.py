"""The recall statement's rows as candidates."""

from __future__ import annotations

from typing import Any

from hippograph.graph.recall import COMPONENTS
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.query import candidates


def _row(memory_id: str | None, tier: str | None) -> dict[str, Any]:
    return {"id": memory_id, "tier": tier, "score": 0.8, "content": "Deploy on Fridays" if tier else None,
            "summary": None, "cosine": 0.7, "sources": ["vector"], "entityRelation": 0.0, "neighbour": 0.0, "strength": 0.0,
            **{part: 0.5 for part in COMPONENTS}}


def test_a_memory_forgotten_while_the_statement_read_it_is_not_a_candidate() -> None:
    # Neo4j reads committed data as it goes: a memory deleted meanwhile comes back without its properties.
    # Today's tree answered that recall with INTERNAL_SERVER_ERROR ("None is not a valid Tier").
    found = candidates([_row("m1", "PROJECT"), _row(None, None), _row("m3", "SESSION")])
    assert [(c.id, c.tier) for c in found] == [("m1", Tier.PROJECT), ("m3", Tier.SESSION)]
