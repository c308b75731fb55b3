"""``recordDecision``, ``recordError``, ``recordPattern``, ``setPreference``, ``link`` and ``unlink``."""

from __future__ import annotations

import strawberry
from starlette.concurrency import run_in_threadpool

from hippograph.memory.writing import knowledge
from hippograph.graph.vocabulary import EdgeType as StoredEdgeType
from hippograph.memory.writing.knowledge import Recorded
from hippograph.memory.tiers import Scope
from hippograph.schema.context import Info
from hippograph.schema.events import Event
from hippograph.schema.guards import mutation
from hippograph.schema.limits import MAX_SHORT_TEXT, bounded_list, entity_name, ident, optional_text, positive, text
from hippograph.schema.resolvers.memories import load_memory, scope_of
from hippograph.schema.types.knowledge import (
    LinkInput,
    LinkPayload,
    LinkSuccess,
    RecordDecisionInput,
    RecordDecisionPayload,
    RecordErrorInput,
    RecordErrorPayload,
    RecordPatternInput,
    RecordPatternPayload,
    RecordSuccess,
    SetPreferenceInput,
    SetPreferencePayload,
    UnlinkInput,
    UnlinkPayload,
    UnlinkSuccess,
)
from hippograph.schema.types.nodes import Edge, Entity


async def _entity(info: Info, entity_id: str | None) -> Entity | None:
    if not entity_id:
        return None
    row = await info.context.loaders.entity.load(entity_id)
    return Entity.from_row(row) if row else None


async def _recorded(info: Info, scope: Scope, recorded: Recorded, kind: str) -> RecordSuccess:
    stored = recorded.memory
    tier_scope = scope.for_tier(stored.tier)
    if stored.created:
        touched = [recorded.entity_id, *recorded.closed, *recorded.related.values()]
        info.context.events.publish(Event(
            kind, scope.user_id, tier_scope.project_id, tier_scope.session_id, memory_ids=(stored.id,),
            entity_ids=tuple(i for i in dict.fromkeys(touched) if i),
        ))
    return RecordSuccess(
        memory=await load_memory(info, stored.id, stored.memory),
        entity=await _entity(info, recorded.entity_id),
        created=stored.created,
        duplicate_of=strawberry.ID(stored.duplicate_of) if stored.duplicate_of else None,
        redacted=stored.redacted,
        closed=[strawberry.ID(i) for i in recorded.closed],
        fix=await _entity(info, recorded.related.get("fix")),
        caused_by=await _entity(info, recorded.related.get("causedBy")),
    )


@mutation
async def record_decision(info: Info, input: RecordDecisionInput) -> RecordDecisionPayload:
    scope = scope_of(info, input.project, input.session)
    conflicts = [ident(i, "conflictsWith") for i in bounded_list(input.conflicts_with, "conflictsWith") or []]
    recorded = await run_in_threadpool(
        knowledge.record_decision, info.context.services, scope, entity_name(input.decision, "decision"),
        reason=optional_text(input.reason, "reason", MAX_SHORT_TEXT), conflicts_with=conflicts, tier=input.tier,
    )
    return await _recorded(info, scope, recorded, "DECISION_RECORDED")


@mutation
async def record_error(info: Info, input: RecordErrorInput) -> RecordErrorPayload:
    scope = scope_of(info, input.project, input.session)
    recorded = await run_in_threadpool(
        knowledge.record_error, info.context.services, scope, entity_name(input.error, "error"),
        fix=entity_name(input.fix, "fix") if input.fix is not None else None,
        caused_by=ident(input.caused_by, "causedBy") if input.caused_by is not None else None, tier=input.tier,
    )
    return await _recorded(info, scope, recorded, "ERROR_RECORDED")


@mutation
async def record_pattern(info: Info, input: RecordPatternInput) -> RecordPatternPayload:
    scope = scope_of(info, input.project, input.session)
    recorded = await run_in_threadpool(
        knowledge.record_pattern, info.context.services, scope, entity_name(input.pattern, "pattern"),
        count=positive(input.count, "count"), tier=input.tier,
    )
    return await _recorded(info, scope, recorded, "PATTERN_RECORDED")


@mutation
async def set_preference(info: Info, input: SetPreferenceInput) -> SetPreferencePayload:
    scope = Scope(info.context.user_id)
    key = text(input.key, "key", 64)
    value = text(input.value, "value", MAX_SHORT_TEXT)
    entity_name(f"{key}: {value}", "value")
    recorded = await run_in_threadpool(knowledge.set_preference, info.context.services, scope, key, value)
    return await _recorded(info, scope, recorded, "PREFERENCE_SET")


@mutation
async def link(info: Info, input: LinkInput) -> LinkPayload:
    from_id, to_id = ident(input.from_, "from"), ident(input.to, "to")
    note = optional_text(input.note, "note", MAX_SHORT_TEXT)
    row = await run_in_threadpool(
        knowledge.link, info.context.services, info.context.user_id, from_id, to_id, StoredEdgeType(input.type), note,
    )
    info.context.events.publish(Event("LINKED", info.context.user_id, entity_ids=(from_id, to_id)))
    return LinkSuccess(edge=Edge(
        type=StoredEdgeType(row["type"]), from_id=strawberry.ID(row["fromId"]), to_id=strawberry.ID(row["toId"]),
        note=row["note"], created_at=None,
    ))


@mutation
async def unlink(info: Info, input: UnlinkInput) -> UnlinkPayload:
    from_id, to_id = ident(input.from_, "from"), ident(input.to, "to")
    removed = await run_in_threadpool(
        knowledge.unlink, info.context.services, info.context.user_id, from_id, to_id, StoredEdgeType(input.type),
    )
    info.context.events.publish(Event("UNLINKED", info.context.user_id, entity_ids=(from_id, to_id)))
    return UnlinkSuccess(removed=removed)
