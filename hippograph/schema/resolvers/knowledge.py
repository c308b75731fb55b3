"""``recordDecision``, ``recordError``, ``recordPattern``, ``setPreference``, ``link`` and ``unlink``."""

from __future__ import annotations

import strawberry

from hippograph.graph.vocabulary import EdgeType as StoredEdgeType
from hippograph.memory.writing.knowledge import Recorded
from hippograph.operations import knowledge
from hippograph.schema.context import Info
from hippograph.schema.guards import mutation
from hippograph.schema.resolvers.memories import load_memory
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


async def _recorded(info: Info, recorded: Recorded) -> RecordSuccess:
    stored = recorded.memory
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
    return await _recorded(
        info,
        await knowledge.record_decision(
            info.context.call,
            input.decision,
            reason=input.reason,
            conflicts_with=input.conflicts_with,
            tier=input.tier,
            project=input.project,
            session=input.session,
            request_id=input.request_id,
            informed_by=input.informed_by,
        ),
    )


@mutation
async def record_error(info: Info, input: RecordErrorInput) -> RecordErrorPayload:
    return await _recorded(
        info,
        await knowledge.record_error(
            info.context.call,
            input.error,
            fix=input.fix,
            caused_by=input.caused_by,
            tier=input.tier,
            project=input.project,
            session=input.session,
            request_id=input.request_id,
        ),
    )


@mutation
async def record_pattern(info: Info, input: RecordPatternInput) -> RecordPatternPayload:
    return await _recorded(
        info,
        await knowledge.record_pattern(
            info.context.call,
            input.pattern,
            count=input.count,
            tier=input.tier,
            project=input.project,
            session=input.session,
            request_id=input.request_id,
        ),
    )


@mutation
async def set_preference(info: Info, input: SetPreferenceInput) -> SetPreferencePayload:
    return await _recorded(
        info, await knowledge.set_preference(info.context.call, input.key, input.value, request_id=input.request_id)
    )


@mutation
async def link(info: Info, input: LinkInput) -> LinkPayload:
    row = await knowledge.link(info.context.call, input.from_, input.to, StoredEdgeType(input.type), input.note)
    return LinkSuccess(
        edge=Edge(
            type=StoredEdgeType(row["type"]),
            from_id=strawberry.ID(row["fromId"]),
            to_id=strawberry.ID(row["toId"]),
            note=row["note"],
            created_at=None,
        )
    )


@mutation
async def unlink(info: Info, input: UnlinkInput) -> UnlinkPayload:
    removed = await knowledge.unlink(info.context.call, input.from_, input.to, StoredEdgeType(input.type))
    return UnlinkSuccess(removed=removed)
