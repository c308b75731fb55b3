"""``session`` and its ``transcript``, ``start_session`` and ``end_session``."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool

from hippograph.memory import browse
from hippograph.memory.lifecycle import sessions as session_rules
from hippograph.memory.lifecycle.sessions import SessionEnded
from hippograph.memory.lifecycle.transcript import TranscriptEntry, transcript as read_and_log
from hippograph.memory.tiers import Scope
from hippograph.operations.call import Call
from hippograph.operations.limits import ident, optional_ident


async def session(call: Call, session_id: str) -> dict[str, Any]:
    """One of the caller's sessions, as stored."""
    return await run_in_threadpool(browse.get_session, call.services, call.user_id, ident(session_id, "id"))


async def transcript(call: Call, session_id: str) -> list[TranscriptEntry]:
    """A session's standing summary of older turns (if any), then its recent turns."""
    scope = Scope(call.user_id, session_id=ident(session_id, "id"))
    return await run_in_threadpool(read_and_log, call.services, scope)


async def start_session(call: Call, session_id: str, project: str | None = None) -> dict[str, Any]:
    """Start (or resume) a session, optionally in a project: the session as stored."""
    scope = Scope(call.user_id, optional_ident(project, "project"), ident(session_id, "id"))
    row = await run_in_threadpool(session_rules.start_session, call.services, scope)
    call.publish("SESSION_STARTED", scope.project_id, scope.session_id)
    return row


async def end_session(call: Call, session_id: str) -> tuple[SessionEnded, dict[str, Any]]:
    """End a session (promote what qualifies, evict the rest): what ending did, and the session as it is now."""
    session_id = ident(session_id, "id")
    Scope(call.user_id, session_id=session_id)
    ended = await run_in_threadpool(session_rules.end_session, call.services, call.user_id, session_id)
    row = await run_in_threadpool(browse.get_session, call.services, call.user_id, session_id)
    call.publish(
        "SESSION_ENDED", row.get("projectId"), session_id, memory_ids=[*ended.promoted.values(), *ended.evicted]
    )
    return ended, row
