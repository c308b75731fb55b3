"""Inputs and results of the knowledge-graph writes: decisions, errors, patterns, preferences, links."""

from __future__ import annotations

from typing import Annotated

import strawberry

from hippograph.graph.vocabulary import Tier as StoredTier
from hippograph.schema.errors import BadUserInputError, LimitExceededError, NotFoundError
from hippograph.schema.types.common import EdgeType, Tier, request_id_field
from hippograph.schema.types.nodes import Edge, Entity, Memory


@strawberry.input
class RecordDecisionInput:
    decision: str
    reason: str | None = None
    conflicts_with: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Active decisions this one replaces: they are closed (validUntil set)."
    )
    tier: Tier = StoredTier.PROJECT
    project: strawberry.ID | None = None
    session: strawberry.ID | None = None
    request_id: strawberry.ID | None = request_id_field()
    informed_by: strawberry.ID | None = strawberry.field(
        default=None,
        description=(
            "The recall that informed this decision (its `recallId`): "
            "the decision's `context` then shows what it returned."
        ),
    )


@strawberry.input
class RecordErrorInput:
    error: str
    fix: str | None = strawberry.field(default=None, description="Adds (error)-[:SOLVED_BY]->(fix decision).")
    caused_by: strawberry.ID | None = strawberry.field(default=None, description="Adds (decision)-[:CAUSED]->(error).")
    tier: Tier = StoredTier.PROJECT
    project: strawberry.ID | None = None
    session: strawberry.ID | None = None
    request_id: strawberry.ID | None = request_id_field()


@strawberry.input
class RecordPatternInput:
    pattern: str
    count: int = 1
    tier: Tier = StoredTier.LONG_TERM
    project: strawberry.ID | None = None
    session: strawberry.ID | None = None
    request_id: strawberry.ID | None = request_id_field()


@strawberry.input(description="A long-term preference; a new value for the same key closes the previous one.")
class SetPreferenceInput:
    key: str
    value: str
    request_id: strawberry.ID | None = request_id_field()


@strawberry.input
class LinkInput:
    from_: strawberry.ID = strawberry.field(name="from")
    to: strawberry.ID
    type: EdgeType
    note: str | None = None


@strawberry.input
class UnlinkInput:
    from_: strawberry.ID = strawberry.field(name="from")
    to: strawberry.ID
    type: EdgeType


@strawberry.type(description="A recorded fact: the memory that says it and the entity it records.")
class RecordSuccess:
    memory: Memory | None
    entity: Entity | None
    created: bool
    duplicate_of: strawberry.ID | None
    redacted: list[str]
    closed: list[strawberry.ID] = strawberry.field(description="Entities this record superseded.")
    fix: Entity | None = None
    caused_by: Entity | None = None


@strawberry.type
class LinkSuccess:
    edge: Edge


@strawberry.type
class UnlinkSuccess:
    removed: int


RecordDecisionPayload = Annotated[
    RecordSuccess | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("RecordDecisionPayload")
]
RecordErrorPayload = Annotated[
    RecordSuccess | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("RecordErrorPayload")
]
RecordPatternPayload = Annotated[
    RecordSuccess | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("RecordPatternPayload")
]
SetPreferencePayload = Annotated[
    RecordSuccess | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("SetPreferencePayload")
]
LinkPayload = Annotated[
    LinkSuccess | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("LinkPayload")
]
UnlinkPayload = Annotated[
    UnlinkSuccess | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("UnlinkPayload")
]
