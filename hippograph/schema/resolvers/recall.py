"""``recall``: the caller's best memories for a query, within the priority's budget; ``itemScores``: a store
search's."""

from __future__ import annotations

import strawberry

from hippograph.operations import recall as recalling
from hippograph.schema.context import Info
from hippograph.schema.guards import checked
from hippograph.schema.types.common import AsOf, Priority, ProfileName, Tier
from hippograph.schema.types.recall import ItemScore, RecallAnswer


@checked
async def recall(
    info: Info,
    query: str,
    priority: Priority = Priority.MEDIUM,
    profile: ProfileName = ProfileName.HYBRID,  # type: ignore[attr-defined]  # made at import (operations/vocabulary.py)
    tiers: list[Tier] | None = None,
    project: strawberry.ID | None = None,
    session: strawberry.ID | None = None,
    as_of: AsOf = None,
) -> RecallAnswer:
    result = await recalling.recall(
        info.context.call,
        query,
        priority=priority,
        profile=profile.value,
        tiers=tiers,
        project=project,
        session=session,
        as_of=as_of,
    )
    return RecallAnswer.from_result(result)


@checked
async def item_scores(info: Info, query: str, memories: list[strawberry.ID]) -> list[ItemScore]:
    scores = await recalling.item_scores(info.context.call, query, memories)
    return [ItemScore(memory=strawberry.ID(memory), score=score) for memory, score in scores.items()]
