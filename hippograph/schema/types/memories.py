"""Inputs and results of the memory writes: ``remember``, ``updateMemory``, ``forget``."""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from hippograph.schema.errors import BadUserInputError, LimitExceededError, NotFoundError
from hippograph.schema.types.forget import ErasureReceipt
from hippograph.schema.types.common import EntityType, MemoryKind, Tier, request_id_field
from hippograph.schema.types.nodes import Memory


@strawberry.input(description="An entity the memory mentions, besides those found in its text.")
class MentionInput:
    type: EntityType
    name: str


@strawberry.input
class RememberInput:
    content: str
    tier: Tier
    kind: MemoryKind = MemoryKind.NOTE  # type: ignore[attr-defined]  # made at import (operations/vocabulary.py)
    project: strawberry.ID | None = strawberry.field(default=None, description="Needed for PROJECT memories.")
    session: strawberry.ID | None = strawberry.field(default=None, description="Needed for SESSION memories.")
    relevance: float = 1.0
    summary: str | None = None
    attributes: JSON | None = None
    mentions: list[MentionInput] | None = None
    fields: list[str] | None = strawberry.field(
        default=None,
        description="An ITEM's indexed fields (at most 50): each embedded on its own, so that "
        "`itemScores` scores the item by its best one. Scrubbed; only their vectors are kept.",
    )
    request_id: strawberry.ID | None = request_id_field()


@strawberry.input(description="What to change; fields left out keep their value, `summary: null` clears it.")
class UpdateMemoryInput:
    id: strawberry.ID
    content: str | None = None
    summary: str | None = strawberry.UNSET
    relevance: float | None = None
    request_id: strawberry.ID | None = request_id_field()


@strawberry.input(description="Exactly one of `memory`, `entity` or `turn`.")
class ForgetInput:
    memory: strawberry.ID | None = None
    entity: strawberry.ID | None = None
    turn: strawberry.ID | None = strawberry.field(
        default=None,
        description="A turn of a transcript, with the facts extracted from it; a summary with the turns "
        "it covers. A turn a summary covers goes only with that summary.",
    )


@strawberry.type(description="What a write compressed to make room.")
class CompressionReport:
    steps: list[str]
    deleted: list[strawberry.ID]
    summarised: list[strawberry.ID]
    archived: list[strawberry.ID]


@strawberry.type
class RememberSuccess:
    memory: Memory | None
    created: bool = strawberry.field(description="False when the same text was already stored: `duplicateOf` is it.")
    duplicate_of: strawberry.ID | None
    redacted: list[str] = strawberry.field(description="Kinds of secrets replaced by [REDACTED:kind].")
    compression: CompressionReport | None


@strawberry.type
class UpdateMemorySuccess:
    memory: Memory
    redacted: list[str]


@strawberry.type(
    description="Everything that went: the memories, summaries only they supported, orphaned entities and turns."
)
class ForgetSuccess:
    memories: list[strawberry.ID]
    entities: list[strawberry.ID]
    turns: list[strawberry.ID]
    receipt: ErasureReceipt


RememberPayload = Annotated[
    RememberSuccess | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("RememberPayload")
]
UpdateMemoryPayload = Annotated[
    UpdateMemorySuccess | BadUserInputError | NotFoundError | LimitExceededError,
    strawberry.union("UpdateMemoryPayload"),
]
ForgetPayload = Annotated[
    ForgetSuccess | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("ForgetPayload")
]
