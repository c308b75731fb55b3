"""``api_keys``, ``create_api_key`` and ``revoke_api_key`` (GraphQL lets admin keys alone call them),
and who a presented key belongs to."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool

from hippograph.memory import keys
from hippograph.memory.keys import Caller, CallerCache, IssuedKey, Role
from hippograph.memory.services import Services
from hippograph.operations.call import Call
from hippograph.operations.limits import ident, optional_ident


async def key_owner(services: Services, presented: str | None, cache: CallerCache | None = None) -> Caller | None:
    """The owner of a presented key, or None for a missing, unknown or revoked one (``cache`` spares a
    lookup for a key checked moments ago)."""
    if not presented:
        return None
    return await run_in_threadpool(keys.authenticate, services.driver, services.database, presented, cache)


async def api_keys(call: Call, user: str | None = None) -> list[dict[str, Any]]:
    services = call.services
    return await run_in_threadpool(keys.list_keys, services.driver, services.database, optional_ident(user, "user"))


async def create_api_key(call: Call, user: str, role: Role = Role.USER) -> IssuedKey:
    services = call.services
    return await run_in_threadpool(keys.create_key, services.driver, services.database, ident(user, "user"), role)


async def revoke_api_key(call: Call, key_id: str) -> dict[str, Any]:
    services = call.services
    return await run_in_threadpool(keys.revoke_key, services.driver, services.database, ident(key_id, "id"))
