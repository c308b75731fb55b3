"""Sessions: a conversation's lifetime, its volatile memory, and what it left behind."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, cast

import strawberry
from strawberry.scalars import JSON

from hippograph.graph.vocabulary import Tier as StoredTier
from hippograph.memory.documents import DocumentKind
from hippograph.memory.errors import NotFound
from hippograph.memory.lifecycle.transcript import TranscriptEntry
from hippograph.operations import browse, documents, sessions
from hippograph.operations.limits import DEFAULT_PAGE
from hippograph.schema.context import Info
from hippograph.schema.errors import BadUserInputError, LimitExceededError, NotFoundError
from hippograph.schema.types.common import native_time
from hippograph.schema.types.nodes import Memory


@strawberry.type(
    name="TranscriptEntry", description="A turn of the conversation, or the standing summary of older turns."
)
class TranscriptLine:
    id: strawberry.ID
    role: str
    content: str
    tokens: int
    at: datetime | None
    is_summary: bool
    position: int
    ref: str | None
    item: JSON | None = strawberry.field(
        description="The turn's item as it was appended (scrubbed); null when none was."
    )

    @classmethod
    def from_entry(cls, entry: TranscriptEntry) -> TranscriptLine:
        return cls(
            id=strawberry.ID(entry.id),
            role=entry.role,
            content=entry.content,
            tokens=entry.tokens,
            at=native_time(entry.at),
            is_summary=entry.is_summary,
            position=entry.position,
            ref=entry.ref,
            item=cast("JSON | None", entry.item),
        )


@strawberry.type(description="A conversation; its SESSION-tier memories are evicted (or promoted) when it ends.")
class Session:
    id: strawberry.ID
    project: str | None
    status: str
    started_at: datetime | None
    ended_at: datetime | None

    @strawberry.field(description="The session's own (SESSION-tier) memories, newest first.")
    async def memories(self, info: Info, first: int = DEFAULT_PAGE) -> list[Memory]:
        page = await browse.memories(info.context.call, tiers=[StoredTier.SESSION], session=str(self.id), first=first)
        return [Memory.from_row(row) for row in page.rows]

    @strawberry.field(description="The standing summary of older turns (if any), then the recent turns.")
    async def transcript(self, info: Info) -> list[TranscriptLine]:
        return [TranscriptLine.from_entry(e) for e in await sessions.transcript(info.context.call, str(self.id))]

    @strawberry.field(
        description="The session as an Izanagi session document (tasks, active context); null when none was imported."
    )
    async def document(self, info: Info) -> JSON | None:
        try:
            return cast(
                JSON,
                await documents.export_document(info.context.call, DocumentKind.SESSION, self.project, str(self.id)),
            )
        except NotFound:
            return None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Session:
        return cls(
            id=strawberry.ID(row["id"]),
            project=row.get("projectId"),
            status=row.get("status") or "active",
            started_at=native_time(row.get("startedAt")),
            ended_at=native_time(row.get("endedAt")),
        )


@strawberry.input
class StartSessionInput:
    id: strawberry.ID
    project: strawberry.ID | None = None


@strawberry.input
class EndSessionInput:
    id: strawberry.ID


@strawberry.type
class SessionStarted:
    session: Session


@strawberry.type(description="A session memory kept: `from` was the session's, `to` is its copy in a persistent tier.")
class Promotion:
    from_: strawberry.ID = strawberry.field(name="from")
    to: strawberry.ID


@strawberry.type(name="SessionEnded")
class EndedSession:
    session: Session
    promoted: list[Promotion]
    evicted: list[strawberry.ID]
    turns_deleted: int


StartSessionPayload = Annotated[
    SessionStarted | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("StartSessionPayload")
]
EndSessionPayload = Annotated[
    EndedSession | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("EndSessionPayload")
]
