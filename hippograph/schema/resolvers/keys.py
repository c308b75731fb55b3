"""``apiKeys``, ``createApiKey`` and ``revokeApiKey`` — for admin keys only (``root.py``'s ``ADMIN``)."""

from __future__ import annotations

import strawberry

from hippograph.operations import keys
from hippograph.schema.context import Info
from hippograph.schema.guards import checked, mutation
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
    return [ApiKey.from_row(row) for row in await keys.api_keys(info.context.call, user)]


@mutation
async def create_api_key(info: Info, input: CreateApiKeyInput) -> CreateApiKeyPayload:
    issued = await keys.create_api_key(info.context.call, input.user, input.role)
    return ApiKeyCreated(key=ApiKey.from_row(issued.record), secret=issued.secret)


@mutation
async def revoke_api_key(info: Info, input: RevokeApiKeyInput) -> RevokeApiKeyPayload:
    return ApiKeyRevoked(key=ApiKey.from_row(await keys.revoke_api_key(info.context.call, input.id)))
