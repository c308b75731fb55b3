"""Pages, paths, chains and tier usage: what the browsing queries return."""

from __future__ import annotations

from typing import Any

import strawberry

from hippograph.memory.browse import TierUsage
from hippograph.memory.tiers import TRIGGER
from hippograph.schema.pagination import PageInfo
from hippograph.schema.types.common import MemoryKind, Tier
from hippograph.schema.types.nodes import Edge, Entity, Memory


@strawberry.input(name="MemoryFilter", description="Which memories to list; every field narrows the list.")
class MemoryFilterInput:
    tiers: list[Tier] | None = None
    project: strawberry.ID | None = None
    session: strawberry.ID | None = None
    kinds: list[MemoryKind] | None = None
    include_archived: bool = strawberry.field(default=False, description="Also memories compression archived.")
    include_closed: bool = strawberry.field(default=True, description="Also facts a newer one superseded.")
    request_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Only the memories the writes of these `requestId`s stored."
    )


@strawberry.type
class MemoryConnection:
    nodes: list[Memory]
    page_info: PageInfo


@strawberry.type
class EntityConnection:
    nodes: list[Entity]
    page_info: PageInfo


@strawberry.type(description="A walk through the knowledge graph: nodes[i] -edges[i]- nodes[i+1].")
class Path:
    nodes: list[Entity]
    edges: list[Edge]

    @strawberry.field
    def length(self) -> int:
        return len(self.edges)


@strawberry.type(description="decision -CAUSED-> error -SOLVED_BY-> fix; either end may be missing, never both.")
class Chain:
    decision: Entity | None
    error: Entity
    fix: Entity | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Chain:
        return cls(
            decision=Entity.from_row(row["decision"]) if row["decision"] else None,
            error=Entity.from_row(row["error"]),
            fix=Entity.from_row(row["fix"]) if row["fix"] else None,
        )


@strawberry.type(name="TierUsage", description="How full one tier of a scope is; compression starts past `trigger`.")
class TierFill:
    tier: Tier
    used_tokens: int
    items: int
    capacity: int
    trigger: float
    fill: float
    project: str | None
    session: str | None

    @classmethod
    def from_usage(cls, usage: TierUsage) -> TierFill:
        return cls(
            tier=usage.tier,
            used_tokens=usage.used_tokens,
            items=usage.items,
            capacity=usage.capacity,
            trigger=TRIGGER[usage.tier],
            fill=round(usage.fill, 4),
            project=usage.project_id,
            session=usage.session_id,
        )
