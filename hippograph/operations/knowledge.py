"""``record_decision``, ``record_error``, ``record_pattern``, ``set_preference``, ``link`` and ``unlink``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool

from hippograph.graph.vocabulary import EdgeType, Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.writing import knowledge
from hippograph.memory.writing.knowledge import Recorded
from hippograph.operations.call import Call
from hippograph.operations.limits import (
    MAX_INT,
    MAX_SHORT_TEXT,
    bounded,
    bounded_list,
    caller_scope,
    entity_name,
    ident,
    optional_ident,
    optional_text,
    text,
)


async def record_decision(
    call: Call,
    decision: str,
    *,
    reason: str | None = None,
    conflicts_with: Sequence[str] | None = None,
    tier: Tier = Tier.PROJECT,
    project: str | None = None,
    session: str | None = None,
    request_id: str | None = None,
    informed_by: str | None = None,
) -> Recorded:
    """Record a decision now; close the decisions it replaces; ``informed_by`` names the recall that informed it."""
    scope = caller_scope(call.user_id, project, session)
    conflicts = [ident(i, "conflictsWith") for i in bounded_list(conflicts_with, "conflictsWith") or []]
    recorded = await run_in_threadpool(
        knowledge.record_decision,
        call.services,
        scope,
        entity_name(decision, "decision"),
        reason=optional_text(reason, "reason", MAX_SHORT_TEXT),
        conflicts_with=conflicts,
        tier=tier,
        request_id=optional_ident(request_id, "requestId"),
        informed_by=optional_ident(informed_by, "informedBy"),
    )
    return _published(call, scope, recorded, "DECISION_RECORDED")


async def record_error(
    call: Call,
    error: str,
    *,
    fix: str | None = None,
    caused_by: str | None = None,
    tier: Tier = Tier.PROJECT,
    project: str | None = None,
    session: str | None = None,
    request_id: str | None = None,
) -> Recorded:
    """Record an error, with its fix and the decision that caused it."""
    scope = caller_scope(call.user_id, project, session)
    recorded = await run_in_threadpool(
        knowledge.record_error,
        call.services,
        scope,
        entity_name(error, "error"),
        fix=entity_name(fix, "fix") if fix is not None else None,
        caused_by=optional_ident(caused_by, "causedBy"),
        tier=tier,
        request_id=optional_ident(request_id, "requestId"),
    )
    return _published(call, scope, recorded, "ERROR_RECORDED")


async def record_pattern(
    call: Call,
    pattern: str,
    *,
    count: int = 1,
    tier: Tier = Tier.LONG_TERM,
    project: str | None = None,
    session: str | None = None,
    request_id: str | None = None,
) -> Recorded:
    """Record a recurring pattern, or count more sightings of it."""
    scope = caller_scope(call.user_id, project, session)
    recorded = await run_in_threadpool(
        knowledge.record_pattern,
        call.services,
        scope,
        entity_name(pattern, "pattern"),
        count=bounded(count, "count", MAX_INT),
        tier=tier,
        request_id=optional_ident(request_id, "requestId"),
    )
    return _published(call, scope, recorded, "PATTERN_RECORDED")


async def set_preference(call: Call, key: str, value: str, request_id: str | None = None) -> Recorded:
    """Set a long-term preference, replacing the key's old value."""
    scope = Scope(call.user_id)
    key, value = text(key, "key", 64), text(value, "value", MAX_SHORT_TEXT)
    entity_name(f"{key}: {value}", "value")
    recorded = await run_in_threadpool(
        knowledge.set_preference, call.services, scope, key, value, request_id=optional_ident(request_id, "requestId")
    )
    return _published(call, scope, recorded, "PREFERENCE_SET")


async def link(call: Call, from_id: str, to_id: str, edge: EdgeType, note: str | None = None) -> dict[str, Any]:
    """Add a knowledge-graph edge between two of the caller's entities: the edge as stored."""
    from_id, to_id = ident(from_id, "from"), ident(to_id, "to")
    note = optional_text(note, "note", MAX_SHORT_TEXT)
    row = await run_in_threadpool(knowledge.link, call.services, call.user_id, from_id, to_id, edge, note)
    call.publish("LINKED", entity_ids=(from_id, to_id))
    return row


async def unlink(call: Call, from_id: str, to_id: str, edge: EdgeType) -> int:
    """Remove a knowledge-graph edge: how many went."""
    from_id, to_id = ident(from_id, "from"), ident(to_id, "to")
    removed = await run_in_threadpool(knowledge.unlink, call.services, call.user_id, from_id, to_id, edge)
    call.publish("UNLINKED", entity_ids=(from_id, to_id))
    return removed


def _published(call: Call, scope: Scope, recorded: Recorded, kind: str) -> Recorded:
    stored = recorded.memory
    if stored.created:
        tier_scope = scope.for_tier(stored.tier)
        touched = [recorded.entity_id, *recorded.closed, *recorded.related.values()]
        call.publish(
            kind,
            tier_scope.project_id,
            tier_scope.session_id,
            memory_ids=(stored.id,),
            entity_ids=[i for i in dict.fromkeys(touched) if i],
        )
    return recorded
