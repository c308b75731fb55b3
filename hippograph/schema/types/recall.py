"""What recall returns: the memories shown, why each came back, and the budget they used."""

from __future__ import annotations

from dataclasses import asdict, fields
from enum import Enum
from typing import Any, TYPE_CHECKING, get_type_hints

import strawberry

from hippograph.graph.recall import Components
from hippograph.memory.recall.query import Candidate, RecallResult, RecalledItem
from hippograph.operations.limits import bounded
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


if TYPE_CHECKING:
    # Made at import, which mypy cannot follow; it has Components' fields, so it is checked as Components.
    ScoreComponents = Components
else:
    ScoreComponents = _score_components()


async def stored_memory(root: strawberry.Parent[Any], info: Info) -> Memory | None:
    row = await info.context.loaders.memory.load(str(root.id))
    return Memory.from_row(row) if row else None


@strawberry.type
class RecalledMemory:
    id: strawberry.ID
    content: str = strawberry.field(description="The text shown: the full entry or its summary (see `mode`).")
    mode: RecallMode
    tier: Tier
    score: float
    components: ScoreComponents
    tokens: int

    memory: Memory | None = strawberry.field(resolver=stored_memory, description="The stored memory behind this item.")

    @classmethod
    def from_item(cls, item: RecalledItem) -> RecalledMemory:
        return cls(
            id=strawberry.ID(item.id),
            content=item.content,
            mode=RecallMode(item.mode.value),
            tier=item.tier,
            score=item.score,
            components=ScoreComponents(**asdict(item.components)),
            tokens=item.tokens,
        )


@strawberry.type(description="A row of the profile's ranking above its floor, before the budget chose the items.")
class RankedMemory:
    id: strawberry.ID
    content: str = strawberry.field(description="The memory's full text.")
    tier: Tier
    score: float
    components: ScoreComponents
    memory: Memory | None = strawberry.field(resolver=stored_memory, description="The stored memory behind this row.")


@strawberry.type(
    description="A score above `fullAbove` is shown in full, above `summaryAbove` as its summary, "
    "else skipped; nothing under `ofTop` times the first item's score is delivered."
)
class RecallGates:
    full_above: float
    summary_above: float
    of_top: float = strawberry.field(
        description="The share of the first item's score an item must reach to be "
        "delivered, whatever budget is left (0: the whole budget)."
    )


@strawberry.type(
    description="The profile's weights: score = (vector·vector + keyword·keyword + recency·recency + "
    "relation·relation) × (1 + timeBoost·time) × (1 + periodBoost·period), each term a "
    "component, or the `carried` component where that is more."
)
class RecallWeights:
    vector: float
    keyword: float
    recency: float
    relation: float
    time_boost: float
    period_boost: float
    carry: float = strawberry.field(
        description="A strong match's session neighbour scores at least this times the "
        "match's strength (the `carried` component); 0: nothing is carried."
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
    gates: RecallGates | None = strawberry.field(
        description="The profile's lines; null when it keeps each tier's top k instead (hanzo)."
    )
    weights: RecallWeights
    recall_id: strawberry.ID | None = strawberry.field(
        description=(
            "The audit event that logged this recall and the ids it returned: give it to recordDecision's "
            "`informedBy` to say this recall informed the decision."
        )
    )
    ranked: strawberry.Private[list[Candidate]]

    @strawberry.field(
        description="The ranking `items` were chosen from, best first: every candidate above the "
        "profile's floor, before the budget."
    )
    def ranking(self, first: int = 20) -> list[RankedMemory]:
        return [
            RankedMemory(
                id=strawberry.ID(c.id),
                content=c.content,
                tier=c.tier,
                score=c.score,
                components=ScoreComponents(**asdict(c.components)),
            )
            for c in self.ranked[: bounded(first, "first")]
        ]

    @classmethod
    def from_result(cls, result: RecallResult) -> RecallAnswer:
        t = result.timings
        return cls(
            items=[RecalledMemory.from_item(item) for item in result.items],
            totals=RecallTotals(
                items=result.totals.items,
                tokens=result.totals.tokens,
                budget_items=result.totals.budget.items,
                budget_tokens=result.totals.budget.tokens,
            ),
            profile=result.profile,
            timings=RecallTimings(embed_ms=t.embed_ms, query_ms=t.query_ms, total_ms=t.total_ms) if t else None,
            gates=RecallGates(full_above=result.lines[0], summary_above=result.lines[1], of_top=result.lines[2])
            if result.lines
            else None,
            weights=RecallWeights(**result.weights),
            recall_id=strawberry.ID(result.event_id) if result.event_id else None,
            ranked=result.ranking,
        )


@strawberry.type(description="A store item's score for a query: its best indexed field's cosine, from -1 to 1.")
class ItemScore:
    memory: strawberry.ID
    score: float
