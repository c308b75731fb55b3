"""Reading the graph as stored: ``memory``, ``memories``, ``entity``, ``entities``,
``trace``, ``chains``, ``tierUsage``."""

from __future__ import annotations

from typing import Annotated

import strawberry

from hippograph.operations import browse
from hippograph.memory.errors import NotFound
from hippograph.operations.errors import BadInput
from hippograph.operations.limits import DEFAULT_PAGE, MAX_CHAINS, ident
from hippograph.schema.context import Info
from hippograph.schema.guards import checked
from hippograph.schema.pagination import PageInfo, decode_cursor, encode_cursor
from hippograph.schema.types.browse import Chain, EntityConnection, MemoryConnection, MemoryFilterInput, Path, TierFill
from hippograph.schema.types.common import AsOf, Direction, EdgeType, EntityType
from hippograph.schema.types.nodes import Edge, Entity, Memory


@checked
async def memory(info: Info, id: strawberry.ID, as_of: AsOf = None) -> Memory | None:
    if as_of is not None:
        row = (await browse.memories_by_id(info.context.call, [ident(id, "id")], as_of)).get(id)
    else:
        # Through the request's loader: every `memory` of one request is one read.
        row = await info.context.loaders.memory.load(ident(id, "id"))
    if row is None:
        raise NotFound(f"memory {id} not found")
    return Memory.from_row(row)


@checked
async def memories(
    info: Info,
    filter: MemoryFilterInput | None = None,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
    as_of: AsOf = None,
) -> MemoryConnection:
    where = filter or MemoryFilterInput()
    keyset = decode_cursor(after, "m", (int, int, str))
    if keyset is not None and not 0 <= keyset[1] < 1_000_000_000:
        raise BadInput("after is not a cursor this field returned", field="after")
    page = await browse.memories(
        info.context.call,
        tiers=where.tiers,
        project=where.project,
        session=where.session,
        kinds=[kind.value for kind in where.kinds] if where.kinds is not None else None,
        include_archived=where.include_archived,
        include_closed=where.include_closed,
        first=first,
        after=keyset,
        as_of=as_of,
        request_ids=where.request_ids,
    )
    loaders = info.context.loaders
    for row in page.rows if as_of is None else ():
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
    page = await browse.entities(
        info.context.call,
        entity_type=type,
        search=search,
        project=project,
        first=first,
        after=decode_cursor(after, "e", (str, str)),
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
    as_of: AsOf = None,
) -> list[Path]:
    paths = await browse.trace(
        info.context.call,
        from_,
        edge_types=edge_types,
        direction=direction.value,
        max_depth=max_depth,
        as_of=as_of,
    )
    loaders = info.context.loaders
    for path in paths if as_of is None else ():
        for row in path["nodes"]:
            loaders.entity.prime(row["id"], row)
    return [
        Path(nodes=[Entity.from_row(n) for n in path["nodes"]], edges=[Edge.from_row(e) for e in path["edges"]])
        for path in paths
    ]


@checked
async def chains(
    info: Info,
    project: strawberry.ID | None = None,
    first: int = MAX_CHAINS,
    as_of: AsOf = None,
) -> list[Chain]:
    return [Chain.from_row(row) for row in await browse.chains(info.context.call, project, first, as_of)]


@checked
async def tier_usage(
    info: Info,
    project: strawberry.ID | None = None,
    session: strawberry.ID | None = None,
    as_of: AsOf = None,
) -> list[TierFill]:
    return [TierFill.from_usage(item) for item in await browse.tier_usage(info.context.call, project, session, as_of)]
