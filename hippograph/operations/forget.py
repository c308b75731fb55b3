"""``forget_session``, ``forget_project`` and ``forget_user``: erasing a whole scope; ``verify_erasure``:
checking an erasure's receipt against the live store."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from typing import Any

from hippograph.memory import keys, receipts
from hippograph.memory.errors import NotFound
from hippograph.memory.tiers import Scope
from hippograph.memory.writing import forget as forget_rules
from hippograph.memory.writing.forget import ScopeForgotten
from hippograph.operations.call import Call
from hippograph.operations.event_bus import Event
from hippograph.operations.limits import as_of, ident


async def forget_session(call: Call, session_id: str) -> ScopeForgotten:
    """Erase a session: its memories and turns, what was derived from it, and what only they supported."""
    session_id = ident(session_id, "id")
    Scope(call.user_id, session_id=session_id)  # a malformed id is the caller's mistake
    forgotten = await run_in_threadpool(
        forget_rules.forget_session, call.services, call.user_id, session_id, call.actor
    )
    call.publish(
        "SESSION_FORGOTTEN",
        forgotten.project_id,
        session_id,
        memory_ids=forgotten.memory_ids,
        entity_ids=forgotten.entity_ids,
    )
    return forgotten


async def forget_project(call: Call, project_id: str) -> ScopeForgotten:
    """Erase a project: its memories, its sessions (as ``forget_session`` does), entities and node."""
    project_id = ident(project_id, "id")
    Scope(call.user_id, project_id)
    forgotten = await run_in_threadpool(
        forget_rules.forget_project, call.services, call.user_id, project_id, call.actor
    )
    call.publish("PROJECT_FORGOTTEN", project_id, memory_ids=forgotten.memory_ids, entity_ids=forgotten.entity_ids)
    return forgotten


async def forget_user(call: Call, user: str | None = None) -> ScopeForgotten:
    """Erase a user — the caller, or with an admin key anyone — with everything they own."""
    user_id = ident(user, "user") if user is not None else call.user_id
    Scope(user_id)
    # Another user's id from a non-admin is answered as if there were no such user: existence is never revealed.
    if user_id != call.user_id and not call.caller.is_admin:
        raise NotFound(f"user {user_id} not found")
    # The user's open subscriptions hear it last; their sockets close once their keys are gone
    # (hippograph.api.sockets), and not before the event is published, though the keys go in the first batch.
    with call.events.erasing(user_id):
        forgotten = await run_in_threadpool(forget_rules.forget_user, call.services, user_id, call.actor)
        if forgotten.nothing:
            raise NotFound(f"user {user_id} not found")
        if forgotten.api_keys:
            keys.clear_caches()  # the keys this process checked lately; the erased user's are among them
        call.events.publish(Event("USER_FORGOTTEN", user_id))
    return forgotten


async def verify_erasure(call: Call, receipt: Any) -> receipts.Verification:
    """Check a receipt (as ``Receipt.as_json`` wrote it) against the live store: the caller's own erasures,
    or with an admin key anyone's (a user's erasure took their keys, so an admin checks it)."""
    read = receipts.Receipt.from_json(receipt)
    # Never read by the check, yet a time the caller sent: held to the rule of every time, and an erasure's
    # receipt is made when it is done, so its time is now or before.
    as_of(read.at, "receipt.at")
    Scope(read.user_id)
    if read.user_id != call.user_id and not call.caller.is_admin:
        raise NotFound(f"user {read.user_id} not found")
    return await run_in_threadpool(receipts.verify, call.services, read)
