"""The graph's nodes as GraphQL types: memories, entities, and the edges between entities.

Neighbours are resolved through the request's DataLoaders, so a list of memories
and their entities costs one read per level, not one per row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from hippograph.memory.browse import DecisionContext as StoredContext
from hippograph.memory.browse import entity_project
from hippograph.operations import browse as browsing
from hippograph.graph.vocabulary import EdgeType as StoredEdgeType
from hippograph.graph.vocabulary import EntityType as StoredEntityType
from hippograph.graph.vocabulary import Tier as StoredTier
from hippograph.schema.context import Info
from hippograph.operations.limits import MAX_PAGE, bounded
from hippograph.schema.types.common import (
    Direction,
    EdgeType,
    EntityType,
    MemoryKind,
    Tier,
    native_time,
    parse_attributes,
)


@strawberry.type(
    description="One memory: the tuple (id, content, embedding, time, tier, relevance) with its scope and bookkeeping."
)
class Memory:
    id: strawberry.ID
    content: str
    summary: str | None
    tier: Tier
    kind: MemoryKind | None
    project: str | None
    session: str | None
    created_at: datetime | None
    relevance: float | None
    access_count: int
    last_accessed_at: datetime | None
    tokens: int | None
    archived: bool
    valid_from: datetime | None
    valid_until: datetime | None = strawberry.field(description="Set when a newer fact superseded this one.")
    attributes: JSON | None
    labels: list[str] = strawberry.field(description="Entity labels of the node (Decision, Error …).")

    @strawberry.field(description="Entities this memory mentions.")
    async def entities(self, info: Info) -> list[Entity]:
        rows = await info.context.loaders.memory_entities.load(str(self.id))
        return [Entity.from_row(row["entity"]) for row in rows if row["relation"] == "MENTIONS"]

    @strawberry.field(description="The entity this memory records (a decision, an error …), if any.")
    async def records(self, info: Info) -> Entity | None:
        rows = await info.context.loaders.memory_entities.load(str(self.id))
        return next((Entity.from_row(row["entity"]) for row in rows if row["relation"] == "RECORDS"), None)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Memory:
        kind = row.get("kind")
        return cls(
            id=strawberry.ID(row["id"]),
            content=row.get("content") or "",
            summary=row.get("summary"),
            tier=StoredTier(row["tier"]),
            kind=MemoryKind(kind) if kind in MemoryKind._value2member_map_ else None,
            project=row.get("projectId"),
            session=row.get("sessionId"),
            created_at=native_time(row.get("createdAt")),
            relevance=row.get("relevance"),
            access_count=int(row.get("accessCount") or 0),
            last_accessed_at=native_time(row.get("lastAccessedAt")),
            tokens=row.get("tokens"),
            archived=bool(row.get("archived")),
            valid_from=native_time(row.get("validFrom")),
            valid_until=native_time(row.get("validUntil")),
            attributes=parse_attributes(row.get("attributes")),
            labels=list(row.get("labels") or []),
        )


@strawberry.type(
    description="A node of the knowledge graph: a decision, error, pattern, technology, concept or preference."
)
class Entity:
    id: strawberry.ID
    name: str
    type: EntityType
    project: str | None = strawberry.field(
        description="The project it belongs to; null for the user's long-term entities."
    )
    created_at: datetime | None
    valid_from: datetime | None
    valid_until: datetime | None
    attributes: JSON | None

    @strawberry.field(description="False once a newer fact closed it (validUntil set).")
    def active(self) -> bool:
        return self.valid_until is None

    @strawberry.field(description="Knowledge-graph edges touching this entity.")
    async def edges(
        self, info: Info, direction: Direction = Direction.BOTH, types: list[EdgeType] | None = None
    ) -> list[Edge]:
        wanted = {StoredEdgeType(t).value for t in types} if types else None
        me = str(self.id)
        edges = []
        for row in await info.context.loaders.edges.load(me):
            if wanted is not None and row["type"] not in wanted:
                continue
            if (direction is Direction.OUT and row["from"] != me) or (direction is Direction.IN and row["to"] != me):
                continue
            edges.append(Edge.from_row(row))
        return edges

    @strawberry.field(description=f"Memories that mention or record this entity, newest first (at most {MAX_PAGE}).")
    async def memories(self, info: Info, first: int = 20) -> list[Memory]:
        rows = await info.context.loaders.entity_memories.load(str(self.id))
        return [Memory.from_row(row["memory"]) for row in rows[: bounded(first, "first")]]

    @strawberry.field(
        description=(
            "What informed this decision, when it was recorded with `informedBy`: the memories that recall returned, "
            "as they read when the decision was recorded (even if edited since); one forgotten since shows only when "
            "it was erased. Null for an entity no recall informed."
        )
    )
    async def context(self, info: Info) -> DecisionContext | None:
        found = await browsing.decision_context(info.context.call, str(self.id))
        return DecisionContext.from_context(found) if found is not None else None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Entity:
        return cls(
            id=strawberry.ID(row["id"]),
            name=row["name"],
            type=StoredEntityType(row["type"]),
            project=entity_project(row),
            created_at=native_time(row.get("createdAt")),
            valid_from=native_time(row.get("validFrom")),
            valid_until=native_time(row.get("validUntil")),
            attributes=parse_attributes(row.get("attributes")),
        )


@strawberry.type(description="One memory a decision's recall returned: as it read then, or only when it was erased.")
class ContextMemory:
    id: strawberry.ID
    memory: Memory | None = strawberry.field(description="As it read when the decision was recorded; null once erased.")
    erased_at: datetime | None = strawberry.field(description="When it was erased; null while it is kept.")


@strawberry.type(description="What informed a decision: the recall it names and what that recall returned.")
class DecisionContext:
    recall_id: strawberry.ID = strawberry.field(description="The recall's audit event (RecallResult.recallId).")
    recorded_at: datetime = strawberry.field(
        description="When the decision was recorded: the moment the memories are read as of."
    )
    memories: list[ContextMemory]

    @classmethod
    def from_context(cls, context: StoredContext) -> DecisionContext:
        return cls(
            recall_id=strawberry.ID(context.recall_id),
            recorded_at=context.recorded_at,
            memories=[
                ContextMemory(
                    id=strawberry.ID(item.id),
                    erased_at=item.erased_at,
                    memory=Memory.from_row(item.memory) if item.memory is not None else None,
                )
                for item in context.items
            ],
        )


@strawberry.type(description="A directed knowledge-graph edge.")
class Edge:
    type: EdgeType
    from_id: strawberry.ID
    to_id: strawberry.ID
    note: str | None
    created_at: datetime | None

    @strawberry.field(name="from")
    async def from_(self, info: Info) -> Entity | None:
        row = await info.context.loaders.entity.load(str(self.from_id))
        return Entity.from_row(row) if row else None

    @strawberry.field
    async def to(self, info: Info) -> Entity | None:
        row = await info.context.loaders.entity.load(str(self.to_id))
        return Entity.from_row(row) if row else None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Edge:
        return cls(
            type=StoredEdgeType(row["type"]),
            from_id=strawberry.ID(row["from"]),
            to_id=strawberry.ID(row["to"]),
            note=row.get("note"),
            created_at=native_time(row.get("createdAt")),
        )
