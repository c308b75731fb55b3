"""Reading the graph as stored: ``memories``, ``entities``, ``trace``, ``chains`` and ``tier_usage``; and
the batched reads by id behind GraphQL's DataLoaders (``memories_by_id`` …), each the caller's own."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from starlette.concurrency import run_in_threadpool

from hippograph.graph.vocabulary import EdgeType, EntityType, Tier
from hippograph.memory import browse
from hippograph.memory.browse import MAX_TRACE_DEPTH, MemoryFilter, Page, TierUsage
from hippograph.operations import limits
from hippograph.operations.call import Call
from hippograph.operations.limits import (
    DEFAULT_PAGE,
    MAX_CHAINS,
    MAX_SHORT_TEXT,
    MAX_TRACE_PATHS,
    bounded,
    bounded_list,
    caller_scope,
    distinct,
    ident,
    optional_ident,
    optional_text,
)


# The memories listed under one entity; more are reached through `memories`.
MEMORIES_PER_ENTITY = 100

Row = dict[str, Any]


async def memories_by_id(call: Call, ids: Sequence[str], as_of: datetime | None = None) -> dict[str, Row]:
    return await run_in_threadpool(browse.get_memories, call.services, call.user_id, ids, limits.as_of(as_of))


async def decision_context(call: Call, entity_id: str) -> browse.DecisionContext | None:
    """What informed a decision (see ``hippograph.memory.browse.decision_context``)."""
    return await run_in_threadpool(browse.decision_context, call.services, call.user_id, entity_id)


async def entities_by_id(call: Call, ids: Sequence[str]) -> dict[str, Row]:
    return await run_in_threadpool(browse.get_entities, call.services, call.user_id, ids)


async def edges_of(call: Call, entity_ids: Sequence[str]) -> dict[str, list[Row]]:
    """Per entity, the knowledge-graph edges touching it."""
    return await run_in_threadpool(browse.edges_of, call.services, call.user_id, entity_ids)


async def memories_of_entities(call: Call, entity_ids: Sequence[str]) -> dict[str, list[Row]]:
    """Per entity, the newest ``MEMORIES_PER_ENTITY`` memories that mention or record it."""
    return await run_in_threadpool(
        browse.memories_of_entities, call.services, call.user_id, entity_ids, MEMORIES_PER_ENTITY
    )


async def entities_of_memories(call: Call, memory_ids: Sequence[str]) -> dict[str, list[Row]]:
    """Per memory, the entities it mentions or records: ``{relation, entity}`` rows."""
    return await run_in_threadpool(browse.entities_of_memories, call.services, call.user_id, memory_ids)


async def memories(
    call: Call,
    *,
    tiers: Sequence[Tier] | None = None,
    project: str | None = None,
    session: str | None = None,
    kinds: Sequence[str] | None = None,
    include_archived: bool = False,
    include_closed: bool = True,
    first: int = DEFAULT_PAGE,
    after: tuple[int, int, str] | None = None,
    as_of: datetime | None = None,
    request_ids: Sequence[str] | None = None,
) -> Page:
    """The caller's memories, newest first, a page at a time; every filter narrows the list; as of
    ``as_of``, the store as it was then."""
    requested = bounded_list(request_ids, "filter.requestIds")
    where = MemoryFilter(
        tiers=distinct(bounded_list(tiers, "filter.tiers")),
        project_id=optional_ident(project, "filter.project"),
        session_id=optional_ident(session, "filter.session"),
        kinds=distinct(bounded_list(kinds, "filter.kinds")) or None,
        include_archived=include_archived,
        include_closed=include_closed,
        request_ids=distinct(
            None if requested is None else [ident(r, f"filter.requestIds[{i}]") for i, r in enumerate(requested)]
        ),
    )
    return await run_in_threadpool(
        browse.memories_page,
        call.services,
        call.user_id,
        where,
        bounded(first, "first"),
        after,
        limits.as_of(as_of),
    )


async def entities(
    call: Call,
    *,
    entity_type: EntityType | None = None,
    search: str | None = None,
    project: str | None = None,
    first: int = DEFAULT_PAGE,
    after: tuple[str, str] | None = None,
    user_level: bool = False,
) -> Page:
    """The caller's entities by name, a page at a time; ``search`` matches inside names; ``project`` keeps
    a project's, ``user_level`` the user's own outside any project."""
    return await run_in_threadpool(
        browse.entities_page,
        call.services,
        call.user_id,
        bounded(first, "first"),
        entity_type,
        optional_text(search, "search", MAX_SHORT_TEXT),
        optional_ident(project, "project"),
        after,
        user_level,
    )


async def trace(
    call: Call,
    from_id: str,
    *,
    edge_types: Sequence[EdgeType] | None = None,
    direction: str = "OUT",
    max_depth: int = 3,
    as_of: datetime | None = None,
) -> list[dict[str, Any]]:
    """Paths through the knowledge graph from an entity, shortest first: ``{nodes, edges}`` rows; as of
    ``as_of``, over what was recorded by then."""
    depth = bounded(max_depth, "maxDepth", MAX_TRACE_DEPTH)
    return await run_in_threadpool(
        browse.trace,
        call.services,
        call.user_id,
        ident(from_id, "from"),
        distinct(bounded_list(edge_types, "edgeTypes")),
        direction,
        depth,
        MAX_TRACE_PATHS,
        limits.as_of(as_of),
    )


async def chains(
    call: Call,
    project: str | None = None,
    first: int = MAX_CHAINS,
    as_of: datetime | None = None,
) -> list[dict[str, Any]]:
    """decision → CAUSED → error → SOLVED_BY → fix chains, per error: ``{decision, error, fix}`` rows; as of
    ``as_of``, the chains recorded by then with each decision open or closed as it was then."""
    return await run_in_threadpool(
        browse.chains,
        call.services,
        call.user_id,
        optional_ident(project, "project"),
        bounded(first, "first", MAX_CHAINS),
        limits.as_of(as_of),
    )


async def tier_usage(
    call: Call,
    project: str | None = None,
    session: str | None = None,
    as_of: datetime | None = None,
) -> list[TierUsage]:
    """How full each tier of a scope is, each fill recorded in ``hippograph_tier_fill_ratio`` (a fill as
    of a past moment is not: the gauge says how full a tier is now)."""
    scope = caller_scope(call.user_id, project, session)
    moment = limits.as_of(as_of)
    usage = await run_in_threadpool(browse.tier_usage, call.services, scope, moment)
    if moment is None:
        for item in usage:
            call.metrics.tier_usage(item.tier.value, item.fill)
    return usage
