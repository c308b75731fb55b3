"""``forgetSession``, ``forgetProject`` and ``forgetUser``: erasing a whole scope."""

from __future__ import annotations

from hippograph.operations import forget as forgetting
from hippograph.schema.context import Info
from hippograph.schema.guards import mutation
from hippograph.schema.resolvers.memories import clear_loaders
from hippograph.schema.types.forget import (
    ForgetProjectInput,
    ForgetProjectPayload,
    ForgetSessionInput,
    ForgetSessionPayload,
    ForgetUserInput,
    ForgetUserPayload,
    ScopeErased,
)


@mutation
async def forget_session(info: Info, input: ForgetSessionInput) -> ForgetSessionPayload:
    forgotten = await forgetting.forget_session(info.context.call, input.id)
    clear_loaders(info.context.loaders, forgotten.memory_ids, forgotten.entity_ids)
    return ScopeErased.from_result(forgotten)


@mutation
async def forget_project(info: Info, input: ForgetProjectInput) -> ForgetProjectPayload:
    forgotten = await forgetting.forget_project(info.context.call, input.id)
    clear_loaders(info.context.loaders, forgotten.memory_ids, forgotten.entity_ids)
    return ScopeErased.from_result(forgotten)


@mutation
async def forget_user(info: Info, input: ForgetUserInput) -> ForgetUserPayload:
    return ScopeErased.from_result(await forgetting.forget_user(info.context.call, input.user))
