"""``recall``: the caller's best memories for a query, within the priority's budget; ``item_scores``: a store
search's."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from functools import partial

from starlette.concurrency import run_in_threadpool

from hippograph.graph.vocabulary import Tier
from hippograph.memory import items
from hippograph.memory.recall.profiles import DEFAULT_PROFILE, Priority
from hippograph.memory.recall.query import RecallResult, recall as recall_memories
from hippograph.operations.call import Call
from hippograph.operations import limits
from hippograph.operations.limits import MAX_QUERY, bounded_list, caller_scope, distinct, ident, text


async def recall(
    call: Call,
    query: str,
    *,
    priority: Priority = Priority.MEDIUM,
    profile: str = DEFAULT_PROFILE,
    tiers: Sequence[Tier] | None = None,
    project: str | None = None,
    session: str | None = None,
    as_of: datetime | None = None,
) -> RecallResult:
    """Recall, timed into ``hippograph_recall_seconds`` whichever interface asked; as of ``as_of``, from
    the store as it was then (no access is counted)."""
    text(query, "query", MAX_QUERY)
    scope = caller_scope(call.user_id, project, session)
    moment = limits.as_of(as_of)
    started = time.perf_counter()
    result = await run_in_threadpool(
        partial(recall_memories, as_of=moment),
        call.services,
        query,
        scope,
        priority,
        profile,
        distinct(tiers),
    )
    call.metrics.recall(result.profile, time.perf_counter() - started)
    return result


async def item_scores(call: Call, query: str, memories: Sequence[str]) -> dict[str, float]:
    """A store search's scores (``hippograph.memory.items``): at most ``MAX_LIST`` memories a call."""
    text(query, "query", MAX_QUERY)
    ids = [ident(memory, f"memories[{i}]") for i, memory in enumerate(bounded_list(memories, "memories") or [])]
    return await run_in_threadpool(items.item_scores, call.services, call.user_id, query, ids)
