"""``remember``, ``update_memory`` and ``forget`` (one memory, one entity or one turn)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from starlette.concurrency import run_in_threadpool

from hippograph.graph.vocabulary import ITEM_KIND, EntityType, Tier
from hippograph.memory import browse
from hippograph.memory.errors import NotFound
from hippograph.memory.writing import forget as forget_rules
from hippograph.memory.writing import updates
from hippograph.memory.writing.forget import Forgotten
from hippograph.memory.ids import check_id
from hippograph.memory.writing.admission import KEEP, MAX_CONTENT_CHARS, Keep, MemoryInput
from hippograph.memory.writing.store import remember as store_memory
from hippograph.memory.writing.writer import Remembered, Updated
from hippograph.operations.call import Call
from hippograph.operations.errors import BadInput
from hippograph.operations.limits import (
    MAX_ITEM_ATTRIBUTES,
    MAX_LIST,
    attributes as json_object,
    bounded_list,
    caller_scope,
    entity_name,
    ident,
    optional_ident,
    optional_text,
    text,
)


def item_fields(kind: str, fields: Sequence[str] | None) -> list[str]:
    """A write's indexed fields: an ITEM's only (no other memory is scored by them), at most ``MAX_LIST``."""
    if fields and kind != ITEM_KIND:
        raise BadInput(
            f"fields are an {ITEM_KIND.upper()}'s: a {kind.upper()} is scored by its content", field="fields"
        )
    return bounded_list(fields, "fields") or []


async def remember(
    call: Call,
    content: str,
    tier: Tier,
    *,
    kind: str = "note",
    project: str | None = None,
    session: str | None = None,
    relevance: float = 1.0,
    summary: str | None = None,
    attributes: Any = None,
    mentions: Sequence[tuple[EntityType, str]] | None = None,
    fields: Sequence[str] | None = None,
    request_id: str | None = None,
) -> Remembered:
    """Store a memory under its tier's rules; ``content`` is checked by the writer, which names the field."""
    scope = caller_scope(call.user_id, project, session)
    named = [
        (type_, entity_name(name, f"mentions[{i}].name"))
        for i, (type_, name) in enumerate(bounded_list(mentions, "mentions", MAX_LIST) or [])
    ]
    item = MemoryInput(
        content=content,
        tier=tier,
        kind=kind,
        relevance=relevance,
        summary=optional_text(summary, "summary", MAX_CONTENT_CHARS),
        mentions=named,
        attributes=json_object(attributes, most=MAX_ITEM_ATTRIBUTES) if kind == ITEM_KIND else json_object(attributes),
        fields=[text(field, f"fields[{i}]", MAX_CONTENT_CHARS) for i, field in enumerate(item_fields(kind, fields))],
    )
    stored = await run_in_threadpool(
        lambda: store_memory(call.services, scope, item, request_id=optional_ident(request_id, "requestId"))
    )
    if stored.created:
        plan, tier_scope = stored.compression, scope.for_tier(tier)
        call.publish(
            "REMEMBERED",
            tier_scope.project_id,
            tier_scope.session_id,
            memory_ids=(stored.id, *((plan.delete + plan.archive) if plan else [])),
            entity_ids=stored.entity_ids,
        )
    return stored


async def update_memory(
    call: Call,
    memory_id: str,
    content: str | None = None,
    summary: str | Keep | None = KEEP,
    relevance: float | None = None,
    request_id: str | None = None,
) -> Updated:
    """Change what is given: ``content`` (checked by the writer), ``summary`` (``None`` clears it), ``relevance``."""
    memory_id = ident(memory_id, "id")
    changes: dict[str, Any] = {
        "content": content,
        "relevance": relevance,
        "request_id": optional_ident(request_id, "requestId"),
    }
    if not isinstance(summary, Keep):
        changes["summary"] = optional_text(summary, "summary", MAX_CONTENT_CHARS)
    updated = await run_in_threadpool(lambda: updates.update_memory(call.services, call.user_id, memory_id, **changes))
    row = updated.memory
    call.publish("UPDATED", row.get("projectId"), row.get("sessionId"), memory_ids=(memory_id,))
    return updated


async def forget(
    call: Call, memory: str | None = None, entity: str | None = None, turn: str | None = None
) -> Forgotten:
    """Erase exactly one memory, one entity or one turn, with what only it supported."""
    if [memory, entity, turn].count(None) != 2:
        raise BadInput("give exactly one of memory, entity or turn", field="input")
    services, user_id = call.services, call.user_id
    if memory is not None:
        # Refused before the lookup, which would only say "not found".
        memory_id = check_id("memory", ident(memory, "memory"))
        row = (await run_in_threadpool(browse.get_memories, services, user_id, [memory_id])).get(memory_id)
        if row is None:
            raise NotFound(f"memory {memory_id} not found")
        forgotten = await run_in_threadpool(forget_rules.forget_memory, services, user_id, memory_id)
        project_id, session_id = row.get("projectId"), row.get("sessionId")
    elif entity is not None:
        entity_id = check_id("entity", ident(entity, "entity"))
        row = (await run_in_threadpool(browse.get_entities, services, user_id, [entity_id])).get(entity_id)
        if row is None:
            raise NotFound(f"entity {entity_id} not found")
        forgotten = await run_in_threadpool(forget_rules.forget_entity, services, user_id, entity_id)
        project_id, session_id = browse.entity_project(row), None
    else:
        turn_id = check_id("turn", ident(cast(str, turn), "turn"))  # exactly one of the three was given
        forgotten = await run_in_threadpool(forget_rules.forget_turn, services, user_id, turn_id)
        project_id, session_id = forgotten.project_id, forgotten.session_id
    call.publish("FORGOTTEN", project_id, session_id, memory_ids=forgotten.memories, entity_ids=forgotten.entities)
    return forgotten
