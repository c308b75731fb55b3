"""What recall returns: the memories shown, why each came back, and the budget they used."""

from __future__ import annotations

from dataclasses import asdict, fields
from enum import Enum
from typing import get_type_hints

import strawberry

from hippograph.graph.recall import Components
from hippograph.memory.recall.query import RecallResult, RecalledItem
from hippograph.schema.context import Info
from hippograph.schema.types.common import Tier
from hippograph.schema.types.nodes import Memory


@strawberry.enum(description="Whether a recalled memory is shown in full or as its compressed summary.")
class RecallMode(Enum):
    FULL = "FULL"
    SUMMARY = "SUMMARY"


def _score_components() -> type:
    """``ScoreComponents``, field by field from the one declaration of the score's parts (``Components``)."""
    types = get_type_hints(Components)
    namespace: dict[str, object] = {"__annotations__": {part.name: types[part.name] for part in fields(Components)}}
    for part in fields(Components):
        if part.metadata.get("description"):
            namespace[part.name] = strawberry.field(description=part.metadata["description"])
    return strawberry.type(
        type("ScoreComponents", (), namespace),
        description="The score's parts, each in [0, 1]; `vector` is null when the profile embeds nothing.",
    )


ScoreComponents = _score_components()


@strawberry.type
class RecalledMemory:
    id: strawberry.ID
    content: str = strawberry.field(description="The text shown: the full entry or its summary (see `mode`).")
    mode: RecallMode
    tier: Tier
    score: float
    components: ScoreComponents  # type: ignore[valid-type]
    tokens: int

    @strawberry.field(description="The stored memory behind this item.")
    async def memory(self, info: Info) -> Memory | None:
        row = await info.context.loaders.memory.load(str(self.id))
        return Memory.from_row(row) if row else None

    @classmethod
    def from_item(cls, item: RecalledItem) -> RecalledMemory:
        return cls(
            id=strawberry.ID(item.id), content=item.content, mode=RecallMode(item.mode.value), tier=item.tier,
            score=item.score, components=ScoreComponents(**asdict(item.components)), tokens=item.tokens,
        )


@strawberry.type
class RecallTotals:
    items: int
    tokens: int
    budget_items: int
    budget_tokens: int


@strawberry.type
class RecallTimings:
    embed_ms: float
    query_ms: float
    total_ms: float


@strawberry.type(name="RecallResult")
class RecallAnswer:
    items: list[RecalledMemory]
    totals: RecallTotals
    profile: str
    timings: RecallTimings | None

    @classmethod
    def from_result(cls, result: RecallResult) -> RecallAnswer:
        t = result.timings
        return cls(
            items=[RecalledMemory.from_item(item) for item in result.items],
            totals=RecallTotals(
                items=result.totals.items, tokens=result.totals.tokens,
                budget_items=result.totals.budget.items, budget_tokens=result.totals.budget.tokens,
            ),
            profile=result.profile,
            timings=RecallTimings(embed_ms=t.embed_ms, query_ms=t.query_ms, total_ms=t.total_ms) if t else None,
        )
