"""``forgetSession``, ``forgetProject`` and ``forgetUser``: erasing a whole scope; ``verifyErasure``."""

from __future__ import annotations

from hippograph.operations import forget as forgetting
from hippograph.schema.context import Info
from hippograph.schema.guards import checked, mutation
from hippograph.schema.resolvers.memories import clear_loaders
from hippograph.schema.types.forget import (
    ForgetProjectInput,
    ForgetProjectPayload,
    ForgetSessionInput,
    ForgetSessionPayload,
    ForgetUserInput,
    ForgetUserPayload,
    ErasureCheck,
    ErasureReceiptInput,
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


@checked
async def verify_erasure(info: Info, receipt: ErasureReceiptInput) -> ErasureCheck:
    return ErasureCheck.from_verification(await forgetting.verify_erasure(info.context.call, receipt.as_json()))
