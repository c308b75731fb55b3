"""``apiKeys``, ``createApiKey`` and ``revokeApiKey`` — for admin keys only."""

from __future__ import annotations

import strawberry
from starlette.concurrency import run_in_threadpool

from hippograph.memory import keys
from hippograph.schema.context import Info
from hippograph.schema.guards import checked, mutation
from hippograph.schema.limits import ident
from hippograph.schema.types.keys import (
    ApiKey,
    ApiKeyCreated,
    ApiKeyRevoked,
    CreateApiKeyInput,
    CreateApiKeyPayload,
    RevokeApiKeyInput,
    RevokeApiKeyPayload,
)


@checked
async def api_keys(info: Info, user: strawberry.ID | None = None) -> list[ApiKey]:
    services = info.context.services
    rows = await run_in_threadpool(
        keys.list_keys, services.driver, services.database, ident(user, "user") if user is not None else None
    )
    return [ApiKey.from_row(row) for row in rows]


@mutation
async def create_api_key(info: Info, input: CreateApiKeyInput) -> CreateApiKeyPayload:
    services = info.context.services
    issued = await run_in_threadpool(
        keys.create_key, services.driver, services.database, ident(input.user, "user"), input.role
    )
    return ApiKeyCreated(key=ApiKey.from_row(issued.record), secret=issued.secret)


@mutation
async def revoke_api_key(info: Info, input: RevokeApiKeyInput) -> RevokeApiKeyPayload:
    services = info.context.services
    row = await run_in_threadpool(keys.revoke_key, services.driver, services.database, ident(input.id, "id"))
    return ApiKeyRevoked(key=ApiKey.from_row(row))
