"""``session``, ``startSession`` and ``endSession``."""

from __future__ import annotations

import strawberry

from hippograph.operations import sessions
from hippograph.schema.context import Info
from hippograph.schema.guards import checked, mutation
from hippograph.schema.types.sessions import (
    EndSessionInput,
    EndSessionPayload,
    EndedSession,
    Promotion,
    Session,
    SessionStarted,
    StartSessionInput,
    StartSessionPayload,
)


@checked
async def session(info: Info, id: strawberry.ID) -> Session | None:
    return Session.from_row(await sessions.session(info.context.call, id))


@mutation
async def start_session(info: Info, input: StartSessionInput) -> StartSessionPayload:
    return SessionStarted(
        session=Session.from_row(await sessions.start_session(info.context.call, input.id, input.project))
    )


@mutation
async def end_session(info: Info, input: EndSessionInput) -> EndSessionPayload:
    ended, row = await sessions.end_session(info.context.call, input.id)
    return EndedSession(
        session=Session.from_row(row),
        promoted=[Promotion(from_=strawberry.ID(a), to=strawberry.ID(b)) for a, b in ended.promoted.items()],
        evicted=[strawberry.ID(i) for i in ended.evicted],
        turns_deleted=ended.turns_deleted,
    )
