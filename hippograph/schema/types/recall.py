"""What recall returns: the memories shown, why each came back, and the budget they used."""

from __future__ import annotations

from enum import Enum

import strawberry

from hippograph.memory.recall.query import RecallResult as StoredRecallResult
from hippograph.memory.recall.query import RecalledItem
from hippograph.schema.context import Info
from hippograph.schema.types.common import Tier
from hippograph.schema.types.nodes import Memory


@strawberry.enum(description="Whether a recalled memory is shown in full or as its compressed summary.")
class RecallMode(Enum):
    FULL = "FULL"
    SUMMARY = "SUMMARY"


@strawberry.type(description="The score's parts, each in [0, 1]; `vector` is null when the profile embeds nothing.")
class ScoreComponents:
    vector: float | None
    keyword: float
    recency: float
    relation: float
    time: float = strawberry.field(description="1 when the query asks when and the memory says when (a time "
                                               "expression): the weighted sum is then multiplied by 1 + the "
                                               "profile's time boost; else 0.")
    period: float = strawberry.field(description="1 when the memory was written in a day, month or year the query "
                                                 "names (\"in December 2023\", \"on October 13, 2023\"): the "
                                                 "weighted sum is then multiplied by 1 + the profile's period boost; "
                                                 "else 0.")


@strawberry.type
class RecalledMemory:
    id: strawberry.ID
    content: str = strawberry.field(description="The text shown: the full entry or its summary (see `mode`).")
    mode: RecallMode
    tier: Tier
    score: float
    components: ScoreComponents
    tokens: int

    @strawberry.field(description="The stored memory behind this item.")
    async def memory(self, info: Info) -> Memory | None:
        row = await info.context.loaders.memory.load(str(self.id))
        return Memory.from_row(row) if row else None

    @classmethod
    def from_item(cls, item: RecalledItem) -> RecalledMemory:
        c = item.components
        return cls(
            id=strawberry.ID(item.id), content=item.content, mode=RecallMode(item.mode.value), tier=item.tier,
            score=item.score, components=ScoreComponents(vector=c.vector, keyword=c.keyword, recency=c.recency, relation=c.relation,
                                                       time=c.time, period=c.period),
            tokens=item.tokens,
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


@strawberry.type
class RecallResult:
    items: list[RecalledMemory]
    totals: RecallTotals
    profile: str
    timings: RecallTimings | None

    @classmethod
    def from_result(cls, result: StoredRecallResult) -> RecallResult:
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
