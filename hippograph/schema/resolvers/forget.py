"""``forgetSession``, ``forgetProject`` and ``forgetUser``: erasing a whole scope."""

from __future__ import annotations

from contextlib import suppress

from starlette.concurrency import run_in_threadpool

from hippograph.memory.writing import forget as forget_rules
from hippograph.memory.writing.forget import ScopeForgotten as StoredScopeForgotten
from hippograph.memory.tiers import Scope
from hippograph.schema.context import Info
from hippograph.schema.errors import NotFound
from hippograph.schema.events import Event
from hippograph.schema.guards import mutation
from hippograph.schema.limits import ident
from hippograph.schema.types.forget import (
    ForgetProjectInput,
    ForgetProjectPayload,
    ForgetSessionInput,
    ForgetSessionPayload,
    ForgetUserInput,
    ForgetUserPayload,
    ScopeForgotten,
)


@mutation
async def forget_session(info: Info, input: ForgetSessionInput) -> ForgetSessionPayload:
    user_id, session_id = info.context.user_id, ident(input.id, "id")
    Scope(user_id, session_id=session_id)  # a malformed id is the caller's mistake
    forgotten = await run_in_threadpool(
        forget_rules.forget_session, info.context.services, user_id, session_id, _actor(info),
    )
    _clear_loaders(info, forgotten)
    info.context.events.publish(Event(
        "SESSION_FORGOTTEN", user_id, forgotten.project_id, session_id,
        memory_ids=tuple(forgotten.memory_ids), entity_ids=tuple(forgotten.entity_ids),
    ))
    return ScopeForgotten.from_result(forgotten)


@mutation
async def forget_project(info: Info, input: ForgetProjectInput) -> ForgetProjectPayload:
    user_id, project_id = info.context.user_id, ident(input.id, "id")
    Scope(user_id, project_id)
    forgotten = await run_in_threadpool(
        forget_rules.forget_project, info.context.services, user_id, project_id, _actor(info),
    )
    _clear_loaders(info, forgotten)
    info.context.events.publish(Event(
        "PROJECT_FORGOTTEN", user_id, project_id,
        memory_ids=tuple(forgotten.memory_ids), entity_ids=tuple(forgotten.entity_ids),
    ))
    return ScopeForgotten.from_result(forgotten)


@mutation
async def forget_user(info: Info, input: ForgetUserInput) -> ForgetUserPayload:
    caller = info.context.caller
    assert caller is not None  # behind IsAuthenticated
    user_id = ident(input.user, "user") if input.user is not None else caller.user_id
    Scope(user_id)
    # Another user's id from a non-admin is answered as if there were no such user: existence is never revealed.
    if user_id != caller.user_id and not caller.is_admin:
        raise NotFound(f"user {user_id} not found")
    forgotten = await run_in_threadpool(forget_rules.forget_user, info.context.services, user_id, _actor(info))
    if forgotten.nothing:
        raise NotFound(f"user {user_id} not found")
    # The user's open subscriptions hear it last; their sockets close as their keys are gone (hippograph.api.sockets).
    info.context.events.publish(Event("USER_FORGOTTEN", user_id))
    return ScopeForgotten.from_result(forgotten)


def _actor(info: Info) -> str:
    """Who asked, for the audit tombstone: the caller and the key they used."""
    caller = info.context.caller
    assert caller is not None
    return f"{caller.user_id} (key {caller.key_id})"


def _clear_loaders(info: Info, forgotten: StoredScopeForgotten) -> None:
    """A later field of the same request must not read what was just deleted from the cache."""
    loaders = info.context.loaders
    for loader, ids in ((loaders.memory, forgotten.memory_ids), (loaders.entity, forgotten.entity_ids)):
        for gone in ids:
            with suppress(KeyError):  # strawberry's clear() raises for a key it never cached
                loader.clear(gone)
