"""``remember``, ``updateMemory`` and ``forget``."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

import strawberry
from starlette.concurrency import run_in_threadpool

from hippograph.memory.writing import forget as forget_rules
from hippograph.memory.writing import updates
from hippograph.memory.browse import entity_project
from hippograph.graph.vocabulary import EntityType as StoredEntityType
from hippograph.memory.writing.scrubbing import check_id
from hippograph.memory.writing.admission import MAX_CONTENT_CHARS, MemoryInput
from hippograph.memory.writing.store import remember as store_memory
from hippograph.memory.tiers import Scope
from hippograph.schema.context import Info
from hippograph.schema.errors import BadInput, NotFound
from hippograph.schema.events import Event
from hippograph.schema.guards import mutation
from hippograph.schema.limits import MAX_LIST, attributes, bounded_list, caller_scope, entity_name, ident, optional_text, text
from hippograph.schema.types.memories import (
    CompressionReport,
    ForgetInput,
    ForgetPayload,
    ForgetSuccess,
    RememberInput,
    RememberPayload,
    RememberSuccess,
    UpdateMemoryInput,
    UpdateMemoryPayload,
    UpdateMemorySuccess,
)
from hippograph.schema.types.nodes import Memory


def scope_of(info: Info, project: strawberry.ID | None, session: strawberry.ID | None) -> Scope:
    return caller_scope(info.context.user_id, project, session)


async def load_memory(info: Info, memory_id: str, written: dict[str, Any] | None = None) -> Memory | None:
    """The caller's memory; ``written`` is its row as the write that stored it read it back, so the
    answer to a write costs no second read (and the request's other fields find it in the loader)."""
    if written is not None:
        info.context.loaders.memory.prime(memory_id, written)
        return Memory.from_row(written)
    row = await info.context.loaders.memory.load(memory_id)
    return Memory.from_row(row) if row else None


@mutation
async def remember(info: Info, input: RememberInput) -> RememberPayload:
    scope = scope_of(info, input.project, input.session)
    mentions = [
        (StoredEntityType(m.type), entity_name(m.name, f"mentions[{i}].name"))
        for i, m in enumerate(bounded_list(input.mentions, "mentions", MAX_LIST) or [])
    ]
    item = MemoryInput(
        content=text(input.content, "content", MAX_CONTENT_CHARS),
        tier=input.tier,
        kind=input.kind.value,
        relevance=input.relevance,
        summary=optional_text(input.summary, "summary", MAX_CONTENT_CHARS),
        attributes=attributes(input.attributes),
        mentions=mentions,
    )
    stored = await run_in_threadpool(store_memory, info.context.services, scope, item)
    plan = stored.compression
    tier_scope = scope.for_tier(input.tier)
    if stored.created:
        info.context.events.publish(Event(
            "REMEMBERED", scope.user_id, tier_scope.project_id, tier_scope.session_id,
            memory_ids=(stored.id, *((plan.delete + plan.archive) if plan else [])), entity_ids=tuple(stored.entity_ids),
        ))
    return RememberSuccess(
        memory=await load_memory(info, stored.id, stored.memory),
        created=stored.created,
        duplicate_of=strawberry.ID(stored.duplicate_of) if stored.duplicate_of else None,
        redacted=stored.redacted,
        compression=CompressionReport(
            steps=list(plan.steps), deleted=list(plan.delete), summarised=list(plan.summarise), archived=list(plan.archive),
        ) if plan else None,
    )


@mutation
async def update_memory(info: Info, input: UpdateMemoryInput) -> UpdateMemoryPayload:
    memory_id = ident(input.id, "id")
    changes: dict[str, object] = {}
    if input.content is not None:
        changes["content"] = text(input.content, "content", MAX_CONTENT_CHARS)
    if input.summary is not strawberry.UNSET:
        changes["summary"] = optional_text(input.summary, "summary", MAX_CONTENT_CHARS)
    if input.relevance is not None:
        changes["relevance"] = input.relevance
    updated = await run_in_threadpool(
        lambda: updates.update_memory(info.context.services, info.context.user_id, memory_id, **changes)
    )
    row = updated.memory
    info.context.events.publish(Event(
        "UPDATED", info.context.user_id, row.get("projectId"), row.get("sessionId"), memory_ids=(memory_id,),
    ))
    return UpdateMemorySuccess(memory=Memory.from_row(row), redacted=updated.redacted)


@mutation
async def forget(info: Info, input: ForgetInput) -> ForgetPayload:
    if (input.memory is None) == (input.entity is None):
        raise BadInput("give exactly one of memory or entity", field="input")
    services, user_id, loaders = info.context.services, info.context.user_id, info.context.loaders
    if input.memory is not None:
        # Refused before the lookup, which would only say "not found".
        memory_id = check_id("memory", ident(input.memory, "memory"))
        row = await loaders.memory.load(memory_id)
        if row is None:
            raise NotFound(f"memory {memory_id} not found")
        forgotten = await run_in_threadpool(forget_rules.forget_memory, services, user_id, memory_id)
        project_id, session_id = row.get("projectId"), row.get("sessionId")
    else:
        entity_id = check_id("entity", ident(input.entity, "entity"))
        row = await loaders.entity.load(entity_id)
        if row is None:
            raise NotFound(f"entity {entity_id} not found")
        forgotten = await run_in_threadpool(forget_rules.forget_entity, services, user_id, entity_id)
        project_id, session_id = entity_project(row), None
    # A later field of the same request must not read what was just deleted from the cache.
    for loader, ids in ((loaders.memory, forgotten.memories), (loaders.entity, forgotten.entities)):
        for gone in ids:
            with suppress(KeyError):  # strawberry's clear() raises for a key it never cached
                loader.clear(gone)
    info.context.events.publish(Event(
        "FORGOTTEN", user_id, project_id, session_id,
        memory_ids=tuple(forgotten.memories), entity_ids=tuple(forgotten.entities),
    ))
    return ForgetSuccess(
        memories=[strawberry.ID(i) for i in forgotten.memories], entities=[strawberry.ID(i) for i in forgotten.entities],
    )
