"""``remember``, ``updateMemory`` and ``forget``."""

from __future__ import annotations

from contextlib import suppress
from typing import Any, cast

import strawberry

from hippograph.memory.writing.admission import KEEP
from hippograph.operations import memories
from hippograph.schema.context import Info
from hippograph.schema.guards import mutation
from hippograph.schema.loaders import Loaders
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
from hippograph.schema.types.forget import ErasureReceipt
from hippograph.schema.types.nodes import Memory


async def load_memory(info: Info, memory_id: str, written: dict[str, Any] | None = None) -> Memory | None:
    """The caller's memory; ``written`` is its row as the write that stored it read it back, so the
    answer to a write costs no second read (and the request's other fields find it in the loader)."""
    if written is not None:
        info.context.loaders.memory.prime(memory_id, written)
        return Memory.from_row(written)
    row = await info.context.loaders.memory.load(memory_id)
    return Memory.from_row(row) if row else None


def clear_loaders(loaders: Loaders, memory_ids: list[str], entity_ids: list[str]) -> None:
    """A later field of the same request must not read what was just deleted from the cache."""
    for loader, ids in ((loaders.memory, memory_ids), (loaders.entity, entity_ids)):
        for gone in ids:
            with suppress(KeyError):  # strawberry's clear() raises for a key it never cached
                loader.clear(gone)


@mutation
async def remember(info: Info, input: RememberInput) -> RememberPayload:
    stored = await memories.remember(
        info.context.call,
        input.content,
        input.tier,
        kind=input.kind.value,
        project=input.project,
        session=input.session,
        relevance=input.relevance,
        summary=input.summary,
        attributes=input.attributes,
        mentions=[(m.type, m.name) for m in input.mentions] if input.mentions is not None else None,
        fields=input.fields,
        request_id=input.request_id,
    )
    plan = stored.compression
    return RememberSuccess(
        memory=await load_memory(info, stored.id, stored.memory),
        created=stored.created,
        duplicate_of=strawberry.ID(stored.duplicate_of) if stored.duplicate_of else None,
        redacted=stored.redacted,
        compression=CompressionReport(
            steps=list(plan.steps),
            deleted=cast("list[strawberry.ID]", list(plan.delete)),
            summarised=cast("list[strawberry.ID]", list(plan.summarise)),
            archived=cast("list[strawberry.ID]", list(plan.archive)),
        )
        if plan
        else None,
    )


@mutation
async def update_memory(info: Info, input: UpdateMemoryInput) -> UpdateMemoryPayload:
    summary = KEEP if input.summary is strawberry.UNSET else input.summary
    updated = await memories.update_memory(
        info.context.call,
        input.id,
        content=input.content,
        summary=summary,
        relevance=input.relevance,
        request_id=input.request_id,
    )
    return UpdateMemorySuccess(memory=Memory.from_row(updated.memory), redacted=updated.redacted)


@mutation
async def forget(info: Info, input: ForgetInput) -> ForgetPayload:
    forgotten = await memories.forget(info.context.call, memory=input.memory, entity=input.entity, turn=input.turn)
    clear_loaders(info.context.loaders, forgotten.memories, forgotten.entities)
    assert forgotten.receipt is not None
    return ForgetSuccess(
        memories=[strawberry.ID(i) for i in forgotten.memories],
        entities=[strawberry.ID(i) for i in forgotten.entities],
        turns=[strawberry.ID(i) for i in forgotten.turns],
        receipt=ErasureReceipt.from_receipt(forgotten.receipt),
    )
