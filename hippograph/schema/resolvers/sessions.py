"""``session``, ``startSession`` and ``endSession``."""

from __future__ import annotations

import strawberry
from starlette.concurrency import run_in_threadpool

from hippograph.memory import browse
from hippograph.memory.lifecycle import sessions as session_rules
from hippograph.memory.tiers import Scope
from hippograph.schema.context import Info
from hippograph.schema.events import Event
from hippograph.schema.guards import checked, mutation
from hippograph.schema.limits import ident
from hippograph.schema.types.sessions import (
    EndSessionInput,
    EndSessionPayload,
    Promotion,
    Session,
    SessionEnded,
    SessionStarted,
    StartSessionInput,
    StartSessionPayload,
)


@checked
async def session(info: Info, id: strawberry.ID) -> Session | None:
    row = await run_in_threadpool(browse.get_session, info.context.services, info.context.user_id, ident(id, "id"))
    return Session.from_row(row)


@mutation
async def start_session(info: Info, input: StartSessionInput) -> StartSessionPayload:
    scope = Scope(
        info.context.user_id, ident(input.project, "project") if input.project is not None else None, ident(input.id, "id")
    )
    row = await run_in_threadpool(session_rules.start_session, info.context.services, scope)
    info.context.events.publish(Event("SESSION_STARTED", scope.user_id, scope.project_id, scope.session_id))
    return SessionStarted(session=Session.from_row(row))


@mutation
async def end_session(info: Info, input: EndSessionInput) -> EndSessionPayload:
    services, user_id = info.context.services, info.context.user_id
    session_id = ident(input.id, "id")
    Scope(user_id, session_id=session_id)
    ended = await run_in_threadpool(session_rules.end_session, services, user_id, session_id)
    row = await run_in_threadpool(browse.get_session, services, user_id, session_id)
    info.context.events.publish(Event(
        "SESSION_ENDED", user_id, row.get("projectId"), session_id,
        memory_ids=tuple([*ended.promoted.values(), *ended.evicted]),
    ))
    return SessionEnded(
        session=Session.from_row(row),
        promoted=[Promotion(from_=strawberry.ID(a), to=strawberry.ID(b)) for a, b in ended.promoted.items()],
        evicted=[strawberry.ID(i) for i in ended.evicted],
        turns_deleted=ended.turns_deleted,
    )
