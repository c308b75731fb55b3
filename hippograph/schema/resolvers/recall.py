"""``recall``: the caller's best memories for a query, within the priority's budget."""

from __future__ import annotations

import time

import strawberry
from starlette.concurrency import run_in_threadpool

from hippograph.memory.recall.query import recall as recall_memories
from hippograph.memory.tiers import Scope
from hippograph.schema.context import Info
from hippograph.schema.guards import checked
from hippograph.schema.limits import MAX_QUERY, enum_values, ident, text
from hippograph.schema.types.common import Priority, RecallProfile, Tier
from hippograph.schema.types.recall import RecallResult


@checked
async def recall(
    info: Info,
    query: str,
    priority: Priority = Priority.MEDIUM,
    profile: RecallProfile = RecallProfile.HYBRID,  # type: ignore[attr-defined]
    tiers: list[Tier] | None = None,
    project: strawberry.ID | None = None,
    session: strawberry.ID | None = None,
) -> RecallResult:
    text(query, "query", MAX_QUERY)
    scope = Scope(
        info.context.user_id,
        ident(project, "project") if project is not None else None,
        ident(session, "session") if session is not None else None,
    )
    started = time.perf_counter()
    result = await run_in_threadpool(
        recall_memories, info.context.services, query, scope, priority, profile.value, enum_values(tiers),
    )
    info.context.metrics.recall(result.profile, time.perf_counter() - started)
    return RecallResult.from_result(result)
