"""Reading the graph as stored: ``memory``, ``memories``, ``entity``, ``entities``,
``trace``, ``chains``, ``tierUsage``."""

from __future__ import annotations

from typing import Annotated

import strawberry
from starlette.concurrency import run_in_threadpool

from hippograph.memory import browse
from hippograph.memory.browse import MAX_TRACE_DEPTH
from hippograph.memory.tiers import Scope
from hippograph.schema.context import Info
from hippograph.schema.errors import BadInput, LimitExceeded, NotFound
from hippograph.schema.guards import checked
from hippograph.schema.limits import (
    DEFAULT_PAGE,
    MAX_CHAINS,
    MAX_SHORT_TEXT,
    MAX_TRACE_PATHS,
    bounded_list,
    enum_values,
    ident,
    optional_ident,
    optional_text,
    page_size,
)
from hippograph.schema.pagination import PageInfo, decode_cursor, encode_cursor
from hippograph.schema.types.browse import Chain, EntityConnection, MemoryConnection, MemoryFilter, Path, TierUsage
from hippograph.schema.types.common import Direction, EdgeType, EntityType
from hippograph.schema.types.nodes import Edge, Entity, Memory


@checked
async def memory(info: Info, id: strawberry.ID) -> Memory | None:
    row = await info.context.loaders.memory.load(ident(id, "id"))
    if row is None:
        raise NotFound(f"memory {id} not found")
    return Memory.from_row(row)


@checked
async def memories(
    info: Info, filter: MemoryFilter | None = None, first: int = DEFAULT_PAGE, after: str | None = None
) -> MemoryConnection:
    where = filter or MemoryFilter()
    keyset = decode_cursor(after, "m", (int, int, str))
    if keyset is not None and not 0 <= keyset[1] < 1_000_000_000:
        raise BadInput("after is not a cursor this field returned", field="after")
    stored = browse.MemoryFilter(
        tiers=enum_values(bounded_list(where.tiers, "filter.tiers")),
        project_id=optional_ident(where.project, "filter.project"),
        session_id=optional_ident(where.session, "filter.session"),
        kinds=[k.value for k in enum_values(bounded_list(where.kinds, "filter.kinds")) or []] or None,
        include_archived=where.include_archived,
        include_closed=where.include_closed,
    )
    page = await run_in_threadpool(
        browse.memories_page, info.context.services, info.context.user_id, stored, page_size(first), keyset,
    )
    loaders = info.context.loaders
    for row in page.rows:
        loaders.memory.prime(row["id"], row)
    last = page.rows[-1] if page.rows else None
    return MemoryConnection(
        nodes=[Memory.from_row(row) for row in page.rows],
        page_info=PageInfo(
            has_next_page=page.has_next,
            end_cursor=encode_cursor("m", last["cursorSeconds"], last["cursorNanos"], last["id"]) if last else None,
        ),
    )


@checked
async def entity(info: Info, id: strawberry.ID) -> Entity | None:
    row = await info.context.loaders.entity.load(ident(id, "id"))
    if row is None:
        raise NotFound(f"entity {id} not found")
    return Entity.from_row(row)


@checked
async def entities(
    info: Info,
    type: EntityType | None = None,
    search: str | None = None,
    project: strawberry.ID | None = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
) -> EntityConnection:
    keyset = decode_cursor(after, "e", (str, str))
    page = await run_in_threadpool(
        browse.entities_page, info.context.services, info.context.user_id, page_size(first), type,
        optional_text(search, "search", MAX_SHORT_TEXT), optional_ident(project, "project"), keyset,
    )
    loaders = info.context.loaders
    for row in page.rows:
        loaders.entity.prime(row["id"], row)
    last = page.rows[-1] if page.rows else None
    return EntityConnection(
        nodes=[Entity.from_row(row) for row in page.rows],
        page_info=PageInfo(
            has_next_page=page.has_next,
            end_cursor=encode_cursor("e", last["normName"], last["id"]) if last else None,
        ),
    )


@checked
async def trace(
    info: Info,
    from_: Annotated[strawberry.ID, strawberry.argument(name="from", description="The entity to start from.")],
    edge_types: list[EdgeType] | None = None,
    direction: Direction = Direction.OUT,
    max_depth: int = 3,
) -> list[Path]:
    if max_depth < 1:
        raise BadInput("maxDepth must be at least 1", field="maxDepth")
    if max_depth > MAX_TRACE_DEPTH:
        raise LimitExceeded(f"maxDepth is at most {MAX_TRACE_DEPTH}, got {max_depth}", field="maxDepth")
    paths = await run_in_threadpool(
        browse.trace, info.context.services, info.context.user_id, ident(from_, "from"),
        enum_values(bounded_list(edge_types, "edgeTypes")), direction.value, max_depth, MAX_TRACE_PATHS,
    )
    loaders = info.context.loaders
    for path in paths:
        for row in path["nodes"]:
            loaders.entity.prime(row["id"], row)
    return [
        Path(nodes=[Entity.from_row(n) for n in path["nodes"]], edges=[Edge.from_row(e) for e in path["edges"]])
        for path in paths
    ]


@checked
async def chains(info: Info, project: strawberry.ID | None = None, first: int = MAX_CHAINS) -> list[Chain]:
    if first > MAX_CHAINS:
        raise LimitExceeded(f"first is at most {MAX_CHAINS}, got {first}", field="first")
    rows = await run_in_threadpool(
        browse.chains, info.context.services, info.context.user_id, optional_ident(project, "project"), page_size(first),
    )
    return [
        Chain(
            decision=Entity.from_row(row["decision"]) if row["decision"] else None,
            error=Entity.from_row(row["error"]),
            fix=Entity.from_row(row["fix"]) if row["fix"] else None,
        )
        for row in rows
    ]


@checked
async def tier_usage(
    info: Info, project: strawberry.ID | None = None, session: strawberry.ID | None = None
) -> list[TierUsage]:
    scope = Scope(info.context.user_id, optional_ident(project, "project"), optional_ident(session, "session"))
    usage = await run_in_threadpool(browse.tier_usage, info.context.services, scope)
    for item in usage:
        info.context.metrics.tier_usage(item.tier.value, item.fill)
    return [TierUsage.from_usage(item) for item in usage]
